// BANK!'s TV views (docs/ui.md, "How a game's pages plug in"): the round (BANK huge,
// the chart of its growth, sorted scores, finished rounds) and the winner screen.
// Read only; the shell owns the socket, the top bar and the lobby.

import { $, h, names, plural, points, setText, show } from "../../shell/dom.js";
import { feel } from "../../shell/feel.js";
import { board } from "./board.js";
import { drawChart } from "./chart.js";
import { rollLine } from "./dice.js";
import { diff } from "./events.js";
import { HISTORY_HEAD, drawHistory } from "./history.js";
import { banks, endingText, series, shownRound } from "./roundlog.js";
import { howtoItems, nameOf, nextRollSafe, safeRolls, sevenPoints } from "./rules.js";

export const styles = ["/static/css/games/bank-tv.css"];

/** What the shell's TV lobby shows of BANK!. */
export const lobby = {
  settings: (state) => `${plural(state.rounds, "round")}. Waiting for the banker to start…`,
  howto: { title: "How BANK! works", items: howtoItems },
};

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
      <p id="tv-ended" class="tv-ended" hidden></p>
      <p id="tv-event" class="tv-event" aria-live="polite"></p>
      <figure class="tv-chart">
        <figcaption id="tv-chart-caption">The BANK this round, roll by roll</figcaption>
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
  const updateBoard = board($("#tv-board"));
  const updateFinal = board($("#tv-final-board"));
  let state = null;

  function render(next, previous, moment = {}) {
    // A (re)connect draws from the state alone, as a reload does: a difference across a
    // gap would invent events.
    const events = moment.welcome ? [] : diff(previous, next);
    if (moment.welcome) setText($("#tv-event"), "");
    state = next;
    for (const event of events) {
      if (event.kind === "roll") {
        if (event.doubles) feel("double");
        if (next.roll_count === 1) setText($("#tv-event"), ""); // a new round: the old news goes
        continue;
      }
      setText($("#tv-event"), event.kind === "round" ? "" : event.text); // the ending has its own line
      if (event.kind === "bank") feel("bank");
      if (event.kind === "round") feel(event.entry.ended_by === "seven" ? "seven" : "round");
      if (event.kind === "finished") feel("win");
    }
    draw();
  }

  function draw() {
    const view = state.status === "finished" ? "final" : "play";
    for (const key of ["play", "final"]) show($(`#tv-${key}`), key === view);
    document.body.dataset.view = view;
    document.title = `${view === "final" ? "Final" : `Round ${state.round} · BANK ${points(state.bank)}`} · TV · ${ctx.code} · bankit`;
    if (view === "play") drawPlay();
    if (view === "final") drawFinal();
  }

  function drawPlay() {
    setText($("#tv-round"), `Round ${state.round} of ${state.rounds}`);
    const safe = nextRollSafe(state);
    const phase = $("#tv-phase");
    phase.dataset.phase = safe ? "safe" : "danger";
    const rolls = `${state.roll_count} ${state.roll_count === 1 ? "roll" : "rolls"}`;
    setText(phase, safe ? `✓ SAFE · ${rolls}: a 7 adds ${sevenPoints(state)}` : `⚠ DANGER · ${rolls}: a 7 ends it`);
    setText($("#tv-bank"), points(state.bank));
    const last = $("#tv-last");
    const { ended } = shownRound(state);
    // The roll that ended a round stays on screen with its chart until the next roll.
    const roll = state.last_roll && (state.roll_count > 0 || ended) ? state.last_roll : null;
    const key = roll ? String(roll.seq) : `new-${state.round}`;
    if (last.dataset.key !== key) {
      last.dataset.key = key;
      if (roll) {
        last.replaceChildren(...rollLine(roll, nameOf(state, roll.by), "big"));
      } else {
        last.replaceChildren(h("span", {}, "Waiting for the first roll"));
      }
    }
    setText($("#tv-turn"), `▶ ${nameOf(state, state.turn)} rolls next`);
    // How the last round ended stays until the next roll (a late TV sees it at once).
    show($("#tv-ended"), Boolean(ended));
    $("#tv-play").classList.toggle("between", Boolean(ended));
    if (ended) {
      setText($("#tv-ended"), endingText(state, ended));
      $("#tv-ended").dataset.kind = ended.ended_by;
    }
    setText(
      $("#tv-chart-caption"),
      ended ? `Round ${ended.round}, roll by roll (round ${state.round} starts at the next roll)` : "The BANK this round, roll by roll",
    );
    drawChart($("#tv-chart"), series(state), safeRolls(state));
    updateBoard(state, { sorted: true, showPlace: true, banks: banks(state), presence: false });
    drawHistory($("#tv-history"), state, 8);
    show($("#tv-history-empty"), state.rounds_log.length === 0);
    show($("#tv-history-table"), state.rounds_log.length > 0);
  }

  function drawFinal() {
    const winners = state.winners.map((id) => nameOf(state, id));
    setText($("#tv-winner"), `★ ${names(winners)} ${winners.length > 1 ? "win" : "wins"}! ★`);
    const top = state.players.find((p) => p.id === state.winners[0]);
    setText($("#tv-winner-score"), `${points(top ? top.score : 0)} points after ${plural(state.rounds, "round")}`);
    updateFinal(state, { sorted: true, showPlace: true, presence: false });
    drawHistory($("#tv-final-history"), state, Infinity);
  }

  /** The BANK shown may be old while the socket is not live. */
  function stale(on) {
    $("#tv-bank").classList.toggle("stale", on);
    show($("#tv-bank-stale"), on);
  }

  return { render, stale, destroy: () => root.replaceChildren() };
}
