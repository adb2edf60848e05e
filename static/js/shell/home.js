// The home page, for every game: join by code (most people; one box for every game),
// or pick a game and create one (its create form is the game's create.js, docs/ui.md).

import { joinRoom, listGames, normaliseCode, phonePath, roomState, tvPath } from "./api.js";
import { $, busy, h, nameLimit, setText } from "./dom.js";
import { JOIN_ERRORS } from "./joinview.js";
import { forgetSeat, lastName, loadSeat, recentSeats, rememberName, saveSeat } from "./store.js";

const FIRST = "bank"; // offered first and chosen by default: the game most tables play
const FALLBACK = [{ name: "bank", title: "BANK!", collection: "rooms" }];
const HOST = { banker: "as the banker", organiser: "as the organiser" };

const joinForm = $("#join-form");
const codeInput = $("#code");
const nameInput = $("#name");
nameLimit(nameInput);
const joinError = $("#join-error");
let collections = ["rooms"]; // where a typed code may be, in the order tried

nameInput.value = lastName();

const recent = recentSeats().slice(0, 3);
$("#recent").hidden = recent.length === 0;
$("#recent-list").replaceChildren(
  ...recent.map((seat) =>
    h("li", { dataset: { code: seat.code } },
      h("a", { class: "button secondary big", href: phonePath(seat.code, seat.collection) },
        `${seat.code} · ${HOST[seat.role] || (seat.name ? `as ${seat.name}` : "your seat")}`)),
  ),
);
checkRecent(recent);

/** Each link is asked of the server: a game it no longer has is dropped (and its seat
 * forgotten); a server that cannot be reached keeps them all (it may be the Wi-Fi). */
async function checkRecent(seats) {
  await Promise.all(seats.map(async (seat) => {
    try {
      await roomState(seat.code, seat.collection || "rooms");
    } catch (failure) {
      if (!String(failure.code).startsWith("unknown_")) return;
      forgetSeat(seat.code);
      $(`#recent-list li[data-code="${seat.code}"]`)?.remove();
    }
  }));
  $("#recent").hidden = $("#recent-list").children.length === 0;
}
codeInput.addEventListener("input", () => {
  codeInput.value = codeInput.value.toUpperCase().replace(/\s+/g, "");
  const code = normaliseCode(codeInput.value);
  $("#watch-link").href = code ? `/watch/${code}` : "#";
});
$("#watch-link").addEventListener("click", async (event) => {
  event.preventDefault();
  const code = normaliseCode(codeInput.value);
  if (!code) {
    setText(joinError, "Type the room code first, then open the TV view.");
    codeInput.focus();
    return;
  }
  try {
    location.assign(tvPath(code, await whereIs(code))); // a room's TV page, or a tournament's
  } catch (failure) {
    setText(joinError, JOIN_ERRORS[failure.code] || failure.message);
  }
});

/** The collection that has this code (a room or a tournament): ask each in turn. */
async function whereIs(code) {
  let failure = null;
  for (const collection of collections) {
    try {
      await roomState(code, collection);
      return collection;
    } catch (error) {
      if (!String(error.code).startsWith("unknown_")) throw error;
      failure ??= error;
    }
  }
  throw failure;
}

/** A code names one room of one collection: ask each until one knows it. */
async function joinAnywhere(code, name) {
  let failure = null;
  for (const collection of collections) {
    try {
      return { collection, reply: await joinRoom(code, name, collection) };
    } catch (error) {
      if (!String(error.code).startsWith("unknown_")) throw error;
      failure ??= error; // the first collection's words ("no game with that code")
    }
  }
  throw failure;
}

joinForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const code = normaliseCode(codeInput.value);
  const name = nameInput.value.trim();
  if (!code) {
    setText(joinError, "A room code is 4 characters: letters and digits 2–9 (no O, 0, I, 1 or L).");
    codeInput.focus();
    return;
  }
  if (!name) {
    setText(joinError, "Type your name.");
    nameInput.focus();
    return;
  }
  const seat = loadSeat(code);
  if (seat) {
    location.assign(phonePath(code, seat.collection)); // this phone already has a seat there
    return;
  }
  await busy($("#join-submit"), "Joining…", async () => {
    try {
      const { collection, reply } = await joinAnywhere(code, name);
      saveSeat(code, { token: reply.token, role: "player", player_id: reply.player_id, name, collection });
      rememberName(name);
      location.assign(phonePath(code, collection));
    } catch (failure) {
      setText(joinError, JOIN_ERRORS[failure.code] || failure.message);
    }
  });
});

/** The games this server hosts, BANK first; BANK alone when the list cannot be had. */
async function offered() {
  try {
    const games = await listGames();
    return games.length ? games : FALLBACK;
  } catch {
    return FALLBACK;
  }
}

async function offerGames() {
  const games = (await offered()).sort((a, b) => (b.name === FIRST) - (a.name === FIRST));
  collections = [...new Set(["rooms", ...games.map((g) => g.collection)])];
  const list = $("#game-list");
  list.style.setProperty("--games", String(games.length));
  list.replaceChildren(
    ...games.flatMap((game, index) => [
      h("input", {
        type: "radio",
        name: "game",
        id: `game-${game.name}`,
        value: game.name,
        checked: index === 0,
        onchange: () => choose(game),
      }),
      h("label", { for: `game-${game.name}` }, game.title),
    ]),
  );
  $("#game-pick").hidden = games.length < 2;
  await choose(games[0]);
}

let chosen = null;
/** Show the chosen game's own create form (one at a time: their labels may repeat). */
async function choose(game) {
  chosen = game.name;
  const root = $("#create-root");
  try {
    const module = await import(`/static/js/games/${game.name}/create.js`);
    if (chosen !== game.name) return; // another game was picked meanwhile
    root.replaceChildren();
    setText($("#games-error"), "");
    module.form(root, (created) => {
      saveSeat(created.code, {
        token: created.token,
        role: created.role,
        player_id: null,
        name: created.name,
        collection: game.collection,
      });
      location.assign(phonePath(created.code, game.collection));
    });
  } catch {
    root.replaceChildren();
    setText($("#games-error"), `${game.title} cannot be created from this page yet.`);
  }
}

offerGames();
