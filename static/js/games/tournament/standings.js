// What the phone, the TV and the printout all show: the standings (per player per game:
// total, place, points; bonus; running total; rank) and the rerolls, in words.

import { h, names, ordinal, points } from "../../shell/dom.js";

export const nameOf = (state, id) => state.players.find((p) => p.id === id)?.name ?? "?";
export const namesOf = (state, ids) => names(ids.map((id) => nameOf(state, id)));
const num = (n) => String(Number(n)); // 1.5 stays 1.5, 3 stays 3

/** "2nd–3rd" for a group's places. */
export const placesText = (places) =>
  places.length > 1 ? `${ordinal(places[0])}–${ordinal(places[places.length - 1])}` : ordinal(places[0]);

/** "3 + 4 = 7" */
export const diceText = (dice) => `${dice[0]} + ${dice[1]} = ${dice[0] + dice[1]}`;

/** The standings table: rank, name, then per scored game its total, place and points,
 * then bonus and running total. The phone hides the totals and places on screen
 * (class "detail"); the TV and the printout show them. */
export function standingsTable(state, me = null) {
  const results = state.results;
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, "Rank"),
    h("th", { scope: "col", class: "name" }, "Player"),
    results.flatMap((r) => [
      h("th", { scope: "col", class: "detail num" }, `G${r.game} score`),
      h("th", { scope: "col", class: "detail num" }, `G${r.game} place`),
      h("th", { scope: "col", class: "num" }, `G${r.game} pts`),
    ]),
    h("th", { scope: "col", class: "num" }, "Bonus"),
    h("th", { scope: "col", class: "num" }, "Total"),
  );
  const rows = state.standings.map((row) => {
    const id = row.player_id;
    return h(
      "tr",
      { class: id === me ? "me" : "", dataset: { player: id } },
      h("td", { class: "rank" }, !results.length ? "–" : state.status === "finished" && row.rank === 1 ? "★ 1" : String(row.rank)),
      h("th", { scope: "row", class: "name" }, id === me ? `${nameOf(state, id)} (you)` : nameOf(state, id)),
      results.flatMap((r) => [
        h("td", { class: "detail num" }, id in r.totals ? points(r.totals[id]) : "–"),
        h("td", { class: "detail num" }, r.places[id] == null ? "–" : ordinal(r.places[id])),
        h("td", { class: "num" }, num(r.points[id] ?? 0)),
      ]),
      h("td", { class: "num" }, results.length ? num(row.bonus) : "–"), // nothing scored: no ranks, no zeros
      h("td", { class: "num total" }, results.length ? num(row.total) : "–"),
    );
  });
  const caption = results.length
    ? `Standings after ${results.length} of ${state.games} ${state.games === 1 ? "game" : "games"}`
    : "Standings: no game scored yet";
  return h(
    "table",
    { class: "standings" },
    h("caption", {}, caption),
    h("thead", {}, head),
    h("tbody", {}, rows),
  );
}

/** One line per pending group's player: "Ann rolled 3 + 4 = 7" / "Bob: to roll". */
export function rerollGroups(state) {
  const groups = state.reroll?.groups ?? [];
  return groups.map((group) =>
    h(
      "div",
      { class: "reroll-group" },
      h("h3", {}, `Tie for ${placesText(group.places)}: ${namesOf(state, group.players)}`),
      h(
        "ul",
        {},
        group.players.map((id) => {
          const dice = group.rolls[id];
          return h(
            "li",
            { class: dice ? "rolled" : "waiting", dataset: { player: id } },
            dice ? `${nameOf(state, id)} rolled ${diceText(dice)}` : `${nameOf(state, id)}: to roll…`,
          );
        }),
      ),
    ),
  );
}

/** Who took the places that earn points in a scored game: "1st Cy (96), 2nd Ann (6), …"
 * (the standings list everyone). */
export function resultLine(state, result) {
  const placed = Object.entries(result.places)
    .filter(([, place]) => place != null)
    .sort((a, b) => a[1] - b[1]);
  const top = placed.filter(([, place]) => place <= 5);
  const line = top.map(([id, place]) => `${ordinal(place)} ${nameOf(state, id)} (${points(result.totals[id])})`).join(", ");
  return placed.length > top.length ? `${line}, …` : line;
}

export const scoresheetUrl = (code) => `/api/tournaments/${code}/scoresheet.csv`;
