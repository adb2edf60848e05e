// The lobby, for every game: the code in large letters, the QR code, the players as
// they join (with presence). The host (banker, organiser) also adds phoneless players,
// removes players and starts the game. What is the game's own (its settings line, how
// it is played, what "start" sends) comes from the game's `lobby` export (docs/ui.md).

import { joinLink, joinRoom, phonePath, qrUrl, tvPath } from "./api.js";
import { $, h, nameLimit, setText, show } from "./dom.js";
import { isHost } from "./games.js";
import { JOIN_ERRORS } from "./joinview.js";

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** Under a QR code drawn for this page's address: what to do when no phone can reach it. */
export const loopbackWarning = () =>
  LOOPBACK.test(location.hostname)
    ? `Phones cannot reach “${location.hostname}”. Open this page at this computer's network address (e.g. http://192.168.1.20:8000) so that the QR code works.`
    : "";

const playersText = (n) => `${n} ${n === 1 ? "player" : "players"}`;

/** The start button when the game says nothing: {type: "start"}, once someone has joined. */
function defaultStart(state) {
  const n = state.players.length;
  return { command: { type: "start" }, label: n ? `Start the game (${playersText(n)})` : "Start the game", enabled: n > 0 };
}

/** "● here", "○ not connected yet", or "no phone" for someone the banker plays for. */
export function presence(player) {
  if (player.has_phone === false) return "no phone: the banker plays for them";
  return player.connected ? "● here" : "○ not connected yet";
}

export function lobbyView(ctx) {
  const list = $("#lobby-players");
  const start = $("#start-btn");
  const addForm = $("#add-form");
  const addName = $("#add-name");
  nameLimit(addName);
  const addError = $("#add-error");
  let wired = false;
  let howtoShown = null;

  function wire() {
    wired = true;
    const link = joinLink(ctx.code, ctx.collection);
    setText($("#lobby-code"), ctx.code);
    const qr = $("#lobby-qr");
    qr.src = qrUrl(ctx.code, ctx.collection);
    qr.alt = `QR code: join ${link}`;
    for (const id of ["#lobby-link", "#lobby-invite-link"]) {
      const anchor = $(id);
      anchor.href = link;
      setText(anchor, link.replace(/^https?:\/\//, ""));
    }
    const invite = $("#lobby-invite-qr");
    invite.src = qr.src;
    invite.alt = qr.alt;
    setText($("#lobby-invite-code"), ctx.code);
    $("#lobby-watch").href = tvPath(ctx.code, ctx.collection);
    if (LOOPBACK.test(location.hostname)) {
      setText($("#lobby-local .host"), location.hostname);
      show($("#lobby-local"), true);
    }
    start.addEventListener("click", async () => {
      start.disabled = true;
      await ctx.command(startOf(ctx.state).command);
      start.disabled = false;
    });
    addForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const name = addName.value.trim();
      if (!name) return;
      try {
        await joinRoom(ctx.code, name, ctx.collection, { phone: false });
        if (addName.value.trim() === name) addName.value = ""; // not the next name, typed meanwhile
        setText(addError, "");
      } catch (failure) {
        setText(addError, JOIN_ERRORS[failure.code] || failure.message);
      }
      addName.focus();
    });
  }

  const startOf = (state) => ({ ...defaultStart(state), ...(ctx.lobby?.start?.(state) || {}) });

  /** The game's "How … works", as this room plays it (its house rules). */
  function howto(state) {
    const info = ctx.lobby?.howto || null;
    const html = info ? info.items(state).map((item) => `<li>${item}</li>`).join("") : ""; // the game's own text
    if (html === howtoShown) return;
    howtoShown = html;
    show($("#lobby-howto"), Boolean(info));
    if (!info) return;
    setText($("#lobby-howto-title"), info.title);
    $("#lobby-howto-list").innerHTML = html;
  }

  function render(state) {
    if (!wired) wire();
    howto(state);
    const host = isHost(ctx.you);
    const me = ctx.you?.player_id;
    const mine = state.players.find((p) => p.id === me);
    setText($("#lobby-title"), host ? "Your game is ready" : mine ? `You're in, ${mine.name}!` : "Lobby");
    setText($("#lobby-count"), `Players (${state.players.length})`);
    setText($("#lobby-settings"), ctx.lobby?.settings?.(state) ?? "");
    setText($("#lobby-wait"), ctx.lobby?.waiting ?? "Waiting for the game to start…");
    show($("#lobby-banker"), host);
    show($("#lobby-start"), host);
    show($("#lobby-wait"), !host);
    show($("#lobby-join"), host); // players need neither the big QR code nor the banker's warning
    show($("#lobby-invite"), !host);
    const previous = state.previous_game;
    show($("#lobby-previous"), Boolean(previous));
    if (previous) {
      setText($("#lobby-previous-code"), previous);
      $("#lobby-previous-link").href = `${phonePath(previous, ctx.collection)}?stay`;
    }
    list.replaceChildren(
      ...state.players.map((p) =>
        h(
          "li",
          { class: p.id === me ? "me" : "" },
          h("span", { class: "name" }, p.id === me ? `${p.name} (you)` : p.name),
          h("span", { class: "tag" }, presence(p)),
          host
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
    const { label, enabled } = startOf(state);
    start.disabled = !enabled;
    setText(start, label);
  }

  return { render };
}
