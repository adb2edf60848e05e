// BANK!'s TV views (docs/ui.md, "How a game's pages plug in"): the round (BANK huge,
// the chart of its growth, sorted scores, finished rounds) and the winner screen.
// Read only; the shell owns the socket, the top bar and the lobby.

import { roomLog } from "../../shell/api.js";
import { $, h, names, points, setText, show } from "../../shell/dom.js";
import { feel } from "../../shell/feel.js";
import { board } from "./board.js";
import { drawChart } from "./chart.js";
import { pair } from "./dice.js";
import { diff } from "./events.js";
import { SAFE_ROLLS, nameOf, nextRollSafe } from "./rules.js";
import { RoundTracker } from "./tracker.js";

export const styles = ["/static/css/games/bank-tv.css"];

/** What the shell's TV lobby shows of BANK!. */
export const lobby = {
  settings: (state) => `${state.rounds} rounds. Waiting for the banker to start…`,
  howto: {
    title: "How BANK! works",
    items: [
      "Every roll adds to one shared <strong>BANK</strong>.",
      "Rolls 1–3 are <strong>safe</strong>: a 7 adds 70, doubles add their dots.",
      "From roll 4: doubles <strong>double</strong> the BANK, and a <strong>7 ends the round</strong>. Whoever has not banked gets nothing.",
      "Tap <strong>BANK</strong> on your phone to take the BANK into your score, then sit out the round.",
    ],
  },
};

const HISTORY_HEAD =
  '<thead><tr><th scope="col">Round</th><th scope="col">Ended by</th><th scope="col">BANK</th><th scope="col">Who banked</th></tr></thead>';

const VIEWS = `
  <section id="tv-play" class="tv-play" hidden>
    <div class="tv-main">
      <div class="tv-round">
        <span id="tv-round">Round 1 of 20</span>
        <span id="tv-phase" class="phase"></span>
      </div>
      <div class="tv-bank" role="status" aria-live="polite" aria-atomic="true">
        <span class="bank-label">BANK</span>
        <span id="tv-bank" class="tv-bank-total">0</span>
        <span id="tv-bank-stale" class="stale-note" hidden>not current</span>
      </div>
      <div class="tv-roll">
        <span id="tv-last" class="tv-last"></span>
        <span id="tv-turn" class="tv-turn"></span>
      </div>
      <p id="tv-event" class="tv-event" aria-live="polite"></p>
      <figure class="tv-chart">
        <figcaption>The BANK this round, roll by roll</figcaption>
        <div id="tv-chart"></div>
      </figure>
    </div>
    <aside class="tv-side">
      <h2>Scores</h2>
      <ol id="tv-board" class="board tv-board"></ol>
      <h2>Finished rounds</h2>
      <table class="history" id="tv-history-table">
        ${HISTORY_HEAD}
        <tbody id="tv-history"></tbody>
      </table>
      <p id="tv-history-empty" class="muted">None yet.</p>
    </aside>
  </section>

  <section id="tv-final" class="tv-final" hidden aria-labelledby="tv-winner">
    <h1 id="tv-winner" class="tv-winner"></h1>
    <p id="tv-winner-score" class="tv-winner-score"></p>
    <div class="tv-final-cols">
      <ol id="tv-final-board" class="board tv-board final"></ol>
      <table class="history">
        <caption>Every round</caption>
        ${HISTORY_HEAD}
        <tbody id="tv-final-history"></tbody>
      </table>
    </div>
  </section>`;

export function mount(ctx, root) {
  root.innerHTML = VIEWS;
  const tracker = new RoundTracker();
  const updateBoard = board($("#tv-board"));
  const updateFinal = board($("#tv-final-board"));
  let state = null;

  function render(next, previous) {
    const events = diff(previous, next);
    tracker.update(previous, next);
    state = next;
    for (const event of events) {
      if (event.kind === "roll") continue;
      setText($("#tv-event"), event.text);
      if (event.kind === "bank") feel("bank");
      if (event.kind === "round") feel(event.entry.ended_by === "seven" ? "seven" : "round");
      if (event.kind === "finished") feel("win");
    }
    draw();
    if (tracker.incomplete(next)) {
      roomLog(ctx.code, ctx.collection)
        .then(({ events: log }) => {
          tracker.seed(log, state);
          draw();
        })
        .catch(() => {});
    }
  }

  function draw() {
    const view = state.status === "finished" ? "final" : "play";
    for (const key of ["play", "final"]) show($(`#tv-${key}`), key === view);
    document.body.dataset.view = view;
    if (view === "play") drawPlay();
    if (view === "final") drawFinal();
  }

  function drawPlay() {
    setText($("#tv-round"), `Round ${state.round} of ${state.rounds}`);
    const safe = nextRollSafe(state);
    const phase = $("#tv-phase");
    phase.dataset.phase = safe ? "safe" : "danger";
    const rolls = `${state.roll_count} ${state.roll_count === 1 ? "roll" : "rolls"}`;
    setText(phase, safe ? `✓ SAFE · ${rolls}: a 7 adds 70` : `⚠ DANGER · ${rolls}: a 7 ends it`);
    setText($("#tv-bank"), points(state.bank));
    const last = $("#tv-last");
    const key = state.roll_count > 0 && state.last_roll ? String(state.last_roll.seq) : `new-${state.round}`;
    if (last.dataset.key !== key) {
      last.dataset.key = key;
      if (state.roll_count > 0 && state.last_roll) {
        const [a, b] = state.last_roll.dice;
        last.replaceChildren(pair([a, b], "big"), h("span", {}, `${nameOf(state, state.last_roll.by)} rolled ${a + b}`));
      } else {
        last.replaceChildren(h("span", {}, "Waiting for the first roll"));
      }
    }
    setText($("#tv-turn"), `▶ ${nameOf(state, state.turn)} rolls next`);
    drawChart($("#tv-chart"), tracker.series, SAFE_ROLLS);
    updateBoard(state, { sorted: true, showPlace: true, banks: tracker.banks, presence: false });
    drawHistory($("#tv-history"), 8);
    show($("#tv-history-empty"), state.rounds_log.length === 0);
    show($("#tv-history-table"), state.rounds_log.length > 0);
  }

  function drawFinal() {
    const winners = state.winners.map((id) => nameOf(state, id));
    setText($("#tv-winner"), `★ ${names(winners)} ${winners.length > 1 ? "win" : "wins"}! ★`);
    const top = state.players.find((p) => p.id === state.winners[0]);
    setText($("#tv-winner-score"), `${points(top ? top.score : 0)} points after ${state.rounds} rounds`);
    updateFinal(state, { sorted: true, showPlace: true, presence: false });
    drawHistory($("#tv-final-history"), Infinity);
  }

  function drawHistory(body, limit) {
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

  /** The BANK shown may be old while the socket is not live. */
  function stale(on) {
    $("#tv-bank").classList.toggle("stale", on);
    show($("#tv-bank-stale"), on);
  }

  return { render, stale, destroy: () => root.replaceChildren() };
}
