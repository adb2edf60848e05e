// The finished rounds as a table (the TV, the final screens): round, how it ended,
// the BANK, who banked what.

import { h, points } from "../../shell/dom.js";
import { nameOf } from "./rules.js";

export const HISTORY_HEAD =
  '<thead><tr><th scope="col">Round</th><th scope="col">Ended by</th><th scope="col">BANK</th><th scope="col">Who banked</th></tr></thead>';

/** Fill a <tbody> with the newest `limit` rounds of state.rounds_log, newest first. */
export function drawHistory(body, state, limit = Infinity) {
  const rows = [...state.rounds_log].reverse().slice(0, limit).map((entry) => {
    const who = entry.banked.map((b) => `${nameOf(state, b.player_id)} ${points(b.amount)}`);
    return h(
      "tr",
      { class: entry.ended_by },
      h("th", { scope: "row" }, entry.round),
      h("td", {}, entry.ended_by === "seven" ? "⚠ a 7" : "✓ all banked"),
      h("td", {}, points(entry.bank)),
      h("td", {}, who.length ? who.join(", ") : "nobody"),
    );
  });
  body.replaceChildren(...rows);
}
