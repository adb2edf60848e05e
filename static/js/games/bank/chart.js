// A small SVG chart of the BANK after each roll of the current round. No library.

const W = 600;
const H = 220;
const PAD = { left: 56, right: 16, top: 14, bottom: 30 };
const NS = "http://www.w3.org/2000/svg";

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function niceMax(value) {
  if (value <= 100) return 100;
  const step = 10 ** Math.floor(Math.log10(value));
  return Math.ceil(value / step) * step;
}

/** series[k] = the BANK after roll k (holes allowed); safeRolls marks where danger starts. */
export function drawChart(container, series, safeRolls = 3) {
  const known = series.map((v, i) => [i, v]).filter(([, v]) => v !== undefined && v !== null);
  const lastX = Math.max(safeRolls + 3, series.length - 1);
  const top = niceMax(Math.max(0, ...known.map(([, v]) => v)));
  const x = (i) => PAD.left + (i / lastX) * (W - PAD.left - PAD.right);
  const y = (v) => H - PAD.bottom - (v / top) * (H - PAD.top - PAD.bottom);
  const end = series.length - 1;
  const seven = end > 0 && (series[end] === null || series[end] === undefined); // a 7 ended the round
  const values = known.map(([i, v]) => `after roll ${i}: ${v}`).join(", ") + (seven ? `, then a 7 at roll ${end}` : "");
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `BANK growth this round. ${values || "No rolls yet."}`, class: "chart" });
  svg.append(el("rect", { x: x(safeRolls), y: PAD.top, width: x(lastX) - x(safeRolls), height: H - PAD.top - PAD.bottom, class: "danger-zone" }));
  svg.append(el("text", { x: x(safeRolls) + 6, y: PAD.top + 16, class: "zone-label" }, "danger: a 7 ends it"));
  for (const v of [0, top / 2, top]) {
    svg.append(el("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }));
    svg.append(el("text", { x: PAD.left - 8, y: y(v) + 5, class: "axis", "text-anchor": "end" }, Math.round(v).toLocaleString("en-US")));
  }
  for (let i = 0; i <= lastX; i += 1) {
    svg.append(el("text", { x: x(i), y: H - 8, class: "axis", "text-anchor": "middle" }, String(i)));
  }
  if (known.length > 1) {
    svg.append(el("polyline", { points: known.map(([i, v]) => `${x(i)},${y(v)}`).join(" "), class: "line" }));
  }
  known.forEach(([i, v], index) => {
    svg.append(el("circle", { cx: x(i), cy: y(v), r: index === known.length - 1 ? 7 : 5, class: "dot" }));
  });
  if (seven && known.length) {
    // The ending 7: the BANK falls to nothing at that roll.
    const [i, v] = known[known.length - 1];
    svg.append(el("line", { x1: x(i), y1: y(v), x2: x(end), y2: y(0), class: "drop" }));
    svg.append(el("circle", { cx: x(end), cy: y(0), r: 11, class: "seven" }));
    svg.append(el("text", { x: x(end), y: y(0) + 5, class: "seven-label", "text-anchor": "middle" }, "7"));
  }
  container.replaceChildren(svg);
}
