// The phone page of a group: /g (start one) and /g/CODE (join once; then its games,
// one tap to play as yourself, and its seasons). The host starts games and closes
// seasons; a member may leave, which deletes their name and history from the group.

import { h, setText, show } from "../../shell/dom.js";
import { saveSeat } from "../../shell/store.js";
import { collectionOf, gamePath, renderSeasons } from "./season.js";
import {
  closeSeason,
  createGroup,
  forgetMembership,
  joinGroup,
  leaveGroup,
  loadMembership,
  saveMembership,
  seatMe,
  startGame,
} from "./group.js";
import { followGroup } from "./live.js";

const $ = (id) => document.getElementById(id);
const KIND = { bank: "BANK!", bunco: "Bunco", tournament: "Tournament" };
const HOST_ROLE = { bank: "banker", bunco: "banker", tournament: "organiser" };
const OPEN = new Set(["lobby", "between"]); // a member can still take a seat
// Short games by default: a group's night is many games (the game's page offers more).
const OPTIONS = { bank: { rounds: 10 }, bunco: {}, tournament: { games: 2, rounds: 10 } };

const code = (/^\/g\/([A-Z0-9]{4})$/i.exec(location.pathname) || [])[1]?.toUpperCase() || "";
let kept = code ? loadMembership(code) || {} : {};
let names = {};

function fail(el, error) {
  setText($(el), error.message || String(error));
}

async function startNew(event) {
  event.preventDefault();
  try {
    const made = await createGroup($("g-new-name").value);
    saveMembership(made.code, { host_token: made.host_token });
    location.assign(`/g/${made.code}`);
  } catch (error) {
    fail("g-new-error", error);
  }
}

async function join(event) {
  event.preventDefault();
  const name = $("g-join-input").value.trim();
  try {
    const joined = await joinGroup(code, name);
    kept = { ...kept, token: joined.token, member_id: joined.member_id, name };
    saveMembership(code, kept);
    location.reload(); // the socket opens again as the member
  } catch (error) {
    fail("g-join-error", error);
  }
}

async function play(line) {
  const collection = collectionOf(line.game);
  try {
    if (kept.token) {
      const seat = await seatMe(code, kept.token, line.code).catch((error) => {
        if (error.status === 409) return { player_id: kept.member_id }; // seated already
        throw error;
      });
      saveSeat(line.code, { token: kept.token, role: "player", player_id: seat.player_id, name: kept.name, collection });
    }
    location.assign(gamePath(line));
  } catch (error) {
    fail("g-error", error);
  }
}

function host(line) {
  const collection = collectionOf(line.game);
  saveSeat(line.code, { token: kept.host_token, role: HOST_ROLE[line.game], player_id: null, name: "", collection });
  location.assign(gamePath(line));
}

function gameItem(line) {
  const label = `${KIND[line.game]} ${line.code || "(being made)"} · ${line.status}`;
  const actions = [];
  if (line.code && kept.token && OPEN.has(line.status)) {
    actions.push(h("button", { class: "primary", type: "button", onclick: () => play(line) }, `Play as ${kept.name || "me"}`));
  } else if (line.code && kept.token) {
    actions.push(h("button", { class: "secondary", type: "button", onclick: () => play(line) }, "Open"));
  }
  if (line.code && kept.host_token) {
    actions.push(h("button", { class: "secondary", type: "button", onclick: () => host(line) }, "Run it"));
  }
  return h("li", { class: "g-game" }, h("span", {}, label), actions);
}

function render(state, known) {
  names = known;
  setText($("g-title"), state.name);
  document.title = `bankit · ${state.name}`;
  const member = kept.member_id && names[kept.member_id];
  const who = [member ? `You are ${member}.` : "", kept.host_token ? "You host this group." : ""];
  setText($("g-who"), `${who.join(" ").trim()} Season ${state.season} · ${state.members.length} members`);
  show($("g-join"), !kept.token);
  setText($("g-join-name"), state.name);
  show($("g-host"), Boolean(kept.host_token));
  show($("g-leave-box"), Boolean(kept.token));
  const live = state.games.filter((g) => g.status !== "finished").reverse();
  show($("g-games-empty"), live.length === 0);
  $("g-games").replaceChildren(...live.map(gameItem));
  renderSeasons($("g-seasons"), state, names, kept.member_id || null);
  show($("g-main"), true);
}

function wire() {
  $("g-join-form").addEventListener("submit", join);
  $("g-start-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const game = $("g-start-game").value;
    try {
      await startGame(code, kept.host_token, game, OPTIONS[game]);
      setText($("g-host-error"), "");
    } catch (error) {
      fail("g-host-error", error);
    }
  });
  $("g-close-season").addEventListener("click", async () => {
    if (!confirm("Close this season? It is kept; a new one starts.")) return;
    await closeSeason(code, kept.host_token).catch((error) => fail("g-host-error", error));
  });
  $("g-leave").addEventListener("click", async () => {
    if (!confirm("Leave the group? Your name and your results are deleted from it.")) return;
    try {
      await leaveGroup(code, kept.token);
      kept = { host_token: kept.host_token };
      if (kept.host_token) saveMembership(code, kept);
      else forgetMembership(code);
      location.reload();
    } catch (error) {
      fail("g-error", error);
    }
  });
  $("g-csv").href = `/api/groups/${code}/standings.csv`;
  $("g-tv").href = `/watch/g/${code}`;
}

if (!code) {
  show($("g-new"), true);
  $("g-new-form").addEventListener("submit", startNew);
  setText($("conn"), "");
} else {
  setText($("g-code"), code);
  wire();
  followGroup(code, kept.token || kept.host_token, render, (reason) => {
    if (reason === "bad_token" && kept.token) {
      kept = { host_token: kept.host_token }; // this phone's membership ended (it left)
      saveMembership(code, kept);
      location.reload();
    } else {
      show($("g-main"), false);
      show($("g-join"), false);
      show($("g-gone"), true);
    }
  });
}
