// The join form of /r/CODE: one field, one button. This is where the QR code lands.

import { joinRoom, tvPath } from "./api.js";
import { $, nameLimit, setText, show } from "./dom.js";
import { lastName, rememberName, saveSeat } from "./store.js";

export const JOIN_ERRORS = {
  name_taken: "That name is taken in this game: add an initial (\"Ann B\").",
  bad_name: "Names are 1 to 24 letters, digits or symbols.",
  not_in_lobby: "This game has already started, so new players cannot join. You can still watch it.",
  unknown_room: "There is no game with that code. Check the letters with the banker.",
  unknown_tournament: "There is no game with that code. Check the letters with the organiser.",
  room_full: "This game is full.",
};

/** onSeat(seat) is called once the server gave us a seat. */
export function joinView(ctx, onSeat) {
  const form = $("#join-form");
  const input = $("#join-name");
  nameLimit(input);
  const error = $("#join-error");
  const submit = $("#join-submit");
  setText($("#join-code"), ctx.code);
  $("#join-watch").href = tvPath(ctx.code, ctx.collection);
  const closedTitle = $("#join-closed-title");
  const closedHow = closedTitle.nextElementSibling;
  const lateSeat = [...closedHow.childNodes]; // "Only the banker can let you in now…"

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) {
      setText(error, "Type your name first.");
      input.focus();
      return;
    }
    submit.disabled = true;
    setText(submit, "Joining…");
    try {
      const reply = await joinRoom(ctx.code, name, ctx.collection);
      const seat = { token: reply.token, role: "player", player_id: reply.player_id, name, collection: ctx.collection };
      saveSeat(ctx.code, seat);
      rememberName(name);
      setText(error, "");
      onSeat(seat);
    } catch (failure) {
      setText(error, JOIN_ERRORS[failure.code] || failure.message);
      input.focus();
    } finally {
      submit.disabled = false;
      setText(submit, "Join the game");
    }
  });

  return {
    open(message = "") {
      show(form, true);
      show($("#join-closed"), false);
      setText(error, message);
      if (!input.value) input.value = lastName();
      input.focus();
    },
    /** The game is under way (or seats nobody by themselves): no form to type into for
     * nothing; say at once who can seat a latecomer. A finished game says it is over. */
    closed(on, state) {
      show(form, !on);
      show($("#join-closed"), on);
      if (!on) return;
      input.blur();
      const over = state.status === "finished";
      setText(closedTitle, over ? "This game is over." : "This game has already started.");
      if (over) closedHow.replaceChildren("Its final scores are on the TV view.");
      else closedHow.replaceChildren(...lateSeat);
    },
  };
}
