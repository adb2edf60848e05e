// The end of the night, on a phone (player or host): the winners (most wins), the
// player's own record, the standings (printable as the scoresheet) and the CSV.

import { $, names, setText, show } from "../../shell/dom.js";
import { nameOf, scoresheetUrl } from "./rules.js";
import { standingsTable } from "./sheet.js";

export const FINAL = `
  <section id="view-final" class="view narrow bunco-final" hidden aria-labelledby="final-title">
    <h1 id="final-title" class="final-title" tabindex="-1">The night is over</h1>
    <div id="final-me" class="final-me"></div>
    <div id="final-sheet" class="sheet-box"></div>
    <div class="actionbar static">
      <a class="button secondary big" id="final-csv" href="#" download>Download the scoresheet (CSV)</a>
      <button id="final-print" class="secondary" type="button">Print the scoresheet</button>
      <button id="final-undo" class="secondary" type="button" hidden>↶ Undo the last roll</button>
      <a class="button primary big" href="/">New game</a>
    </div>
  </section>`;

export function finalView(ctx) {
  $("#final-csv").href = scoresheetUrl(ctx.code);
  $("#final-print").addEventListener("click", () => window.print());
  $("#final-undo").addEventListener("click", () => ctx.command({ type: "undo" }));

  function render(state) {
    const winners = state.winners.map((id) => nameOf(state, id));
    setText($("#final-title"), winners.length ? `★ ${names(winners)} ${winners.length > 1 ? "win" : "wins"}! ★` : "The night is over");
    const me = ctx.you?.player_id;
    const mine = state.players.find((p) => p.id === me);
    const top = state.players.find((p) => p.id === state.winners[0]);
    let text = `Most wins: ${top ? top.wins : 0} of ${state.rounds_log.length} rounds.`;
    if (mine) {
      const line = `${mine.wins} wins, ${mine.losses} losses, ${mine.buncos} ${mine.buncos === 1 ? "Bunco" : "Buncos"}`;
      text = state.winners.includes(me) ? `You won! ${line}.` : `You: ${line}.`;
    }
    setText($("#final-me"), text);
    $("#final-sheet").replaceChildren(standingsTable(state, { me, caption: `Bunco scoresheet · room ${ctx.code}` }));
    show($("#final-undo"), ctx.you?.role === "banker");
  }

  return { render };
}
