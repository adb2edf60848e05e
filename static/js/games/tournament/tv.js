// The tournament's TV page (/watch/t/CODE) past the lobby, read only: the live totals of
// every table of the game in play, the rerolls as they land, the standings (per game:
// score, place, points; bonus; total; rank), and the winner.
//
// Live table totals: one spectator socket per table room (the shell's RoomSocket, no
// token), opened when a game's tables appear and closed when they go. A socket pushes
// every roll and bank at once (polling GET /api/rooms/{code} every 2 s would lag and
// cost a request per table every 2 s); at most 4 tables, so at most 4 sockets.

import { $, h, names, points, setText, show } from "../../shell/dom.js";
import { feel } from "../../shell/feel.js";
import { RoomSocket } from "../../shell/socket.js";
import { RerollFeed } from "./feed.js";
import { nameOf, rerollGroups, resultLine, standingsTable } from "./standings.js";
import { tableStatus } from "./tables.js";

export { lobby } from "./phone.js";
const FEED_LINES = 8; // the newest rerolls shown (all are in the log and the scoresheet's places)
export const styles = ["/static/css/games/tournament.css", "/static/css/games/tournament-tv.css"];

const MARKUP = `
  <section id="tt-view" class="tt-page" aria-labelledby="tt-title">
    <div class="tt-head">
      <h1 id="tt-title"></h1>
      <p id="tt-line" class="tt-line"></p>
    </div>
    <p id="tt-winner" class="tt-winner" role="status" hidden></p>
    <div class="tt-cols">
      <div class="tt-left">
        <div id="tt-tables-box" hidden>
          <h2>Live tables</h2>
          <ul id="tt-tables" class="tt-tables"></ul>
        </div>
        <div id="tt-reroll" class="tt-reroll" hidden>
          <h2>Rerolls</h2>
          <div id="tt-groups"></div>
        </div>
        <div id="tt-feed-box" hidden>
          <h2 id="tt-feed-box-title">Rerolls</h2>
          <ol id="tt-feed" class="t-feed" reversed role="log" aria-live="polite"></ol>
        </div>
        <div id="tt-last" hidden></div>
      </div>
      <div class="tt-right t-scroll" id="tt-standings" tabindex="0" role="region" aria-label="Standings"></div>
    </div>
  </section>`;

export function mount(ctx, root) {
  root.innerHTML = MARKUP;
  const el = (id) => $(`#${id}`, root);
  const feed = new RerollFeed(ctx.code);
  const rooms = new Map(); // table code -> {socket, state, live}

  function watchTables(state) {
    const wanted = new Set(state.status === "playing" || state.status === "scoring" ? state.tables.map((t) => t.code) : []);
    for (const [code, room] of rooms) {
      if (!wanted.has(code)) {
        room.socket.stop();
        rooms.delete(code);
      }
    }
    for (const code of wanted) {
      if (rooms.has(code)) continue;
      const room = { state: null, live: false };
      const update = (next) => {
        room.state = next;
        drawTables(ctx.state);
      };
      room.socket = new RoomSocket(code, "", {
        welcome: (_, next) => update(next),
        state: update,
        status: ({ phase }) => {
          room.live = phase === "live";
          drawTables(ctx.state);
        },
      }, "rooms");
      rooms.set(code, room);
    }
  }

  function drawTables(state) {
    const live = state.status === "playing" || state.status === "scoring";
    show(el("tt-tables-box"), live);
    if (!live) return;
    el("tt-tables").replaceChildren(
      ...state.tables.map((table) => {
        const room = rooms.get(table.code)?.state;
        const players = room ? [...room.players].sort((a, b) => b.score - a.score) : [];
        const where = room && room.status === "playing" ? `Round ${room.round} of ${room.rounds} · BANK ${points(room.bank)}` : tableStatus(table.status);
        return h(
          "li",
          { class: "tt-table", dataset: { table: table.table } },
          h("h3", {}, `Table ${table.table} · ${table.code}`, h("span", { class: "tt-where" }, where)),
          h(
            "ol",
            { class: "tt-scores" },
            (players.length ? players : table.players.map((id) => ({ id, name: nameOf(state, id), score: 0 }))).map((p) =>
              h("li", { dataset: { player: p.id } }, h("span", {}, p.name, p.banked ? " ✓ banked" : ""), h("strong", {}, points(p.score))),
            ),
          ),
        );
      }),
    );
  }

  function render(state, previous) {
    document.body.dataset.view = `tournament-${state.status}`;
    setText(el("tt-title"), state.status === "finished" ? "Final standings" : `Game ${state.current} of ${state.games}`);
    document.title = `${el("tt-title").textContent} · TV · tournament ${ctx.code} · bankit`;
    setText(el("tt-line"), {
      playing: "The tables are playing.",
      scoring: "Every table is done: the organiser is scoring the game.",
      reroll: "Ties for places that earn points: sudden-death rerolls!",
      between: `Next: game ${state.current + 1}. The organiser is seating the tables.`,
      finished: "The tournament is over.",
    }[state.status] ?? "");
    const done = state.status === "finished";
    show(el("tt-winner"), done);
    if (done) {
      const list = state.winners.map((id) => nameOf(state, id));
      setText(el("tt-winner"), `★ ${names(list)} ${list.length === 1 ? "wins" : "win"} the tournament!`);
      if (previous && previous.status !== "finished") feel("win");
    }
    watchTables(state);
    drawTables(state);
    show(el("tt-reroll"), state.status === "reroll");
    el("tt-groups").replaceChildren(...rerollGroups(state));
    feed.update(state).then((lines) => {
      if (ctx.state !== state) return;
      show(el("tt-feed-box"), lines.length > 0);
      setText(el("tt-feed-box-title"), `Rerolls of game ${feed.game(state)}`);
      el("tt-feed").start = lines.length;
      el("tt-feed").replaceChildren(...lines.toReversed().slice(0, FEED_LINES).map((line) => h("li", {}, line.text))); // newest first
    });
    const result = state.status === "between" || done ? state.results.at(-1) : null;
    show(el("tt-last"), Boolean(result));
    if (result) {
      el("tt-last").replaceChildren(
        h("h2", {}, `Game ${result.game}`),
        h("p", {}, resultLine(state, result)),
      );
    }
    el("tt-standings").replaceChildren(standingsTable(state));
  }

  return {
    render,
    stale(on) {
      root.querySelector(".tt-page")?.classList.toggle("is-stale", on);
    },
    destroy() {
      for (const room of rooms.values()) room.socket.stop();
      rooms.clear();
      root.replaceChildren();
    },
  };
}
