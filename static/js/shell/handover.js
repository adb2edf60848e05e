// A dead phone never strands a game (docs/protocol.md, "Extension: hand-over"), for
// every game's phone page:
// - the host (banker, organiser) hands its role to another phone by a QR code or a link,
//   or offers it to a seated player; and moves a player's seat to another phone;
// - a player sees, in the moment, "The banker has been away for 2 minutes: take over?",
//   votes, and takes the role once offered it or chosen by a majority of the table;
// - after a hand-over each phone is told what happened: the old host ("You handed the
//   banker role to Bob"), the new one ("You are the banker now"), a moved seat.
// The server decides when the table may choose (`wait_seconds`, `electors`); the page
// notices how long the host has been away from the state's `handover`.

import { ApiError, seatLink, seatQr } from "./api.js";
import { $, busy, h, setText, show } from "./dom.js";
import { isHost } from "./games.js";
import { saveSeat } from "./store.js";

export const AWAY_MS = 2 * 60_000; // when the server does not say (`wait_seconds`)
const TICK_MS = 5_000;
const NOTE_KEY = (code) => `bankit-handover-note-${code}`; // told after the reload of a claim

/** What to tell this phone after the reload a claim makes (sessionStorage may be off). */
function noteStore(work) {
  try {
    return work(sessionStorage);
  } catch {
    return null;
  }
}

