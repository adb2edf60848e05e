// The tournament's create form on the home page: games, App Rounds per game, roll entry.
// form(root, onCreated) — docs/ui.md, "How a game's pages plug in". POSTs to
// /api/tournaments, whose answer carries `organiser_token`.

import { createGame } from "../../shell/api.js";
import { $, busy, setText } from "../../shell/dom.js";
import { HOUSE_FOLD, houseOptions } from "../bank/house.js";

const FORM = `
  <p class="muted small">You become the <strong>organiser</strong>: you seat the tables and start each game.</p>
  <label for="t-games">Games (1–10)</label>
  <input id="t-games" type="number" min="1" max="10" value="4" inputmode="numeric">
  <label for="t-rounds">Rounds per game (1–100)</label>
  <input id="t-rounds" type="number" min="1" max="100" value="10" inputmode="numeric">
  <fieldset>
    <legend>Who enters the dice?</legend>
    <div class="choices">
      <input type="radio" name="entry" id="t-e-banker" value="banker" checked>
      <label for="t-e-banker"><strong>The banker</strong><span>Real dice; each table's banker taps the total.</span></label>
      <input type="radio" name="entry" id="t-e-roller" value="roller">
      <label for="t-e-roller"><strong>Each roller</strong><span>Real dice; whoever rolls taps it on their phone.</span></label>
      <input type="radio" name="entry" id="t-e-virtual" value="virtual">
      <label for="t-e-virtual"><strong>Virtual dice</strong><span>No dice needed: the roller taps ROLL.</span></label>
    </div>
  </fieldset>
  ${HOUSE_FOLD}
  <p class="form-error" id="create-error" role="alert"></p>
  <button class="secondary big" type="submit" id="create-submit">Create tournament</button>`;

const whole = (el, min, max) => {
  const n = Number(el.value.trim());
  return Number.isInteger(n) && n >= min && n <= max ? n : null;
};

/** Builds the form into root; onCreated({code, token, role, name}) once it exists. */
export function form(root, onCreated) {
  const el = document.createElement("form");
  el.id = "create-form";
  el.noValidate = true;
  el.innerHTML = FORM;
  root.append(el);
  el.addEventListener("submit", async (event) => {
    event.preventDefault();
    const games = whole($("#t-games", el), 1, 10);
    const rounds = whole($("#t-rounds", el), 1, 100);
    if (games === null || rounds === null) {
      setText($("#create-error", el), "Games: 1 to 10; rounds: 1 to 100 (whole numbers).");
      return;
    }
    const house = houseOptions(el);
    if (house.error) {
      setText($("#create-error", el), house.error);
      return;
    }
    await busy($("#create-submit", el), "Creating…", async () => {
      try {
        const reply = await createGame("tournaments", { games, rounds, roll_entry: el.elements.entry.value, ...house.options });
        onCreated({ code: reply.code, token: reply.organiser_token, role: "organiser", name: "Organiser" });
      } catch (failure) {
        setText($("#create-error", el), failure.message);
      }
    });
  });
}
