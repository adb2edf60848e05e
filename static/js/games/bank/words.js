// Corrections in words: what an undo would take back (the banker reads it before tapping),
// and what an undo or an unbank did take back (the feed and the TV say it).

import { names, points } from "../../shell/dom.js";
import { nameOf, totalOf } from "./rules.js";

const possessive = (name) => `${name}'s`;

function item(state, event) {
  const who = (id) => possessive(nameOf(state, id));
  switch (event.type) {
    case "roll": {
      const doubles = event.dice && event.dice[0] === event.dice[1];
      return `${who(event.by)} ${doubles ? `double ${event.dice[0]}s` : totalOf(event)}`;
    }
    case "bank":
      return `${who(event.player_id)} BANK of ${points(event.amount)}`;
    case "unbank":
      return `the take-back of ${who(event.player_id)} BANK of ${points(event.amount)}`;
    default:
      return event.type;
  }
}

/** "Cy's 9 and Ann's BANK of 108" */
export function listTaken(state, events) {
  return names(events.map((event) => item(state, event)));
}

/** The banker's undo button: "takes back Cy's 9 and Ann's BANK of 108". */
export function undoPreviewText(state) {
  const preview = state.undo_preview;
  return preview ? `takes back ${listTaken(state, preview.takes_back)}` : "nothing to take back";
}
