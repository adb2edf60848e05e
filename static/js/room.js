// The phone page of one room (/r/CODE): join, lobby, play (player or banker), final.
// This module wires the socket to the views and turns state changes into feelings.

import { codeFromPath, roomLog } from "./api.js";
import { $, h, points, setText, show } from "./dom.js";
import { diff } from "./events.js";
import { Awake, feel } from "./feel.js";
import { finalView } from "./finalview.js";
import { joinView } from "./joinview.js";
import { lobbyView } from "./lobbyview.js";
import { playView } from "./playview.js";
import { RoomSocket } from "./socket.js";
import { forgetSeat, loadSeat } from "./store.js";
import { RoundTracker } from "./tracker.js";

const FEED_SIZE = 12;
const TOAST_MS = 4000;

const ctx = {
  code: codeFromPath(),
  seat: null,
  you: null,
  state: null,
  socket: null,
  tracker: new RoundTracker(),
  banner: null, // {text, kind, until: "next-roll" | round}
  command,
  toast,
};
const awake = new Awake();
const views = {};

function showView(name) {
  for (const key of ["join", "lobby", "play", "final", "gone"]) show($(`#view-${key}`), key === name);
  document.body.dataset.view = name;
}

function boot() {
  if (!ctx.code) {
    gone("That address has no valid room code in it.");
    return;
  }
  setText($("#room-code"), ctx.code);
  views.join = joinView(ctx, (seat) => {
    ctx.seat = seat;
    connect();
  });
  views.lobby = lobbyView(ctx);
  views.play = playView(ctx);
  views.final = finalView(ctx);
  ctx.seat = loadSeat(ctx.code);
  if (ctx.seat) connect();
  else {
    showView("join");
    views.join.open();
  }
}

function connect() {
  ctx.socket?.stop();
  ctx.socket = new RoomSocket(ctx.code, ctx.seat.token, {
    welcome(you, state) {
      ctx.you = you;
      document.body.dataset.role = you.role;
      render(state);
    },
    state: render,
    presence(connected) {
      if (!ctx.state) return;
      const players = ctx.state.players.map((p) => ({ ...p, connected: connected[p.id] ?? p.connected }));
      ctx.state = { ...ctx.state, players };
      draw(ctx.state);
    },
    status: connection,
  });
}

function render(next) {
  const prev = ctx.state;
  const events = diff(prev, next);
  ctx.tracker.update(prev, next);
  ctx.state = next;
  react(events, next);
  draw(next);
  if (ctx.tracker.incomplete(next)) fillFromLog(next);
}

function draw(state) {
  const view = { lobby: "lobby", playing: "play", finished: "final" }[state.status];
  showView(view);
  views[view].render(state);
  document.title =
    state.status === "playing" ? `BANK ${points(state.bank)} · ${ctx.code} · bankit` : `${ctx.code} · bankit`;
  awake.want(state.status !== "finished");
}

async function fillFromLog(state) {
  try {
    const { events } = await roomLog(ctx.code);
    if (ctx.state !== state && ctx.state.seq !== state.seq) return; // a newer state will ask again
    ctx.tracker.seed(events, ctx.state);
    draw(ctx.state);
  } catch {
    // the board still works without the per-round details
  }
}

function react(events, state) {
  const me = ctx.you?.player_id;
  const feed = $("#feed");
  for (const event of events) {
    feed.prepend(h("li", { class: `ev ${event.kind}` }, event.text));
    if (event.kind === "bank") feel(event.player_id === me ? "mine" : "bank");
    if (event.kind === "round") {
      const seven = event.entry.ended_by === "seven";
      feel(seven ? "seven" : "round");
      if (me && seven && event.waited.includes(me)) {
        ctx.banner = { kind: "lost", text: `Too late — the 7 came first. Round ${event.entry.round} paid you nothing.`, round: state.round };
      } else if (me && seven) {
        const mine = event.entry.banked.find((b) => b.player_id === me);
        ctx.banner = { kind: "saved", text: `Phew! You banked ${points(mine.amount)} before the 7.`, round: state.round };
      } else if (seven) {
        ctx.banner = { kind: "lost", text: `7! Round ${event.entry.round} is over.`, round: state.round };
      } else {
        ctx.banner = { kind: "saved", text: `Everyone banked: round ${event.entry.round} is over.`, round: state.round };
      }
    }
    if (event.kind === "undo") ctx.banner = null;
    if (event.kind === "finished") feel("win");
  }
  while (feed.children.length > FEED_SIZE) feed.lastElementChild.remove();
  // A round's banner stays until the next round's first roll.
  if (ctx.banner && (state.round !== ctx.banner.round || state.roll_count > 0) && state.status === "playing") {
    ctx.banner = null;
  }
}

const PHASE_TEXT = {
  connecting: "Connecting…",
  live: "● Live",
  reconnecting: "Reconnecting…",
  gone: "Offline",
};

function connection({ phase, attempt, reason }) {
  const el = $("#conn");
  el.dataset.phase = phase;
  const text = phase === "reconnecting" && attempt > 1 ? `Reconnecting… (try\u00a0${attempt})` : PHASE_TEXT[phase];
  setText(el, text);
  document.body.dataset.conn = phase;
  markStale(phase !== "live");
  if (phase === "gone") {
    forgetSeat(ctx.code);
    awake.want(false);
    if (reason === "bad_token") {
      ctx.state = null;
      ctx.seat = null;
      showView("join");
      views.join.open("You are no longer in this game (the banker removed you). You can join again while it is in the lobby.");
    } else {
      gone(`There is no game ${ctx.code} on this server. It may have ended a while ago, or the code is mistyped.`);
    }
  }
}

/** Until the socket is live again, the BANK shown may be old: grey it and say so in words. */
function markStale(stale) {
  $("#bank-total").classList.toggle("stale", stale);
  show($("#bank-stale"), stale);
  if (ctx.state?.status === "playing" && ctx.you) views.play.render(ctx.state); // "Banking… (reconnecting)"
}

function gone(text) {
  setText($("#gone-text"), text);
  showView("gone");
}

/** Send a command; a refusal becomes a toast in plain words. Resolves the reply. */
async function command(message, explain = null) {
  const reply = await ctx.socket.send(message);
  if (!reply.ok) {
    const text = explain?.(reply) ?? reply.message;
    if (text) toast(text);
  }
  return reply;
}

let toastTimer = null;
function toast(text) {
  const el = $("#toast");
  setText(el, text);
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, TOAST_MS);
}

boot();
