// Bunco's TV views (docs/ui.md, "How a game's pages plug in"): every table live, the
// round and set, the bell (a flash), who moves where after each round, the night's
// leaderboard; the winner screen with the scoresheet at the end. Read only.

import { $, h, names, plural, setText, show } from "../../shell/dom.js";
import { feel } from "../../shell/feel.js";
import { diff } from "./events.js";
import { lobby as phoneLobby } from "./phone.js";
import { movements, nameOf, phaseWords, rolloffWords, roundScoresWords, roundWords, scoresheetUrl, standings } from "./rules.js";
import { standingsTable } from "./sheet.js";
import { tableCard } from "./tablecard.js";

export const styles = ["/static/css/games/bunco.css", "/static/css/games/bunco-tv.css"];

export const lobby = { settings: phoneLobby.settings, howto: { ...phoneLobby.howto, title: "How Bunco works" } };

const VIEWS = `
  <section id="tv-play" class="tv-bunco" hidden aria-labelledby="tv-round">
    <div class="tv-head">
      <h1 id="tv-round" class="tv-round"></h1>
      <p id="tv-phase" class="b-phase" role="status"></p>
      <p id="tv-scores" class="b-scores" hidden></p>
      <p id="tv-stale" class="stale-note" hidden>not current</p>
    </div>
    <p id="tv-event" class="tv-event" aria-live="polite"></p>
    <div id="tv-tables" class="tv-tables"></div>
    <div class="tv-lower">
      <section class="tv-moves" id="tv-moves-box" hidden aria-labelledby="tv-moves-title">
        <h2 id="tv-moves-title">Who moves where</h2>
        <ul id="tv-moves" class="tv-move-list"></ul>
      </section>
      <section class="tv-leader" aria-labelledby="tv-leader-title">
        <h2 id="tv-leader-title">Leaderboard</h2>
        <ol id="tv-leader" class="tv-leader-list"></ol>
      </section>
    </div>
  </section>

  <section id="tv-final" class="tv-bunco-final" hidden aria-labelledby="tv-winner">
    <h1 id="tv-winner" class="tv-winner"></h1>
    <p id="tv-winner-line" class="tv-winner-line"></p>
    <div id="tv-final-sheet" class="sheet-box" tabindex="0" role="region" aria-label="Scoresheet"></div>
    <p><a class="button secondary" id="tv-csv" href="#" download>Download the scoresheet (CSV)</a></p>
  </section>`;

export function mount(ctx, root) {
  root.innerHTML = VIEWS;
  const cards = [];
  $("#tv-csv").href = scoresheetUrl(ctx.code);

  function render(next, previous) {
    const said = [];
    for (const event of diff(previous, next)) {
      if (event.kind === "bunco") {
        feel("win");
        said.push(`⚄ BUNCO! ${nameOf(next, event.player_id)} rolled three ${previous.round}s.`);
      }
      if (event.kind === "bell") {
        feel("bell");
        said.push(`♫ The bell! Round ${previous.round} is over.${event.by ? ` ${nameOf(next, event.by)}'s roll ended it.` : ""}`);
      }
      if (event.kind === "rolloff") said.push(`⚖ ${rolloffWords(next.tables[event.table])}.`);
      if (event.kind === "ring") said.push(`▶ Round ${next.round} has begun.`);
      if (event.kind === "undo") said.push("↶ The host took back the last roll.");
      if (event.kind === "finished") feel("win");
    }
    if (said.length) setText($("#tv-event"), said.join(" "));
    const view = next.status === "finished" ? "final" : "play";
    for (const key of ["play", "final"]) show($(`#tv-${key}`), key === view);
    document.body.dataset.view = `bunco-${view}`;
    document.title = `${view === "final" ? "Final" : roundWords(next)} · TV · ${ctx.code} · bankit`;
    if (view === "play") drawPlay(next);
    else drawFinal(next);
  }

  function drawPlay(state) {
    setText($("#tv-round"), roundWords(state));
    const phase = $("#tv-phase");
    let text = phaseWords(state);
    if (state.phase === "rolloff") text = state.tables.filter((t) => t.rolloff).map((t) => `⚖ ${rolloffWords(t)}`).join(" · ");
    setText(phase, text);
    phase.dataset.phase = state.phase || "";
    const scores = roundScoresWords(state); // each table's score stays until the next round
    setText($("#tv-scores"), scores);
    show($("#tv-scores"), Boolean(scores));
    if (cards.length !== state.tables.length) {
      cards.length = 0;
      $("#tv-tables").replaceChildren();
      for (const t of state.tables) {
        const card = tableCard(t.table);
        cards.push(card);
        $("#tv-tables").append(card.el);
      }
    }
    state.tables.forEach((t, i) => cards[i].update(state, t));
    const waiting = state.phase === "waiting" && state.rounds_log.length > 0;
    show($("#tv-moves-box"), waiting);
    if (waiting) {
      const moves = movements(state, state.rounds_log.at(-1));
      $("#tv-moves").replaceChildren(
        ...moves.map((m) => h("li", { class: m.won ? "won" : "lost" }, m.text)),
      );
    }
    const top = standings(state).slice(0, waiting ? 8 : 12);
    $("#tv-leader").replaceChildren(
      ...top.map(({ player, place }) =>
        h(
          "li",
          {},
          h("span", { class: "place" }, place),
          h("span", { class: "lname" }, player.name),
          h("span", { class: "lstats" }, `${player.wins} ${player.wins === 1 ? "win" : "wins"} · ${player.buncos} ${player.buncos === 1 ? "Bunco" : "Buncos"} · ${player.losses} ${player.losses === 1 ? "loss" : "losses"}`),
        ),
      ),
    );
  }

  function drawFinal(state) {
    const winners = state.winners.map((id) => nameOf(state, id));
    setText($("#tv-winner"), `★ ${names(winners)} ${winners.length > 1 ? "win" : "wins"} the night! ★`);
    const top = state.players.find((p) => p.id === state.winners[0]);
    setText($("#tv-winner-line"), `${plural(top ? top.wins : 0, "win")} out of ${plural(state.rounds_log.length, "round")}`);
    $("#tv-final-sheet").replaceChildren(standingsTable(state, { caption: `Bunco scoresheet · room ${ctx.code}` }));
  }

  function stale(on) {
    show($("#tv-stale"), on);
  }

  return { render, stale, destroy: () => root.replaceChildren() };
}
