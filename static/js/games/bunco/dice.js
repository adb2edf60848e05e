// Three dice drawn with CSS pips (base.css's .die), with a text alternative.

import { die } from "../../shell/die.js";
import { h } from "../../shell/dom.js";

export { die };

/** Three dice and their reading ("3, 3 and 1") for screen readers. */
export function three(dice, size = "") {
  return h(
    "span",
    { class: "three", role: "img", "aria-label": `${dice[0]}, ${dice[1]} and ${dice[2]}` },
    ...dice.map((v) => die(v, size)),
  );
}
