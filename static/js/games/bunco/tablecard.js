// One table as a card: its name, both teams with their scores, who has the dice, the last
// roll and what it scored. Used by the phone (big, for the player's own table), the
// host's page and the TV. The card is built once and updated in place.

import { $, h, setText, show } from "../../shell/dom.js";
import { three } from "./dice.js";
import { nameOf, rollWords, teamName } from "./rules.js";

export function tableCard(index, { size = "" } = {}) {
  const el = h(
    "article",
    { class: `tcard ${size}`, dataset: { table: index } },
    h("h3", { class: "tname" }, h("span", { class: "tname-text" }), h("span", { class: "tflag" })),
    h(
      "div",
      { class: "teams" },
      ...[0, 1].map((t) =>
        h("div", { class: "team", dataset: { team: t } }, h("span", { class: "names" }), h("span", { class: "pts" }, "0")),
      ),
    ),
    h("p", { class: "holder" }),
    h("p", { class: "last" }, h("span", { class: "last-dice" }), h("span", { class: "last-text" })),
  );
  let rollKey = "";

  /** Draw `table` of `state`; `me` (a player id or null) reads "You" and "Your roll!". */
  function update(state, table, me = null) {
    setText($(".tname-text", el), `${table.name} table`);
    el.setAttribute("aria-label", `${table.name} table`);
    const flag = table.rolloff ? "⚖ roll-off" : table.table === 0 ? "♫ bell table" : "";
    setText($(".tflag", el), flag);
    const lead = table.scores[0] === table.scores[1] ? -1 : table.scores[0] > table.scores[1] ? 0 : 1;
    el.classList.toggle("mine", Boolean(me) && table.seats.includes(me));
    const live = state.status === "playing" && (state.phase === "playing" || table.rolloff);
    for (const t of [0, 1]) {
      const box = $(`.team[data-team="${t}"]`, el);
      setText($(".names", box), teamName(state, table, t, me));
      setText($(".pts", box), table.scores[t]);
      box.classList.toggle("lead", lead === t);
      box.classList.toggle("rolling", live && [table.seats[t], table.seats[t + 2]].includes(table.roller));
    }
    const holder = $(".holder", el);
    let who = table.roller === me ? "▶ Your roll!" : `▶ ${nameOf(state, table.roller)} has the dice`;
    if (!live) who = state.status === "finished" ? "Final score" : "Waiting for the next RING";
    setText(holder, who);
    holder.classList.toggle("you", live && table.roller === me);
    const roll = table.last_roll;
    const key = roll ? String(roll.seq) : "none";
    if (key !== rollKey) {
      rollKey = key;
      $(".last-dice", el).replaceChildren(roll ? three(roll.dice, size === "big" ? "big" : "") : "");
    }
    const text = roll ? `${roll.by === me ? "You" : nameOf(state, roll.by)}: ${rollWords(state, table, roll)}` : "No roll yet";
    setText($(".last-text", el), text);
    $(".last", el).dataset.kind = roll?.points === 21 ? "bunco" : roll && roll.points === 0 ? "miss" : "";
    show($(".last", el), true);
  }

  return { el, update };
}

/** "Middle 12–7 · Low 30–2": the other tables in one line each. */
export function stripItem(table) {
  const flag = table.rolloff ? " ⚖ roll-off" : "";
  return `${table.name} ${table.scores[0]}–${table.scores[1]}${flag}`;
}