/** A card that has just appeared (or changed) comes into view and takes the focus. */
function bringIn(card, heading) {
  card.scrollIntoView({ block: "nearest" });
  heading.focus({ preventScroll: true });
}

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
  let shownAs = null; // what the take-over card shows now: it is brought in when this changes
  let refused = null; // the token the server refused: nothing is shown for it any more
  let offered = null; // the last offer this phone saw (the old host: to whom it offered)
  const arrivedByLink = /(?:^#|&)token=/.test(location.hash); // a hand-over's (or a late seat's) link

  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "/static/css/handover.css";
  document.head.append(link);

  // -- a player's banner: the host is away, or offered the role ---------------------------
  const banner = h("section", { id: "takeover", class: "takeover card", hidden: true, "aria-labelledby": "takeover-title" });
  const title = h("h2", { id: "takeover-title", class: "takeover-title", tabindex: "-1" });
  const detail = h("p", { id: "takeover-detail", class: "small" });
  const choices = h("div", { id: "takeover-choices", class: "takeover-choices" });
  const status = h("p", { id: "takeover-status", class: "small", role: "status" });
  banner.append(title, detail, choices, status);
  $("#main").prepend(banner);

  // -- what this phone has just become (after a claim, or a hand-over's link) --------------
  const note = h("section", { id: "handover-note", class: "takeover card", hidden: true, "aria-labelledby": "handover-note-title" });
  const noteTitle = h("h2", { id: "handover-note-title", class: "takeover-title", tabindex: "-1" });
  const noteText = h("p", { class: "small", id: "handover-note-text" });
  const noteDone = h("button", { class: "secondary", type: "button", id: "handover-note-ok" }, "OK");
  noteDone.addEventListener("click", () => show(note, false));
  note.append(noteTitle, noteText, noteDone);
  $("#main").prepend(note);
  let noteDue = true; // told once, on the first state of this page
  const keepNote = (text) => noteStore((store) => store.setItem(NOTE_KEY(ctx.code), text));
  const takeNote = () =>
    noteStore((store) => {
      const text = store.getItem(NOTE_KEY(ctx.code));
      store.removeItem(NOTE_KEY(ctx.code));
      return text;
    });

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

  /** This phone's token, or null (it lost its seat a moment ago): say so, never throw. */
  function token(where) {
    const held = ctx.seat?.token;
    if (!held) setText(where, "This phone no longer holds a seat in this game.");
    return held || null;
  }

  async function handOver(playerId, what) {
    setText(error, "");
    const mine = token(error);
    if (!mine) return;
    handedOver = !playerId; // before the answer: this socket may close first
    try {
      const reply = await post(ctx, "handover", mine, playerId ? { player_id: playerId } : {});
      await showLink(what, reply.token, !playerId);
    } catch (failure) {
      handedOver = false;
      setText(error, failure.message);
    }
  }

  async function offer(player) {
    setText(error, "");
    const mine = token(error);
    if (!mine) return;
    try {
      await post(ctx, "host/offer", mine, { player_id: player.id });
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
    setText(status, "");
    const mine = token(status);
    if (!mine) return;
    try {
      await post(ctx, "host/vote", mine, { player_id: playerId });
      setText(status, "Your vote is in.");
    } catch (failure) {
      setText(status, failure.message);
    }
  }

  async function claim(button) {
    await busy(button, "Taking over…", async () => {
      const mine = token(status);
      if (!mine) return;
      try {
        const reply = await post(ctx, "host/claim", mine);
        saveSeat(ctx.code, { ...ctx.seat, token: reply.token, role: reply.principal, player_id: null, collection: ctx.collection });
        keepNote(`The ${word} role is yours: this phone holds it from now on, and your seat plays on from it.`);
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
    const waitMs = hand.wait_seconds ? hand.wait_seconds * 1000 : AWAY_MS;
    const away = awaySince !== null && now - awaySince >= waitMs;
    const isOffered = hand.offer === me;
    const chosen = hand.chosen === me;
    const voting = Object.keys(hand.votes).length > 0;
    if (!(away || isOffered || chosen || voting) || state.status === "finished") {
      show(banner, false);
      shownAs = null;
      return;
    }
    show(banner, true);
    const mode = isOffered ? "offered" : chosen ? "chosen" : "away";
    const fresh = mode !== shownAs;
    shownAs = mode;
    if (isOffered || chosen) {
      setText(title, isOffered ? `The ${word} offers you the ${word} role` : `The table chose you as the ${word}`);
      setText(detail, `Take it and this phone becomes the ${word}'s: you enter the rolls and bank for everyone, yourself included.`);
      const take = h("button", { class: "primary", type: "button", id: "takeover-claim" }, `Become the ${word}`);
      take.addEventListener("click", () => claim(take));
      choices.replaceChildren(take);
    } else {
      renderVotes(hand, me, nameOf, away ? minutes(now - awaySince) : null);
    }
    if (fresh) bringIn(banner, title);
  }

  function renderVotes(hand, me, nameOf, awayFor) {
    setText(title, awayFor ? `The ${word} has been away for ${awayFor}: take over?` : `The table is choosing a new ${word}`);
    const electors = hand.electors || [];
    if (!electors.includes(me)) {
      setText(detail, `The players whose phones were here before the ${word} left choose who takes over (${hand.needed} of them must agree).`);
      choices.replaceChildren();
      return;
    }
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

  /** Once, on this page's first state: what this phone has just become. */
  function tellArrival(state) {
    if (!noteDue) return;
    noteDue = false;
    const told = takeNote();
    let heading = null;
    let text = told;
    if (isHost(ctx.you) && (told || arrivedByLink)) {
      heading = `You are the ${word} now`;
      text = told || `This phone holds the ${word} role from now on (its link opened it here).`;
    } else if (ctx.you.role === "player" && arrivedByLink) {
      const name = state.players.find((p) => p.id === ctx.you.player_id)?.name;
      heading = name ? `This phone holds ${name}'s seat now` : "This phone holds a seat now";
      text = "Its link opened it here: any phone that held it before no longer does. Play on here.";
    }
    if (!heading) return;
    setText(noteTitle, heading);
    setText(noteText, text);
    show(note, true);
    bringIn(note, noteTitle);
  }

  /** This phone's token was refused (its role or seat moved): what to tell it, or null
   * when it was not a hand-over (a kick). The controls that need the token go. */
  function farewell() {
    refused = ctx.seat?.token ?? null;
    show(open, false);
    show(banner, false);
    show(note, false);
    if (dialog.open && !handedOver) dialog.close(); // its own QR code stays up to be scanned
    const text = farewellText();
    if (text) setText($("#gone-title"), isHost(ctx.you) || handedOver ? "Handed over" : "Your seat moved");
    return text;
  }

  function farewellText() {
    const state = ctx.state;
    const elsewhere = "This phone handed its role to another phone: the game goes on there.";
    if (!ctx.you || !state) return handedOver ? elsewhere : null;
    if (isHost(ctx.you)) {
      const holder = state.handover?.holder;
      const name = holder && state.players.find((p) => p.id === holder)?.name;
      if (name && offered === holder) return `You handed the ${word} role to ${name}: their phone is the ${word}'s now.`;
      if (name) return `The table chose ${name} as the new ${word} while this phone was away: their phone is the ${word}'s now.`;
      return elsewhere;
    }
    const seated = state.players.some((p) => p.id === ctx.you.player_id);
    return seated ? "Your seat moved to another phone: play on there. This phone no longer opens it." : null;
  }

  const view = {
    /** The state (or new presence): who sees what. */
    render(state) {
      const hand = state.handover;
      if (!hand || !ctx.you || !ctx.seat || ctx.seat.token === refused) return;
      tellArrival(state);
      if (hand.offer) offered = hand.offer;
      const now = Date.now();
      awaySince = hand.host_connected ? null : awaySince ?? now;
      document.body.dataset.host = hand.host_connected ? "here" : "away"; // as data-conn
      const host = isHost(ctx.you);
      show(open, host && state.status !== "finished");
      if (host || ctx.you.role !== "player") show(banner, false);
      else renderPlayer(state, now);
    },
    /** This phone's token was refused: a hand-over's words for it, or null (a kick). */
    farewell,
  };
  setInterval(() => ctx.state && view.render(ctx.state), TICK_MS); // "away for N minutes"
  return view;
}
