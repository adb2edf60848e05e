// A dead phone never strands a game (docs/protocol.md, "Extension: hand-over"), for
// every game's phone page:
// - the host (banker, organiser) hands its role to another phone by a QR code or a link,
//   or offers it to a seated player; and moves a player's seat to another phone;
// - a player sees, in the moment, "The banker has been away for 2 minutes: take over?",
//   votes, and takes the role once offered it or chosen by a majority of the table.
// The page notices how long the host has been away from the state's `handover`.

import { ApiError, seatLink, seatQr } from "./api.js";
import { $, busy, h, setText, show } from "./dom.js";
import { isHost } from "./games.js";
import { saveSeat } from "./store.js";

export const AWAY_MS = 2 * 60_000;
const TICK_MS = 5_000;

async function post(ctx, path, token, body = null) {
  let response;
  try {
    response = await fetch(`/api/${ctx.collection}/${ctx.code}/${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(body || {}),
    });
  } catch {
    throw new ApiError(0, "offline", "No connection to the game server. Try again.");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error || {};
    throw new ApiError(response.status, error.code || "http_error", error.message || response.statusText);
  }
  return data;
}

const hostWord = (ctx) => (ctx.collection === "tournaments" ? "organiser" : "banker");
const minutes = (ms) => {
  const n = Math.max(1, Math.floor(ms / 60_000));
  return `${n} ${n === 1 ? "minute" : "minutes"}`;
};

export function handoverView(ctx) {
  const word = hostWord(ctx);
  let awaySince = null; // when this page noticed the host gone
  let handedOver = false; // this phone gave its role (or seat) away: its socket closes
  let qrUrl = null;

  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "/static/css/handover.css";
  document.head.append(link);

  // -- a player's banner: the host is away, or offered the role ---------------------------
  const banner = h("section", { id: "takeover", class: "takeover card", hidden: true, "aria-labelledby": "takeover-title" });
  const title = h("h2", { id: "takeover-title", class: "takeover-title" });
  const detail = h("p", { id: "takeover-detail", class: "small" });
  const choices = h("div", { id: "takeover-choices", class: "takeover-choices" });
  const status = h("p", { id: "takeover-status", class: "small", role: "status" });
  banner.append(title, detail, choices, status);
  $("#main").prepend(banner);

  // -- the host's control and dialog --------------------------------------------------------
  const open = h("button", { id: "handover-open", class: "secondary handover-open", type: "button", hidden: true },
    `Hand over: ${word} role or a player's phone`);
  $("#main").append(open);
  const dialog = h("dialog", { id: "handover-dialog", class: "handover-dialog", "aria-labelledby": "handover-title" });
  const dialogTitle = h("h2", { id: "handover-title" }, "Hand over");
  const menu = h("div", { id: "handover-menu" });
  const shown = h("div", { id: "handover-shown", hidden: true });
  const error = h("p", { class: "form-error", id: "handover-error", role: "alert" });
  const close = h("button", { class: "secondary", type: "button", id: "handover-close" }, "Close");
  dialog.append(dialogTitle, menu, shown, error, h("div", { class: "dialog-buttons" }, close));
  document.body.append(dialog);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    if (qrUrl) URL.revokeObjectURL(qrUrl);
    qrUrl = null;
  });

  open.addEventListener("click", () => {
    fillMenu();
    setText(error, "");
    show(menu, true);
    show(shown, false);
    dialog.showModal();
    menu.querySelector("button")?.focus();
  });

  function players() {
    return (ctx.state?.players || []).filter((p) => p.has_phone !== false);
  }

  function fillMenu() {
    const rows = [
      h("p", { class: "small" }, `Your phone is dying or you are leaving? Give the ${word} role to another phone: it gets a QR code, and this phone stops being the ${word}.`),
      h("button", { class: "primary handover-me", type: "button", onclick: () => handOver(null, `The ${word} role`) },
        `Show a QR code for the ${word} role`),
    ];
    const seated = players();
    if (seated.length) {
      rows.push(h("h3", {}, `Or give the ${word} role to a player`));
      rows.push(h("ul", { class: "handover-list" }, seated.map((p) =>
        h("li", {}, h("button", { class: "secondary", type: "button", onclick: () => offer(p) }, `Offer it to ${p.name}`)))));
      rows.push(h("h3", {}, "A player's phone died?"));
      rows.push(h("ul", { class: "handover-list" }, seated.map((p) =>
        h("li", {}, h("button", { class: "secondary", type: "button", onclick: () => handOver(p.id, `${p.name}'s seat`) },
          `Move ${p.name}'s seat to another phone`)))));
    }
    menu.replaceChildren(...rows);
  }

  async function handOver(playerId, what) {
    setText(error, "");
    handedOver = !playerId; // before the answer: this socket may close first
    try {
      const reply = await post(ctx, "handover", ctx.seat.token, playerId ? { player_id: playerId } : {});
      await showLink(what, reply.token, !playerId);
    } catch (failure) {
      handedOver = false;
      setText(error, failure.message);
    }
  }

  async function offer(player) {
    setText(error, "");
    try {
      await post(ctx, "host/offer", ctx.seat.token, { player_id: player.id });
      dialog.close();
      ctx.toast(`${player.name} can now take the ${word} role from their phone.`);
    } catch (failure) {
      setText(error, failure.message);
    }
  }

  async function showLink(what, token, mine) {
    const address = seatLink(ctx.code, token, ctx.collection);
    const img = h("img", { class: "qr", id: "handover-qr", alt: "", width: 220, height: 220 });
    const note = mine
      ? `Scan this with the new phone's camera. This phone is no longer the ${word}.`
      : "Scan this with their new phone's camera. Their old phone no longer opens the seat.";
    shown.replaceChildren(
      h("p", {}, h("strong", {}, what), `: ${note}`),
      img,
      h("p", { class: "center" }, h("a", { id: "handover-link", href: address }, "Or copy this link to the phone")),
    );
    show(menu, false);
    show(shown, true);
    close.focus();
    try {
      qrUrl = await seatQr(ctx.code, token, ctx.collection);
      img.src = qrUrl;
      img.alt = `QR code: ${what} in game ${ctx.code}`;
    } catch {
      img.replaceWith(h("p", { class: "muted small" }, "No QR code (the server did not draw it): send the link."));
    }
  }

  // -- a player's side ----------------------------------------------------------------------
  async function vote(playerId) {
    try {
      await post(ctx, "host/vote", ctx.seat.token, { player_id: playerId });
      setText(status, "Your vote is in.");
    } catch (failure) {
      setText(status, failure.message);
    }
  }

  async function claim(button) {
    await busy(button, "Taking over…", async () => {
      try {
        const reply = await post(ctx, "host/claim", ctx.seat.token);
        saveSeat(ctx.code, { ...ctx.seat, token: reply.token, role: reply.principal, player_id: null, collection: ctx.collection });
        location.reload();
      } catch (failure) {
        setText(status, failure.message);
      }
    });
  }

  function renderPlayer(state, now) {
    const hand = state.handover;
    const me = ctx.you?.player_id;
    const nameOf = (id) => state.players.find((p) => p.id === id)?.name || "someone";
    const away = awaySince !== null && now - awaySince >= AWAY_MS;
    const offered = hand.offer === me;
    const chosen = hand.chosen === me;
    const voting = Object.keys(hand.votes).length > 0;
    if (!(away || offered || chosen || voting) || state.status === "finished") {
      show(banner, false);
      return;
    }
    show(banner, true);
    if (offered || chosen) {
      setText(title, offered ? `The ${word} offers you the ${word} role` : `The table chose you as the ${word}`);
      setText(detail, `Take it and this phone becomes the ${word}'s: you enter the rolls and bank for everyone, yourself included.`);
      const take = h("button", { class: "primary", type: "button", id: "takeover-claim" }, `Become the ${word}`);
      take.addEventListener("click", () => claim(take));
      choices.replaceChildren(take);
      return;
    }
    setText(title, away ? `The ${word} has been away for ${minutes(now - awaySince)}: take over?` : `The table is choosing a new ${word}`);
    const mine = hand.votes[me];
    const tally = (id) => Object.values(hand.votes).filter((v) => v === id).length;
    setText(detail, `Someone takes over once ${hand.needed} players agree on them (${mine ? `you voted for ${nameOf(mine)}` : "you have not voted"}).`);
    const candidates = [me, ...new Set(Object.values(hand.votes))].filter((id, i, all) => id && all.indexOf(id) === i);
    choices.replaceChildren(...candidates.map((id) => {
      const label = id === me ? `I'll be the ${word}` : `${nameOf(id)} should be the ${word}`;
      return h("button", { class: id === me ? "primary" : "secondary", type: "button", "aria-pressed": String(mine === id), onclick: () => vote(id) },
        `${label} (${tally(id)} of ${hand.needed})`);
    }));
  }

  const view = {
    /** The state (or new presence): who sees what. */
    render(state) {
      const hand = state.handover;
      if (!hand || !ctx.you) return;
      const now = Date.now();
      awaySince = hand.host_connected ? null : awaySince ?? now;
      document.body.dataset.host = hand.host_connected ? "here" : "away"; // as data-conn
      const host = isHost(ctx.you);
      show(open, host && state.status !== "finished");
      if (host || ctx.you.role !== "player") show(banner, false);
      else renderPlayer(state, now);
    },
    /** This phone handed its own role over: its socket's close is expected. */
    handedOver: () => handedOver,
  };
  setInterval(() => ctx.state && view.render(ctx.state), TICK_MS); // "away for N minutes"
  return view;
}
