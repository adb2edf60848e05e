// Bunco's "House rules" fold of the create form: it starts at the seed's rules, and only
// what differs from them is sent (a night created without changes is the seed's night).

import { houseOptions as readFold } from "../../shell/housefold.js";

export const HOUSE_FOLD = `
  <details class="house-rules">
    <summary>House rules</summary>
    <label for="bh-bell">Points at the High table that end a round (5–100)</label>
    <input id="bh-bell" name="bell_at" type="number" min="5" max="100" value="21" inputmode="numeric">
    <label for="bh-three">Three of a kind of another number scores (0–21)</label>
    <input id="bh-three" name="three_of_a_kind" type="number" min="0" max="21" value="5" inputmode="numeric">
    <fieldset>
      <legend>Movement after each round</legend>
      <div class="choices">
        <input type="radio" name="movement" id="bh-seed" value="seed" checked>
        <label for="bh-seed"><strong>High table's winners go to Low</strong><span>The rule sheet; other tables' winners move up one.</span></label>
        <input type="radio" name="movement" id="bh-common" value="common">
        <label for="bh-common"><strong>High table's winners stay</strong><span>Its losers go to Low; other tables' winners move up one.</span></label>
      </div>
    </fieldset>
  </details>`;

const FIELDS = [
  // [name, lowest, highest, the seed's value]
  ["bell_at", 5, 100, 21],
  ["three_of_a_kind", 0, 21, 5],
];

/** {options} differing from the seed's rules, or {error} naming the first bad field. */
export const houseOptions = (form) => readFold(form, FIELDS, { movement: "seed" });

/** The line under "where you go next" that says which movement this night plays. */
export const movementRule = (state) =>
  state.house_rules?.movement === "common"
    ? "House rules: the High table's winners stay, its losers go to Low."
    : "Rule sheet: the High table's winners go to Low.";
