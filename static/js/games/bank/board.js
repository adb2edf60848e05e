// The live scoreboard: one row per player, kept by id so that buttons keep focus.
// Every signal is words or a symbol too, never colour alone.

import { h, ordinal, points, setText } from "../../shell/dom.js";
import { ranked, roundLive } from "./rules.js";

/**
 * board(list): returns update(state, {me, banks, sorted, onBank, onUnbank, byBanker, showPlace}).
 * onBank(player) adds a "Bank" button per row (the banker banks on behalf); once the
 * banker banked for them (byBanker has their id) it reads "Take back" (onUnbank(player)).
 */
export function board(list) {
  const rows = new Map();

  function row(player, onBank) {
    const name = h("span", { class: "name" });
    const tags = h("span", { class: "tags" });
    const score = h("span", { class: "score" });
    const place = h("span", { class: "place" });
    const button = onBank
      ? h("button", { type: "button", class: "bank-for", onclick: () => handlers.click(current.get(player.id)) }, "Bank")
      : null;
    const el = h("li", { class: "row", dataset: { player: player.id } }, place, h("span", { class: "who" }, name, tags), score, button);
    return { el, name, tags, score, place, button };
  }

  const current = new Map();
  const handlers = { click: () => {} };

  return function update(state, { me = null, banks = new Map(), sorted = false, onBank = null, onUnbank = null, byBanker = new Set(), showPlace = false, presence = true } = {}) {
    handlers.click = (player) => (player.banked ? onUnbank?.(player, banks.get(player.id)) : onBank?.(player));
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
      const tied = showPlace && order.filter((o) => o.place === place).length > 1;
      setText(r.place, showPlace ? (tied ? `${place}= ` : `${place}.`) : ""); // "2=": tied for 2nd
      r.place.hidden = !showPlace;
      const tags = [];
      if (state.status === "finished" && state.winners.includes(player.id)) tags.push(["win", "★ winner"]);
      if (showPlace && order.filter((o) => o.place === place).length > 1) tags.push(["tied", `tied for ${ordinal(place)}`]);
      if (state.status === "playing" && player.banked) {
        const amount = banks.get(player.id);
        tags.push(["banked", amount === undefined ? "✓ banked" : `✓ banked ${points(amount)}`]);
      }
      if (state.status === "playing" && state.turn === player.id) tags.push(["turn", "▶ rolling"]);
      if (state.status === "playing" && player.waiting) tags.push(["late", "joined late: BANK after the next roll"]);
      if (presence && player.has_phone === false) tags.push(["away", "no phone"]);
      else if (presence && state.status === "playing" && player.connected === false) tags.push(["away", "offline"]);
      const tagText = tags.map(([, text]) => text).join(" · ");
      if (r.tags.dataset.text !== tagText) {
        r.tags.dataset.text = tagText;
        r.tags.replaceChildren(...tags.map(([kind, text]) => h("span", { class: `tag ${kind}` }, text)));
      }
      r.el.classList.toggle("me", mine);
      r.el.classList.toggle("is-banked", state.status === "playing" && player.banked);
      r.el.classList.toggle("is-turn", state.status === "playing" && state.turn === player.id);
      if (r.button) {
        const undoable = player.banked && byBanker.has(player.id) && Boolean(onUnbank);
        r.button.disabled = player.banked ? !undoable || state.status !== "playing" : !live || player.waiting;
        r.button.classList.toggle("take-back", undoable);
        const amount = banks.get(player.id);
        r.button.setAttribute(
          "aria-label",
          undoable
            ? `Take back ${player.name}'s BANK${amount === undefined ? "" : ` of ${points(amount)}`}`
            : player.banked ? `${player.name} has banked` : `Bank for ${player.name}`,
        );
        setText(r.button, undoable ? "Take back" : player.banked ? "Banked" : "Bank");
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
