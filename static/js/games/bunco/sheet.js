// The night's standings as a table (wins, losses, Buncos, W/L per round): on screen a
// compact column of the rounds; printed (@media print in bunco.css), one column per round,
// a paper scoresheet on one A4 page.

import { h } from "../../shell/dom.js";
import { record, standings } from "./rules.js";

export function standingsTable(state, { me = null, caption = "Standings" } = {}) {
  const rounds = state.rounds_log.map((r) => (state.sets > 1 ? `S${r.set}R${r.round}` : `R${r.round}`));
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, "#"),
    h("th", { scope: "col" }, "Name"),
    h("th", { scope: "col" }, "Wins"),
    h("th", { scope: "col" }, "Losses"),
    h("th", { scope: "col" }, "Buncos"),
    h("th", { scope: "col", class: "rounds" }, "Rounds"),
    ...rounds.map((r) => h("th", { scope: "col", class: "per-round" }, r)),
  );
  const winners = new Set(state.winners);
  const rows = standings(state).map(({ player, place }) => {
    const wl = record(state, player.id);
    return h(
      "tr",
      { class: `${player.id === me ? "me" : ""} ${winners.has(player.id) ? "winner" : ""}` },
      h("td", {}, place),
      h("th", { scope: "row" }, winners.has(player.id) ? `★ ${player.name}` : player.name, player.id === me ? " (you)" : ""),
      h("td", {}, player.wins),
      h("td", {}, player.losses),
      h("td", {}, player.buncos),
      h("td", { class: "rounds" }, wl.join("") || "–"),
      ...wl.map((x) => h("td", { class: "per-round" }, x)),
    );
  });
  return h(
    "table",
    { class: "sheet" },
    h("caption", {}, caption),
    h("thead", {}, head),
    h("tbody", {}, rows),
  );
}
