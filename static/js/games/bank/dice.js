// Dice faces drawn with CSS pips (no font needed), each with a text alternative.

import { h } from "../../shell/dom.js";

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

/** Two dice and their reading, e.g. "3 + 4". */
export function pair([a, b], size = "") {
  return h(
    "span",
    { class: "pair", role: "img", "aria-label": `${a} and ${b}` },
    die(a, size),
    die(b, size),
  );
}

/** A roll as it was entered: "Ann rolled 8" beside two dice when dice were thrown in;
 * for a total, the number itself on a tile (never dice that nobody threw). */
export function rollLine(roll, who, size = "", note = "") {
  if (roll.dice) {
    return [pair(roll.dice, size), h("span", {}, `${who} rolled ${roll.dice[0] + roll.dice[1]}${note}`)];
  }
  return [h("span", {}, `${who} rolled `), h("span", { class: `total-face ${size}` }, String(roll.total)), note];
}
