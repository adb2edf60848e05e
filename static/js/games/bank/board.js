// The live scoreboard: one row per player, kept by id so that buttons keep focus.
// Every signal is words or a symbol too, never colour alone.

import { h, points, setText } from "../../shell/dom.js";
import { ranked, roundLive } from "./rules.js";

/**
 * board(list): returns update(state, {me, banks, sorted, onBank, showPlace}).
 * onBank(player) adds a "Bank" button per row (the banker banks on behalf).
 */
export function board(list) {
  const rows = new Map();

  function row(player, onBank) {
    const name = h("span", { class: "name" });
    const tags = h("span", { class: "tags" });
    const score = h("span", { class: "score" });
    const place = h("span", { class: "place" });
    const button = onBank
      ? h("button", { type: "button", class: "bank-for", onclick: () => onBank(current.get(player.id)) }, "Bank")
      : null;
    const el = h("li", { class: "row", dataset: { player: player.id } }, place, h("span", { class: "who" }, name, tags), score, button);
    return { el, name, tags, score, place, button };
  }

  const current = new Map();

  return function update(state, { me = null, banks = new Map(), sorted = false, onBank = null, showPlace = false, presence = true } = {}) {
    const order = sorted ? ranked(state) : state.players.map((player) => ({ player, place: null }));
    const seen = new Set();
    const live = roundLive(state);
    order.forEach(({ player, place }, index) => {
      current.set(player.id, player);
      seen.add(player.id);
      let r = rows.get(player.id);
      if (!r) {
        r = row(player, onBank);
        rows.set(player.id, r);
      }
      const mine = player.id === me;
      setText(r.name, mine ? `${player.name} (you)` : player.name);
      setText(r.score, points(player.score));
      setText(r.place, showPlace ? `${place}.` : "");
      r.place.hidden = !showPlace;
      const tags = [];
      if (state.status === "finished" && state.winners.includes(player.id)) tags.push(["win", "★ winner"]);
      if (state.status === "playing" && player.banked) {
        const amount = banks.get(player.id);
        tags.push(["banked", amount === undefined ? "✓ banked" : `✓ banked ${points(amount)}`]);
      }
      if (state.status === "playing" && state.turn === player.id) tags.push(["turn", "▶ rolling"]);
      if (presence && state.status === "playing" && player.connected === false) {
        tags.push(["away", onBank ? "no phone / offline" : "offline"]);
      }
      const tagText = tags.map(([, text]) => text).join(" · ");
      if (r.tags.dataset.text !== tagText) {
        r.tags.dataset.text = tagText;
        r.tags.replaceChildren(...tags.map(([kind, text]) => h("span", { class: `tag ${kind}` }, text)));
      }
      r.el.classList.toggle("me", mine);
      r.el.classList.toggle("is-banked", state.status === "playing" && player.banked);
      r.el.classList.toggle("is-turn", state.status === "playing" && state.turn === player.id);
      if (r.button) {
        r.button.disabled = !live || player.banked;
        r.button.setAttribute("aria-label", player.banked ? `${player.name} has banked` : `Bank for ${player.name}`);
        setText(r.button, player.banked ? "Banked" : "Bank");
      }
      if (list.children[index] !== r.el) list.insertBefore(r.el, list.children[index] || null);
    });
    for (const [id, r] of rows) {
      if (!seen.has(id)) {
        r.el.remove();
        rows.delete(id);
        current.delete(id);
      }
    }
  };
}
