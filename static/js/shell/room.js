// The phone page of one room (/r/CODE, /t/CODE), for every game: join, lobby and
// "gone" are the shell's; the rest (play, final) is the game's phone module, loaded
// by the state's `game` (docs/ui.md, "How a game's pages plug in").

import { phonePath, roomState, whereFromPath } from "./api.js";
import { BACK_AFTER_MS, showConnection, stickyTop, tournamentLink } from "./chrome.js";
import { $, setText, show } from "./dom.js";
import { Awake } from "./feel.js";
import { loadGame, surface } from "./games.js";
import { handoverView } from "./handover.js";
import { joinView } from "./joinview.js";
import { lobbyView } from "./lobbyview.js";
import { RoomSocket } from "./socket.js";
import { forgetSeat, loadSeat, saveSeat, seatFromAddress } from "./store.js";
import { trust } from "./trust.js";

const TOAST_MS = 4000;
const STAY = new URLSearchParams(location.search).has("stay"); // a finished game, kept on screen

const ctx = {
  ...whereFromPath(), // code, collection
  seat: null,
  you: null,
  state: null,
  socket: null,
  stale: true, // the socket is not live: what is shown may be old
  game: null, // the name of the game whose module is mounted
  lobby: null, // that module's `lobby` export
  command,
  toast,
};
const awake = new Awake();
const views = {};
let game = null; // the mounted game view: {render, stale?, destroy?}
let queue = Promise.resolve(); // socket events, one at a time, in order, across module loads

const TITLES = { join: (code) => `Join game ${code}`, lobby: (code) => `Lobby · ${code}`, gone: (code) => `${$("#gone-title").textContent} · ${code}` }; // "Handed over", "Your seat moved"…

function showView(name) {
  for (const key of ["join", "lobby", "game", "gone"]) show($(`#view-${key}`), key === name);
  if (name !== "game") document.body.dataset.view = name; // the game names its own views
  if (name !== "game") document.title = `${TITLES[name](ctx.code || "")} · bankit`; // the game titles its own
}

function boot() {
  stickyTop($(".topbar"));
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
  views.handover = handoverView(ctx);
  const saved = loadSeat(ctx.code);
  const linked = seatFromAddress(ctx.code, ctx.collection);
  ctx.seat = chooseSeat(saved, linked);
  ctx.fallback = ctx.seat === linked ? saved : null; // kept if the link's token is refused
  if (ctx.seat) connect();
  else openJoin();
}

/** A seat link on a phone that holds another seat in this room asks before switching. */
function chooseSeat(saved, linked) {
  if (!linked || (saved && saved.token === linked.token)) return saved || linked;
  if (!saved) return linked;
  const who = saved.name ? `${saved.name}'s seat` : `your seat (${saved.role})`;
  return window.confirm(`Switch to this seat? This phone holds ${who} in game ${ctx.code}.`) ? linked : saved;
}

/** No seat yet: the join form, unless the game is gone, or only the banker can seat people now. */
async function openJoin(message = "") {
  showView("join");
  views.join.open(message);
  try {
    const { state } = await roomState(ctx.code, ctx.collection);
    if (!ctx.seat) views.join.closed(state.open_to_join === false, state);
  } catch (failure) {
    if (String(failure.code).startsWith("unknown_") && !ctx.seat) gone(goneText());
  }
}

const goneText = () => `Game ${ctx.code} is not on this server any more. It may have ended a while ago.`;

/** Run socket events in order, even while a game's module is loading. */
function serial(work) {
  queue = queue.then(work).catch(surface);
}

function connect() {
  ctx.socket?.stop();
  ctx.socket = new RoomSocket(ctx.code, ctx.seat.token, {
    welcome: (you, state) =>
      serial(async () => {
        ctx.you = you;
        document.body.dataset.role = you.role;
        rememberRole(you);
        await mount(state.game);
        render(state, false, { welcome: true });
      }),
    state: (next) => serial(() => render(next)),
    presence: (connected, message) =>
      serial(() => {
        if (!ctx.state) return;
        const players = ctx.state.players.map((p) => ({ ...p, connected: connected[p.id] ?? p.connected }));
        const next = { ...ctx.state, players };
        if (next.handover && "host_connected" in message) {
          next.handover = { ...next.handover, ...message.handover, host_connected: message.host_connected };
        }
        render(next, true);
      }),
    status: connection,
  }, ctx.collection);
}

