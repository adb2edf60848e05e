// The TV page (/watch/CODE): a spectator's socket, read only, for a shared screen.

import { codeFromPath, joinLink, qrUrl, roomLog } from "./api.js";
import { board } from "./board.js";
import { drawChart } from "./chart.js";
import { pair } from "./dice.js";
import { $, h, names, points, setText, show } from "./dom.js";
import { diff } from "./events.js";
import { Awake, feel } from "./feel.js";
import { SAFE_ROLLS, nameOf, nextRollSafe } from "./rules.js";
import { RoomSocket } from "./socket.js";
import { RoundTracker } from "./tracker.js";

const code = codeFromPath();
const tracker = new RoundTracker();
const awake = new Awake();
const updateBoard = board($("#tv-board"));
const updateFinal = board($("#tv-final-board"));
let state = null;

function showSection(name) {
  for (const key of ["lobby", "play", "final", "gone"]) show($(`#tv-${key}`), key === name);
  document.body.dataset.view = name;
}

function boot() {
  if (!code) {
    setText($("#tv-gone-text"), "That address has no valid room code in it.");
    showSection("gone");
    return;
  }
  setText($("#tv-code"), code);
  setText($("#tv-code-big"), code);
  const link = joinLink(code);
  setText($("#tv-link"), link.replace(/^https?:\/\//, ""));
  $("#tv-qr").src = qrUrl(code);
  $("#tv-qr").alt = `QR code: join ${link}`;
  setText($("#tv-join"), `Join: ${link.replace(/^https?:\/\//, "")}`);
  new RoomSocket(code, "", {
    welcome: (_, next) => render(next),
    state: render,
    presence(connected) {
      if (!state) return;
      state = { ...state, players: state.players.map((p) => ({ ...p, connected: connected[p.id] ?? p.connected })) };
      draw();
    },
    status({ phase, attempt }) {
      const el = $("#conn");
      el.dataset.phase = phase;
      const text = { connecting: "Connecting…", live: "● Live", reconnecting: `Reconnecting…${attempt > 1 ? ` (try\u00a0${attempt})` : ""}`, gone: "Offline" }[phase];
      setText(el, text);
      $("#tv-bank").classList.toggle("stale", phase !== "live"); // the BANK shown may be old
      show($("#tv-bank-stale"), phase !== "live");
      if (phase === "gone") {
        setText($("#tv-gone-text"), `There is no game ${code} on this server.`);
        showSection("gone");
      }
    },
  });
}

function render(next) {
  const prev = state;
  const events = diff(prev, next);
  tracker.update(prev, next);
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
    roomLog(code)
      .then(({ events: log }) => {
        tracker.seed(log, state);
        draw();
      })
      .catch(() => {});
  }
}

function draw() {
  const view = { lobby: "lobby", playing: "play", finished: "final" }[state.status];
  showSection(view);
  show($("#tv-join"), view === "lobby");
  awake.want(state.status !== "finished");
  if (view === "lobby") drawLobby();
  if (view === "play") drawPlay();
  if (view === "final") drawFinal();
}

function drawLobby() {
  setText($("#tv-lobby-count"), `Players (${state.players.length})`);
  $("#tv-lobby-players").replaceChildren(...state.players.map((p) => h("li", {}, p.name)));
  setText($("#tv-lobby-settings"), `${state.rounds} rounds. Waiting for the banker to start…`);
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

boot();
