// Run in a page: WCAG 2.5.3 Label in Name as a person with speech input meets it. A control
// named apart from its words (aria-label, aria-labelledby) has a name that starts with the
// words it shows (axe's rule only asks that it contain them). The words shown skip text
// hidden from sight (.sr-only) or from readers (aria-hidden); case and signs are ignored.
// Returns the controls that do not, as "button#id: shows "…", named "…"".
() => {
  const words = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();
  const shownText = (el) => [...el.childNodes]
    .map((n) => (n.nodeType === 3 ? n.textContent : n.nodeType === 1 && !n.matches("[aria-hidden=true], .sr-only") ? shownText(n) : " "))
    .join("");
  const byIds = (ids) => ids.split(/\s+/).map((id) => document.getElementById(id)?.textContent || "").join(" ");
  const controls = ":is(a[href], button, summary, [role=button], [role=link]):is([aria-label], [aria-labelledby])";
  const wrong = [];
  for (const el of document.querySelectorAll(controls)) {
    if (!el.getClientRects().length || el.closest("[hidden], [aria-hidden=true], .sr-only")) continue;
    const shown = words(shownText(el));
    const labelledby = el.getAttribute("aria-labelledby");
    const name = words(labelledby ? byIds(labelledby) : el.getAttribute("aria-label"));
    if (shown && !name.startsWith(shown)) wrong.push(`${el.tagName.toLowerCase()}#${el.id}: shows "${shown}", named "${name}"`);
  }
  return wrong;
}
