// The home page: join by code (most people) or create a game (the banker).

import { createRoom, joinRoom, normaliseCode } from "./api.js";
import { $, h, setText } from "./dom.js";
import { JOIN_ERRORS } from "./joinview.js";
import { lastName, loadSeat, recentSeats, rememberName, saveSeat } from "./store.js";

const joinForm = $("#join-form");
const codeInput = $("#code");
const nameInput = $("#name");
const joinError = $("#join-error");

nameInput.value = lastName();

const recent = recentSeats().slice(0, 3);
$("#recent").hidden = recent.length === 0;
$("#recent-list").replaceChildren(
  ...recent.map((seat) =>
    h("li", {}, h("a", { class: "button secondary big", href: `/r/${seat.code}` },
      `${seat.code} · ${seat.role === "banker" ? "as the banker" : `as ${seat.name}`}`)),
  ),
);
codeInput.addEventListener("input", () => {
  codeInput.value = codeInput.value.toUpperCase().replace(/\s+/g, "");
  const code = normaliseCode(codeInput.value);
  $("#watch-link").href = code ? `/watch/${code}` : "#";
});
$("#watch-link").addEventListener("click", (event) => {
  if (!normaliseCode(codeInput.value)) {
    event.preventDefault();
    setText(joinError, "Type the room code first, then open the TV view.");
    codeInput.focus();
  }
});

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
  if (loadSeat(code)) {
    location.assign(`/r/${code}`); // this phone already has a seat there
    return;
  }
  await busy($("#join-submit"), "Joining…", async () => {
    try {
      const reply = await joinRoom(code, name);
      saveSeat(code, { token: reply.token, role: "player", player_id: reply.player_id, name });
      rememberName(name);
      location.assign(`/r/${code}`);
    } catch (failure) {
      setText(joinError, JOIN_ERRORS[failure.code] || failure.message);
    }
  });
});

$("#create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const custom = $("#custom-rounds").value.trim();
  const rounds = custom ? Number(custom) : Number(form.elements.rounds.value);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) {
    setText($("#create-error"), "Rounds: a whole number from 1 to 100.");
    return;
  }
  await busy($("#create-submit"), "Creating…", async () => {
    try {
      const reply = await createRoom(rounds, form.elements.entry.value);
      saveSeat(reply.code, { token: reply.banker_token, role: "banker", player_id: null, name: "Banker" });
      location.assign(`/r/${reply.code}`);
    } catch (failure) {
      setText($("#create-error"), failure.message);
    }
  });
});

async function busy(button, text, work) {
  const label = button.textContent;
  button.disabled = true;
  setText(button, text);
  try {
    await work();
  } finally {
    button.disabled = false;
    setText(button, label);
  }
}
