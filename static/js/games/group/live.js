// A group's page kept live: the group's socket (/ws/groups/CODE) says when it changed;
// names come from `GET /api/groups/CODE` (they are on the members' cards, not in the
// state), fetched again only when someone new appears. A result recorded while the page
// is open is announced to screen readers (the tables are redrawn quietly).

import { RoomSocket } from "../../shell/socket.js";
import { showConnection } from "../../shell/chrome.js";
import { groupState } from "./group.js";

const KIND = { bank: "BANK!", bunco: "Bunco", tournament: "Tournament" };

/** `recorded`: the codes with a result seen so far (null before the first state). */
function announceNew(state, names, recorded) {
  const fresh = recorded ? state.games.filter((g) => g.result && !recorded.has(g.code)) : [];
  if (!fresh.length) return;
  const game = fresh[fresh.length - 1];
  const winners = game.result.filter((r) => r.won).map((r) => names[r.id] || r.guest || "a member");
  const text = `${KIND[game.game]} ${game.code} recorded: won by ${winners.join(", ") || "nobody"}.`;
  document.getElementById("g-announce").textContent = text;
}

export function followGroup(code, token, render, onGone) {
  let names = {};
  let recorded = null;
  const update = async (state) => {
    if (state.members.some((m) => !(m.id in names))) {
      try {
        names = (await groupState(code)).names;
      } catch {
        // keep the names we have; the next state asks again
      }
    }
    render(state, names);
    announceNew(state, names, recorded);
    recorded = new Set(state.games.filter((g) => g.result).map((g) => g.code));
  };
  const socket = new RoomSocket(
    code,
    token || "",
    {
      welcome: (_, state) => update(state),
      state: (state) => update(state),
      presence: () => {},
      status: (status) => {
        showConnection(document.getElementById("conn"), status);
        if (status.phase === "gone") onGone(status.reason);
      },
    },
    "groups",
  );
  socket.connect();
  return socket;
}
