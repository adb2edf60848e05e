// Run in a page: reflow (WCAG 1.4.10) and focus not obscured (2.4.11), for test_axe.py.
// wide: when the page scrolls sideways, what sticks out past the right edge (the outermost
// such elements); hidden: the controls that, scrolled to, are still off screen or covered.
(() => {
  const width = document.documentElement.clientWidth;
  const label = (el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`;

  let wide = [];
  if (document.documentElement.scrollWidth > width) {
    const out = [...document.querySelectorAll("body *")].filter((el) => {
      const rect = el.getBoundingClientRect();
      return rect.width > 0 && rect.right > width + 0.5 && !el.closest(".sr-only");
    });
    wide = out.filter((el) => !out.includes(el.parentElement)).slice(0, 8).map(label);
    if (!wide.length) wide = ["text wider than its box"];
  }

  const shown = (el) => {
    const rect = el.getBoundingClientRect();
    if (!rect.width || !rect.height || el.closest(".sr-only, [hidden], [inert]")) return false;
    const folded = el.closest("details:not([open])");
    if (folded && !el.closest("summary")) return false; // reachable by opening it
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && Number(style.opacity) > 0;
  };
  /** The box that scrolls `el` into view (its nearest scrolling ancestor), or null: the page. */
  const scroller = (el) => {
    for (let n = el.parentElement; n && n !== document.body; n = n.parentElement) {
      if (/(auto|scroll)/.test(getComputedStyle(n).overflowY) && n.scrollHeight > n.clientHeight) return n;
    }
    return null;
  };
  const controls = "button, a[href], input, select, summary, [tabindex='0']";
  const hidden = [];
  for (const el of [...document.querySelectorAll(controls)].filter(shown)) {
    el.scrollIntoView({ block: "center", inline: "nearest" });
    const r = el.getClientRects()[0]; // a link that wraps: its first line
    const view = scroller(el)?.getBoundingClientRect() ?? { top: 0, bottom: innerHeight };
    const room = Math.min(view.bottom, innerHeight) - Math.max(view.top, 0);
    const big = r.height > Math.min(room, innerHeight / 3); // a region: the middle of its part on screen is enough
    const fits = big || (r.top >= Math.max(view.top, 0) - 2 && r.bottom <= Math.min(view.bottom, innerHeight) + 2);
    const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
    const y = (Math.max(r.top, 0) + Math.min(r.bottom, innerHeight)) / 2; // the middle of its part on screen
    const top = document.elementFromPoint(x, y);
    const seen = top && (el.contains(top) || top.closest("label")?.control === el);
    if (!fits || !seen) hidden.push(`${label(el)} "${el.textContent.trim().slice(0, 30)}"`);
  }
  scrollTo(0, 0);
  return { wide, hidden };
})()
