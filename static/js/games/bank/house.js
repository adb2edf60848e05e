// BANK!'s "House rules" fold of the create form: it starts at the seed's rules, and only
// what differs from them is sent (a game created without changes is the seed's game).
// Also used by the tournament's form, whose tables play BANK!.

import { houseOptions as readFold } from "../../shell/housefold.js";

export const HOUSE_FOLD = `
  <details class="house-rules">
    <summary>House rules</summary>
    <label for="h-safe">Safe rolls at the start of a round (1–5)</label>
    <input id="h-safe" name="safe_rolls" type="number" min="1" max="5" value="3" inputmode="numeric">
    <label for="h-seven">A 7 during the safe rolls adds (0–1000)</label>
    <input id="h-seven" name="seven_points" type="number" min="0" max="1000" value="70" inputmode="numeric">
    <label for="h-min">Nobody may BANK below (empty: no minimum)</label>
    <input id="h-min" name="min_bank" type="number" min="1" max="100000" inputmode="numeric" placeholder="no minimum">
    <fieldset>
      <legend>Doubles after the safe rolls</legend>
      <div class="choices">
        <input type="radio" name="doubles" id="h-double" value="double" checked>
        <label for="h-double"><strong>Double the BANK</strong><span>The rule sheet.</span></label>
        <input type="radio" name="doubles" id="h-double-add" value="double_add">
        <label for="h-double-add"><strong>Double it and add the roll</strong><span>A common house rule.</span></label>
      </div>
    </fieldset>
  </details>`;

const FIELDS = [
  // [name, lowest, highest, the seed's value]
  ["safe_rolls", 1, 5, 3],
  ["seven_points", 0, 1000, 70],
  ["min_bank", 1, 100000, null],
];

/** {options} differing from the seed's rules, or {error} naming the first bad field. */
export const houseOptions = (form) => readFold(form, FIELDS, { doubles: "double" });
