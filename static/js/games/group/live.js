// A group's page kept live: the group's socket (/ws/groups/CODE) says when it changed;
// names come from `GET /api/groups/CODE` (they are on the members' cards, not in the
// state), fetched again only when someone new appears.

import { RoomSocket } from "../../shell/socket.js";
import { showConnection } from "../../shell/chrome.js";
import { groupState } from "./group.js";

export function followGroup(code, token, render, onGone) {
  let names = {};
  const update = async (state) => {
    if (state.members.some((m) => !(m.id in names))) {
      try {
        names = (await groupState(code)).names;
      } catch {
        // keep the names we have; the next state asks again
      }
    }
    render(state, names);
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
