// One die face drawn with CSS pips (base.css's .die; no font needed). Every game's dice
// are made of these; the game adds the text alternative (a pair, three, a reroll).

import { h } from "./dom.js";

const PIPS = {
  1: [5],
  2: [1, 9],
  3: [1, 5, 9],
  4: [1, 3, 7, 9],
  5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9],
};

export function die(value, size = "") {
  const cells = [];
  for (let i = 1; i <= 9; i += 1) cells.push(h("span", { class: PIPS[value].includes(i) ? "pip" : "" }));
  return h("span", { class: `die ${size}`, "aria-hidden": "true", dataset: { v: value } }, cells);
}
