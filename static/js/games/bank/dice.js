// Dice faces drawn with CSS pips (no font needed), each with a text alternative.

import { die } from "../../shell/die.js";
import { h } from "../../shell/dom.js";

export { die };

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
