// Bunco's create form on the home page: how many sets, and who enters the dice.
// form(root, onCreated) — docs/ui.md, "How a game's pages plug in".

import { createGame } from "../../shell/api.js";
import { $, busy, setText } from "../../shell/dom.js";
import { HOUSE_FOLD, houseOptions } from "./house.js";

const FORM = `
  <p class="muted small">You become the <strong>banker</strong>: you seat the tables and start the game.</p>
  <label for="bunco-sets">Sets (1–10; a set is 6 rounds)</label>
  <input id="bunco-sets" type="number" min="1" max="10" value="1" inputmode="numeric">
  <fieldset>
    <legend>Who enters the dice?</legend>
    <div class="choices">
      <input type="radio" name="entry" id="bunco-e-virtual" value="virtual" checked>
      <label for="bunco-e-virtual"><strong>Virtual dice</strong><span>No dice needed: the roller taps ROLL.</span></label>
      <input type="radio" name="entry" id="bunco-e-roller" value="roller">
      <label for="bunco-e-roller"><strong>Each roller</strong><span>Real dice; whoever rolls taps the three dice.</span></label>
      <input type="radio" name="entry" id="bunco-e-banker" value="banker">
      <label for="bunco-e-banker"><strong>The banker</strong><span>Real dice; you tap every roll.</span></label>
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
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    const sets = Number($("#bunco-sets", el).value.trim());
    if (!Number.isInteger(sets) || sets < 1 || sets > 10) {
      setText($("#create-error", el), "Sets: a whole number from 1 to 10.");
      return;
    }
    const house = houseOptions(el);
    if (house.error) {
      setText($("#create-error", el), house.error);
      return;
    }
    await busy($("#create-submit", el), "Creating…", async () => {
      try {
        const reply = await createGame("rooms", { game: "bunco", sets, roll_entry: el.elements.entry.value, ...house.options });
        onCreated({ code: reply.code, token: reply.banker_token, role: "banker", name: "Banker" });
      } catch (failure) {
        setText($("#create-error", el), failure.message);
      }
    });
  });
}