async function mount(name) {
  if (ctx.game === name) return;
  const module = await loadGame(name, "phone");
  game?.destroy?.();
  ctx.game = name;
  ctx.lobby = module.lobby || null;
  game = module.mount(ctx, $("#view-game"));
  game.stale?.(ctx.stale);
}

/** A seat handed over by a link knows its role and player only from the welcome. */
function rememberRole(you) {
  const seat = ctx.seat;
  if (!seat) return;
  if (!seat.linked && (you.role === "spectator" || (seat.role === you.role && seat.player_id === you.player_id))) return;
  const { linked, ...kept } = seat; // a link's seat is saved only now: the server took it
  ctx.seat = { ...kept, role: you.role, player_id: you.player_id };
  ctx.fallback = null;
  saveSeat(ctx.code, ctx.seat);
}

/** The banker played again: this seat (same token) is in the new room; go there. */
function follow(next) {
  saveSeat(next, { ...ctx.seat, collection: ctx.collection });
  ctx.socket?.stop();
  location.assign(phonePath(next, ctx.collection));
}

/** A tournament's table is over: this phone goes back to the tournament by itself (where
 * ties are rerolled and places and points shown), if it has a seat there. */
let leaving = null;
function backToTournament(tournament) {
  if (leaving || STAY || !loadSeat(tournament.code)) return;
  leaving = setTimeout(() => {
    ctx.socket?.stop();
    location.assign(phonePath(tournament.code, "tournaments"));
  }, BACK_AFTER_MS);
}

/** A new state (or, with `presenceOnly`, the same one with other presence).
 * `moment.welcome`: the first state of a socket (a reload, or a reconnect). */
function render(next, presenceOnly = false, moment = {}) {
  if (next.next_game && !STAY && ctx.seat) {
    follow(next.next_game);
    return;
  }
  const previous = presenceOnly ? next : ctx.state;
  ctx.state = next;
  tournamentLink($(".topbar"), next.tournament); // a tournament's table room leads back to it
  if (next.tournament && next.status === "finished") backToTournament(next.tournament);
  if (next.status === "lobby") {
    showView("lobby");
    views.lobby.render(next);
  } else {
    showView("game");
    game.render(next, previous, moment);
  }
  views.handover.render(next);
  awake.want(next.status !== "finished");
  trust($("main"), next, ctx); // house rules; "Verify these dice" once the game is over
}

function connection({ phase, attempt, reason }) {
  showConnection($("#conn"), { phase, attempt });
  document.body.dataset.conn = phase;
  ctx.stale = phase !== "live";
  game?.stale?.(ctx.stale);
  if (phase === "gone" && reason === "bad_token" && ctx.seat?.linked) {
    refusedLink();
    return;
  }
  if (phase === "gone") {
    forgetSeat(ctx.code);
    awake.want(false);
    const moved = reason === "bad_token" && views.handover.farewell(); // a hand-over's words
    if (moved) {
      gone(moved);
    } else if (reason === "bad_token") {
      ctx.state = null;
      ctx.seat = null;
      openJoin("You are no longer in this game (the banker removed you, or moved your seat to another phone). You can join again while it is in the lobby.");
    } else {
      gone(goneText());
    }
  }
}

/** The server refused a seat link's token: the seat this phone held (if any) stays. */
function refusedLink() {
  ctx.seat = ctx.fallback;
  ctx.fallback = null;
  if (ctx.seat) {
    connect();
    toast("That seat link is not valid: you keep your seat.");
  } else {
    openJoin("That seat link is not valid. Ask the banker for a new one, or join here.");
  }
}

function gone(text) {
  setText($("#gone-text"), text);
  showView("gone");
}

/** Send a command; a refusal becomes a toast in plain words. Resolves the reply.
 * explain(reply) may word a refusal itself (returning null or "": say nothing);
 * options go to the socket's send ({prompt: true}: a tap that means "now"). */
async function command(message, explain = null, options = {}) {
  const reply = await ctx.socket.send(message, options);
  if (!reply.ok) {
    const text = explain ? explain(reply) : reply.message; // null or "": say nothing
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

// A seat link opened over this very page (only the fragment differs): start again with it.
window.addEventListener("hashchange", () => {
  if (/token=/.test(location.hash)) location.reload();
});

boot();
