// The lobby: the code in large letters, the QR code, the players as they join.
// The banker also adds phoneless players, removes players and starts the game.

import { joinLink, joinRoom, qrUrl } from "./api.js";
import { $, h, setText, show } from "./dom.js";
import { JOIN_ERRORS } from "./joinview.js";

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

const ENTRY_TEXT = {
  banker: "the banker enters the rolls",
  roller: "each roller enters their own roll",
  virtual: "the app rolls the dice",
};

export function lobbyView(ctx) {
  const list = $("#lobby-players");
  const start = $("#start-btn");
  const addForm = $("#add-form");
  const addName = $("#add-name");
  const addError = $("#add-error");
  let wired = false;

  function wire() {
    wired = true;
    const link = joinLink(ctx.code);
    setText($("#lobby-code"), ctx.code);
    const qr = $("#lobby-qr");
    qr.src = qrUrl(ctx.code);
    qr.alt = `QR code: join ${link}`;
    const anchor = $("#lobby-link");
    anchor.href = link;
    setText(anchor, link.replace(/^https?:\/\//, ""));
    $("#lobby-watch").href = `/watch/${ctx.code}`;
    if (LOOPBACK.test(location.hostname)) {
      setText($("#lobby-local .host"), location.hostname);
      show($("#lobby-local"), true);
    }
    start.addEventListener("click", async () => {
      start.disabled = true;
      await ctx.command({ type: "start" });
      start.disabled = false;
    });
    addForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const name = addName.value.trim();
      if (!name) return;
      try {
        await joinRoom(ctx.code, name);
        addName.value = "";
        setText(addError, "");
      } catch (failure) {
        setText(addError, JOIN_ERRORS[failure.code] || failure.message);
      }
      addName.focus();
    });
  }

  function render(state) {
    if (!wired) wire();
    const banker = ctx.you?.role === "banker";
    const me = ctx.you?.player_id;
    const mine = state.players.find((p) => p.id === me);
    setText($("#lobby-title"), banker ? "Your game is ready" : mine ? `You're in, ${mine.name}!` : "Lobby");
    setText($("#lobby-count"), `Players (${state.players.length})`);
    setText($("#lobby-settings"), `${state.rounds} rounds · ${ENTRY_TEXT[state.roll_entry]}`);
    show($("#lobby-banker"), banker);
    show($("#lobby-start"), banker);
    show($("#lobby-wait"), !banker);
    list.replaceChildren(
      ...state.players.map((p) =>
        h(
          "li",
          { class: p.id === me ? "me" : "" },
          h("span", { class: "name" }, p.id === me ? `${p.name} (you)` : p.name),
          h("span", { class: "tag" }, p.connected ? "● here" : "○ no phone yet"),
          banker
            ? h("button", {
                type: "button",
                class: "remove",
                "aria-label": `Remove ${p.name}`,
                onclick: () => ctx.command({ type: "kick", player_id: p.id }),
              }, "Remove")
            : null,
        ),
      ),
    );
    if (!state.players.length) list.append(h("li", { class: "empty" }, "Nobody yet: share the code or the QR code."));
    start.disabled = state.players.length === 0;
    setText(start, state.players.length ? `Start the game (${state.players.length} ${state.players.length === 1 ? "player" : "players"})` : "Start the game");
  }

  return { render };
}
