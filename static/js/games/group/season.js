// A group's seasons as tables: standings per game kind and overall, and the season's
// lines (each game's result, linking to its page and its log with the fair dice).
// Shared by the phone page (phone.js) and the TV (tv.js).

import { h } from "../../shell/dom.js";

const KINDS = { overall: "Overall", bank: "BANK!", bunco: "Bunco", tournament: "Tournament" };
const EXTRA = {
  overall: [],
  bank: [["biggest_bank", "Biggest bank"], ["lost_to_seven", "Lost to a 7"]],
  bunco: [["rounds_won", "Rounds won"], ["rounds_lost", "Rounds lost"], ["buncos", "Buncos"]],
  tournament: [],
};
const COLLECTION = { bank: "rooms", bunco: "rooms", tournament: "tournaments" };
const PAGE = { rooms: "r", tournaments: "t" };

export const gamePath = (line) => `/${PAGE[COLLECTION[line.game]]}/${line.code}`;
export const logPath = (line) => `/api/${COLLECTION[line.game]}/${line.code}/log`;
export const collectionOf = (game) => COLLECTION[game];

function table(kind, lines, names, me) {
  const extra = EXTRA[kind];
  const head = ["Member", "Played", "Wins"];
  if (kind !== "overall") head.push("Average", "Best");
  head.push(...extra.map(([, label]) => label));
  const rows = lines.map((line) => {
    const cells = [line.games, line.wins];
    if (kind !== "overall") cells.push(line.average, line.best);
    cells.push(...extra.map(([key]) => line[key]));
    return h(
      "tr",
      { class: line.member === me ? "me" : null },
      h("th", { scope: "row", class: "name" }, names[line.member] || "member"),
      cells.map((value) => h("td", { class: "num" }, String(value))),
    );
  });
  // A table wider than a phone scrolls in a box of its own, reachable by keyboard.
  return h(
    "div",
    { class: "g-scroll", tabindex: "0", role: "region", "aria-label": `${KINDS[kind]} standings` },
    h(
      "table",
      { class: "standings" },
    h("caption", {}, KINDS[kind]),
    h("thead", {}, h("tr", {}, head.map((label, i) => h("th", { scope: "col", class: i ? "num" : null }, label)))),
      h("tbody", {}, rows),
    ),
  );
}

function resultLine(line, names) {
  const rows = line.result || [];
  const winners = rows.filter((r) => r.won).map((r) => names[r.id] || r.guest || "member");
  const players = rows.map((r) => (r.guest !== undefined ? `${r.guest} (guest)` : names[r.id] || "member"));
  return h(
    "li",
    {},
    h("strong", {}, `${KINDS[line.game]} ${line.code}`),
    ` · won by ${winners.join(", ") || "nobody"} · ${players.join(", ")} · `,
    h("a", { href: gamePath(line) }, "game"),
    " · ",
    h("a", { href: logPath(line) }, "log and fair dice"),
  );
}

/** Every season, newest first: its standings tables and its lines. */
export function renderSeasons(root, state, names, me = null, { lines = true } = {}) {
  const sections = state.seasons.map((season) => {
    const tables = Object.keys(KINDS)
      .filter((kind) => season.standings[kind].length)
      .map((kind) => table(kind, season.standings[kind], names, me));
    const title = `Season ${season.season}${season.closed ? " (closed)" : ""}`;
    const id = `season-${season.season}`;
    return h(
      "section",
      { class: "g-season", "aria-labelledby": id },
      h("h2", { id }, title),
      tables.length ? tables : h("p", { class: "muted" }, "No result yet this season."),
      lines && season.lines.length
        ? [h("h3", {}, "Nights"), h("ul", { class: "g-lines" }, season.lines.map((l) => resultLine(l, names)))]
        : null,
    );
  });
  root.replaceChildren(...sections);
}
