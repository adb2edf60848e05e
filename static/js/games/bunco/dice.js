// Three dice drawn with CSS pips (base.css's .die), with a text alternative.

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

/** Three dice and their reading ("3, 3 and 1") for screen readers. */
export function three(dice, size = "") {
  return h(
    "span",
    { class: "three", role: "img", "aria-label": `${dice[0]}, ${dice[1]} and ${dice[2]}` },
    ...dice.map((v) => die(v, size)),
  );
}
