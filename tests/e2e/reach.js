// Run in a page by test_scroll.py after each finger-like scroll (a wheel turn): waits
// until nothing moves any more, then marks every heading, enabled control and live line that is
// now reached: inside the screen and on top at its centre (elementFromPoint is it or
// inside it). `fresh`: forget what earlier scrolls reached (a new size, a new card).
// Returns {pending: what was never reached yet, at: where everything is scrolled to}.
async (fresh) => {
  if (fresh || !window.__reached) window.__reached = new WeakSet();
  const reached = window.__reached;
  const label = (el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className} "${el.textContent.trim().slice(0, 30)}"`;
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  /** Where the page and every box that scrolls are: one string, to see whether a turn moved anything. */
  const where = () => {
    const boxes = [...document.querySelectorAll("body *")].filter((el) => el.scrollTop || el.scrollLeft);
    return [scrollX, scrollY, ...boxes.map((el) => `${label(el)}:${el.scrollTop}`)].join("|");
  };
  let at = where();
  for (let still = 0, n = 0; still < 3 && n < 60; n++) { // settled: three frames without a move
    await frame();
    const now = where();
    still = now === at ? still + 1 : 0;
    at = now;
  }

  const shown = (el) => {
    const rect = el.getBoundingClientRect();
    if (!rect.width || !rect.height || el.closest(".sr-only, [hidden], [inert]")) return false;
    const folded = el.closest("details:not([open])");
    if (folded && !el.closest("summary")) return false; // reachable by opening it
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && Number(style.opacity) > 0;
  };
  // Headings, controls, and what a page says as it happens (the BANK total, a banner, a note)
  const targets = "h1, h2, h3, h4, h5, h6, button, a[href], input, select, textarea, summary, " +
    "[tabindex]:not([tabindex='-1']), [role=status], [role=alert], [aria-live]";
  const all = [...document.querySelectorAll(targets)].filter((el) => !el.disabled && shown(el));
  for (const el of all) {
    if (reached.has(el)) continue;
    const r = el.getClientRects()[0]; // a link that wraps: its first line
    // A big box (a region, a list) is reached when the middle of its part on screen is on top
    const tall = r.height > innerHeight / 3;
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
    const inside = r.left >= -1 && r.right <= innerWidth + 1 && (tall ? bottom - top > 8 : r.top >= -1 && r.bottom <= innerHeight + 1);
    if (!inside) continue;
    const x = r.left + r.width / 2;
    const y = tall ? (top + bottom) / 2 : r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    if (hit && (el.contains(hit) || hit.closest("label")?.control === el)) reached.add(el);
  }
  return { pending: all.filter((el) => !reached.has(el)).map(label), at };
}
