// The TV page (/watch/CODE, /watch/t/CODE), for every game: a spectator's socket, read
// only, for a shared screen. The top bar, the lobby (a huge QR code, the players) and
// "gone" are the shell's; the rest is the game's TV module (docs/ui.md).

import { joinLink, qrUrl, roomState, tvPath, whereFromPath } from "./api.js";
import { BACK_AFTER_MS, showConnection } from "./chrome.js";
import { $, h, setText, show } from "./dom.js";
import { Awake } from "./feel.js";
import { loadGame, surface } from "./games.js";
import { RoomSocket } from "./socket.js";
import { trust } from "./trust.js";

const ctx = { ...whereFromPath(), state: null, stale: true, game: null, lobby: null };
const awake = new Awake();
const STAY = new URLSearchParams(location.search).has("stay"); // a finished game, kept on screen
let socket = null;
let game = null; // the mounted game view: {render, stale?, destroy?}
let queue = Promise.resolve();
let leaving = null; // the timer that takes the TV back to a tournament

function showSection(name) {
  for (const key of ["lobby", "game", "gone"]) show($(`#tv-${key}`), key === name);
  if (name !== "game") document.body.dataset.view = name; // the game names its own views
}

function serial(work) {
  queue = queue.then(work).catch(surface);
}

function boot() {
  if (!ctx.code) {
    setText($("#tv-gone-text"), "That address has no valid room code in it.");
    showSection("gone");
    return;
  }
  const { code, collection } = ctx;
  setText($("#tv-kind"), collection === "tournaments" ? "Tournament" : "Room");
  setText($("#tv-code"), code);
  setText($("#tv-code-big"), code);
  const link = joinLink(code, collection);
  setText($("#tv-link"), link.replace(/^https?:\/\//, ""));
  $("#tv-qr").src = qrUrl(code, collection);
  $("#tv-qr").alt = `QR code: join ${link}`;
  setText($("#tv-join"), `Join: ${link.replace(/^https?:\/\//, "")}`);
  socket = new RoomSocket(code, "", {
    welcome: (_, next) =>
      serial(async () => {
        await mount(next.game);
        render(next, false, { welcome: true });
      }),
    state: (next) => serial(() => render(next)),
    presence: (connected) =>
      serial(() => {
        if (!ctx.state) return;
        const players = ctx.state.players.map((p) => ({ ...p, connected: connected[p.id] ?? p.connected }));
        render({ ...ctx.state, players }, true);
      }),
    status(status) {
      showConnection($("#conn"), status);
      ctx.stale = status.phase !== "live";
      game?.stale?.(ctx.stale);
      if (status.phase === "gone") serial(() => gone(code, collection));
    },
  }, collection);
}

/** No room has this code: a tournament's typed as /watch/CODE goes to its TV page; else "gone". */
async function gone(code, collection) {
  if (collection === "rooms") {
    try {
      await roomState(code, "tournaments");
      location.replace(tvPath(code, "tournaments"));
      return;
    } catch {
      // no tournament either (or the server is unreachable): say the game is gone
    }
  }
  setText($("#tv-gone-text"), `Game ${code} is not on this server any more. It may have ended a while ago.`);
  document.title = `Game ${code} not found · TV · bankit`;
  showSection("gone");
}

async function mount(name) {
  if (ctx.game === name) return;
  const module = await loadGame(name, "tv");
  game?.destroy?.();
  ctx.game = name;
  ctx.lobby = module.lobby || null;
  game = module.mount(ctx, $("#tv-game"));
  game.stale?.(ctx.stale);
}

function render(next, presenceOnly = false, moment = {}) {
  if (next.next_game && !STAY) {
    socket?.stop(); // the banker played again: the TV goes to the new game by itself
    location.assign(tvPath(next.next_game, ctx.collection));
    return;
  }
  if (next.tournament && next.status === "finished" && !STAY && !leaving) {
    // A tournament's table is over: the TV goes back to the tournament's page.
    leaving = setTimeout(() => {
      socket?.stop();
      location.assign(tvPath(next.tournament.code, "tournaments"));
    }, BACK_AFTER_MS);
  }
  const previous = presenceOnly ? next : ctx.state;
  ctx.state = next;
  const lobby = next.status === "lobby";
  show($("#tv-join"), lobby);
  awake.want(next.status !== "finished");
  if (lobby) {
    showSection("lobby");
    document.title = `Lobby · TV · ${ctx.code} · bankit`;
    drawLobby();
    drawHowto(next);
  } else {
    showSection("game");
    game.render(next, previous, moment);
  }
  trust($("main"), next, ctx, true); // house rules; "Verify these dice" once the game is over
}

function drawLobby() {
  const { state } = ctx;
  setText($("#tv-lobby-count"), `Players (${state.players.length})`);
  $("#tv-lobby-players").replaceChildren(...state.players.map((p) => h("li", {}, p.name)));
  setText($("#tv-lobby-settings"), ctx.lobby?.settings?.(state) ?? "Waiting for the game to start…");
}

/** The game's "How … works", as this room plays it (its house rules). */
function drawHowto(state) {
  const info = ctx.lobby?.howto;
  show($("#tv-howto"), Boolean(info));
  if (!info) return;
  setText($("#tv-howto-title"), info.title);
  $("#tv-howto-list").innerHTML = info.items(state).map((item) => `<li>${item}</li>`).join(""); // the game's own text
}

boot();
