// BANK!'s create form on the home page: rounds and who enters the dice.
// form(root, onCreated) — docs/ui.md, "How a game's pages plug in".

import { createGame } from "../../shell/api.js";
import { $, busy, setText } from "../../shell/dom.js";
import { HOUSE_FOLD, houseOptions } from "./house.js";

const FORM = `
  <p class="muted small">You become the <strong>banker</strong>: you start the game and keep it honest.</p>
  <fieldset>
    <legend>Rounds</legend>
    <div class="segmented rounds">
      <input type="radio" name="rounds" id="r3" value="3"><label for="r3">3</label>
      <input type="radio" name="rounds" id="r10" value="10"><label for="r10">10</label>
      <input type="radio" name="rounds" id="r15" value="15"><label for="r15">15</label>
      <input type="radio" name="rounds" id="r20" value="20" checked><label for="r20">20</label>
      <input type="radio" name="rounds" id="r-other" value="other"><label for="r-other">Other</label>
    </div>
    <label for="custom-rounds" class="small">Other: any number of rounds (1–100)</label>
    <input id="custom-rounds" type="number" min="1" max="100" inputmode="numeric" placeholder="e.g. 5">
  </fieldset>
  <fieldset>
    <legend>Who enters the dice?</legend>
    <div class="choices">
      <input type="radio" name="entry" id="e-banker" value="banker" checked>
      <label for="e-banker"><strong>The banker</strong><span>Players roll real dice and call the total; you tap it.</span></label>
      <input type="radio" name="entry" id="e-roller" value="roller">
      <label for="e-roller"><strong>Each roller</strong><span>Real dice; whoever rolls taps it on their phone.</span></label>
      <input type="radio" name="entry" id="e-virtual" value="virtual">
      <label for="e-virtual"><strong>Virtual dice</strong><span>No dice needed: the roller taps ROLL.</span></label>
    </div>
  </fieldset>
  ${HOUSE_FOLD}
  <p class="form-error" id="create-error" role="alert"></p>
  <button class="secondary big" type="submit" id="create-submit">Create game</button>`;

/** Builds the form into root; onCreated({code, token, role, name}) once the room exists. */
export function form(root, onCreated) {
  const el = document.createElement("form");
  el.id = "create-form";
  el.noValidate = true;
  el.innerHTML = FORM;
  root.append(el);
  // One control: the number field is the "Other" choice, so typing in it ticks "Other"
  // (and a ticked 3/10/15/20 is what is sent, whatever the field holds).
  const custom = $("#custom-rounds", el);
  const other = $("#r-other", el);
  const pickOther = () => {
    other.checked = true;
  };
  custom.addEventListener("focus", pickOther);
  custom.addEventListener("input", pickOther);
  other.addEventListener("change", () => custom.focus());
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    const picked = el.elements.rounds.value;
    const rounds = picked === "other" ? Number(custom.value.trim() || NaN) : Number(picked);
    if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) {
      setText($("#create-error", el), "Rounds: a whole number from 1 to 100.");
      return;
    }
    const house = houseOptions(el);
    if (house.error) {
      setText($("#create-error", el), house.error);
      return;
    }
    await busy($("#create-submit", el), "Creating…", async () => {
      try {
        const reply = await createGame("rooms", { game: "bank", rounds, roll_entry: el.elements.entry.value, ...house.options });
        onCreated({ code: reply.code, token: reply.banker_token, role: "banker", name: "Banker" });
      } catch (failure) {
        setText($("#create-error", el), failure.message);
      }
    });
  });
}
