// The organiser's seating for the next game: how many tables, and who sits where.
// One table by default; a tap on a name moves that player to the next table (after the
// last one: "sits out"; after that: table 1). It becomes `next`'s `tables`.

import { h } from "../../shell/dom.js";

export const MAX_TABLES = 4; // 16 players at four tables of four

export class Seating {
  constructor() {
    this.count = 1;
    this.at = new Map(); // player id -> table (1..count), 0: sits out
  }

  /** Keep up with the roster: newcomers sit at the emptiest table, the removed are gone. */
  sync(players) {
    const ids = new Set(players.map((p) => p.id));
    for (const id of [...this.at.keys()]) if (!ids.has(id)) this.at.delete(id);
    this.count = Math.max(1, Math.min(this.count, MAX_TABLES, players.length || 1));
    for (const p of players) if (!this.at.has(p.id)) this.at.set(p.id, this.emptiest(players));
  }

  emptiest(players) {
    const sizes = this.sizes(players);
    return sizes.indexOf(Math.min(...sizes)) + 1;
  }

  sizes(players) {
    const sizes = Array(this.count).fill(0);
    for (const p of players) if (this.at.get(p.id) > 0) sizes[this.at.get(p.id) - 1] += 1;
    return sizes;
  }

  /** N tables, everyone seated (sitters-out too), split evenly in join order. */
  setCount(count, players) {
    this.count = count;
    players.forEach((p, i) => this.at.set(p.id, Math.floor((i * count) / players.length) + 1));
  }

  move(id) {
    const table = this.at.get(id) ?? 1;
    this.at.set(id, table >= this.count ? (table === 0 ? 1 : 0) : table + 1);
  }

  /** `next`'s tables: player ids per table, in join order. */
  tables(players) {
    return Array.from({ length: this.count }, (_, i) => players.filter((p) => this.at.get(p.id) === i + 1).map((p) => p.id));
  }

  /** {command, label, enabled} for the start button of game `game`. */
  start(players, game) {
    const tables = this.tables(players);
    const seated = tables.flat().length;
    const empty = tables.findIndex((t) => t.length === 0);
    if (!seated) return { command: null, label: "Seat at least one player", enabled: false };
    if (empty >= 0) return { command: null, label: `Table ${empty + 1} has nobody: move someone there`, enabled: false };
    const where = tables.length === 1 ? "1 table" : `${tables.length} tables`;
    return {
      command: { type: "next", tables },
      label: `Start game ${game} (${where}, ${seated} ${seated === 1 ? "player" : "players"})`,
      enabled: true,
    };
  }

  /** The seating panel; `changed()` after every tap. */
  draw(root, players, changed) {
    const max = Math.max(1, Math.min(MAX_TABLES, players.length));
    const switcher = h(
      "div",
      { class: "t-count", role: "group", "aria-label": "Number of tables" },
      h("span", { class: "t-count-label" }, "Tables:"),
      Array.from({ length: max }, (_, i) =>
        h(
          "button",
          {
            type: "button",
            class: i + 1 === this.count ? "secondary chosen" : "secondary",
            "aria-pressed": String(i + 1 === this.count),
            "aria-label": `${i + 1} ${i ? "tables" : "table"}`,
            onclick: () => {
              this.setCount(i + 1, players);
              changed();
            },
          },
          i + 1 === this.count ? `✓ ${i + 1}` : String(i + 1),
        ),
      ),
    );
    const group = (title, table) => {
      const seated = players.filter((p) => this.at.get(p.id) === table);
      const next = table === 0 ? "table 1" : table >= this.count ? "sit out" : `table ${table + 1}`;
      return h(
        "div",
        { class: "t-table", dataset: { table } },
        h("h3", {}, `${title} (${seated.length})`),
        h(
          "ul",
          {},
          seated.map((p) =>
            h(
              "li",
              {},
              h(
                "button",
                {
                  type: "button",
                  class: "secondary seat",
                  "aria-label": `${p.name}, ${table ? `table ${table}` : "sits out"}: tap to ${next === "sit out" ? "sit out" : `move to ${next}`}`,
                  onclick: () => {
                    this.move(p.id);
                    changed();
                  },
                },
                p.name,
              ),
            ),
          ),
          seated.length ? null : h("li", { class: "muted small" }, table ? "Nobody yet" : "Nobody"),
        ),
      );
    };
    root.replaceChildren(
      switcher,
      h("p", { class: "muted small" }, "Tap a name to move it to the next table, or to sit this game out."),
      h(
        "div",
        { class: "t-tables" },
        Array.from({ length: this.count }, (_, i) => group(`Table ${i + 1}`, i + 1)),
        group("Sitting out", 0),
      ),
    );
  }
}
