// Run in a page: what a phone user would trip over. Returns lists of offenders.
// - contrast: text below WCAG AA (4.5:1; 3:1 for large text), against its composited background;
// - overflow: visible elements sticking out of the viewport sideways;
// - small: buttons and links smaller than 44x44 CSS px (WCAG 2.5.5 target size);
// - unnamed: buttons without an accessible name.
(() => {
  const parse = (value) => {
    const m = value.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  const channel = (v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const visible = (el) => {
    if (el.closest(".sr-only")) return false; // for screen readers only: 1 px, off the edge by design
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) return false;
    for (let n = el; n; n = n.parentElement) {
      const style = getComputedStyle(n);
      if (style.visibility === "hidden" || style.display === "none" || Number(style.opacity) === 0) return false;
    }
    return true;
  };
  const background = (el) => {
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const style = getComputedStyle(n);
      if (style.backgroundImage !== "none") return null; // gradients: not judged here
      const c = parse(style.backgroundColor);
      if (c && c.a > 0) {
        layers.push(c);
        if (c.a >= 1) break;
      }
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (const c of layers.reverse()) bg = over(c, bg);
    return bg;
  };
  const label = (el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className}: "${el.textContent.trim().slice(0, 40)}"`;

  const contrast = [];
  const overflow = [];
  const small = [];
  const unnamed = [];
  const width = document.documentElement.clientWidth;
  for (const el of document.querySelectorAll("body *")) {
    if (!visible(el)) continue;
    const rect = el.getBoundingClientRect();
    if (rect.right > width + 0.5 || rect.left < -0.5) overflow.push(`${label(el)} [${Math.round(rect.left)}..${Math.round(rect.right)}]`);
    const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (hasText && !el.closest("button:disabled, [aria-hidden='true'], svg")) {
      const style = getComputedStyle(el);
      const bg = background(el);
      const fg = parse(style.color);
      if (bg && fg) {
        const color = over(fg, bg);
        const [hi, lo] = [luminance(color), luminance(bg)].sort((x, y) => y - x);
        const ratio = (hi + 0.05) / (lo + 0.05);
        const size = parseFloat(style.fontSize);
        const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
        if (ratio < (large ? 3 : 4.5)) contrast.push(`${label(el)} ${ratio.toFixed(2)}:1`);
      }
    }
    if (el.matches("button, a.button, .segmented label, .choices label") && (rect.width < 44 || rect.height < 44)) {
      small.push(`${label(el)} ${Math.round(rect.width)}x${Math.round(rect.height)}`);
    }
    if (el.matches("button") && !(el.getAttribute("aria-label") || el.textContent.trim())) unnamed.push(label(el));
  }
  const scrollWidth = document.documentElement.scrollWidth;
  return { contrast, overflow, small, unnamed, scrollWidth, width };
})()
