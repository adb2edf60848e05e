// The tournament's phone page (/t/CODE) past the lobby, for the organiser and for each
// player: the tables of the game in play (and the way to them), scoring, the rerolls as
// they land, the seating of the next game, the standings, the final screen.
// Interface: docs/ui.md, "How a game's pages plug in".

import { announce } from "../../shell/announce.js";
import { $, h, names, ordinal, plural, setText, show, showCard } from "../../shell/dom.js";
import { feel } from "../../shell/feel.js";
import { isHost } from "../../shell/games.js";
import { dicePicker } from "./dicepick.js";
import { RerollFeed } from "./feed.js";
import { Seating } from "./seating.js";
import {
  nameOf,
  namesOf,
  placesText,
  rerollGroups,
  resultLine,
  scoresheetUrl,
  standingsTable,
} from "./standings.js";
import { organiserTables, seatAt, tableLink, tablesSummary } from "./tables.js";

const FEED_LINES = 24; // the newest rerolls shown (all are in the log and the scoresheet's places)
export const styles = ["/static/css/games/tournament.css"];

const ENTRY_TEXT = {
  banker: "each table's banker enters the dice",
  roller: "each roller enters their own roll",
  virtual: "virtual dice",
};

let active = null; // the mounted organiser page: {ctx, seating, panel}, for the lobby's seating

export const lobby = {
  settings: (state) =>
    `${plural(state.games, "game")} of ${plural(state.rounds, "round")} · ${ENTRY_TEXT[state.roll_entry] || state.roll_entry}`,
  waiting: "Waiting for the organiser to start…",
  howto: {
    title: "How the tournament works (30 seconds)",
    items: () => [
      "Every game is a whole game of BANK! at your table; the organiser seats the tables.",
      "After each game everyone is ranked by score: 1st earns 3 points, 2nd 2, 3rd 1.5, 4th 1, 5th 0.5.",
      "A tie for a place that earns points is broken by a reroll: each tied player rolls two dice, highest wins.",
      "In a tournament of two games or more, winning every game earns a bonus of 3. Most points at the end wins.",
    ],
  },
  /** The organiser's lobby: the seating panel (drawn here, into the shell's lobby) decides `next`. */
  start: (state) => {
    if (!active) return { command: { type: "next" } };
    active.seating.sync(state.players);
    drawLobbySeating(state);
    return active.seating.start(state.players, 1);
  },
};

function drawLobbySeating(state) {
  const { seating, panel } = active;
  seating.draw($(".t-seating", panel), state.players, () => {
    drawLobbySeating(state);
    const start = seating.start(state.players, 1);
    const button = $("#start-btn");
    button.disabled = !start.enabled;
    setText(button, start.label);
  });
}

const TITLES = {
  playing: (s) => `Game ${s.current} of ${s.games}`,
  scoring: (s) => `Game ${s.current} of ${s.games}: every table is done`,
  reroll: (s) => `Game ${s.current}: rerolls`,
  between: (s) => `After game ${s.current} of ${s.games}`,
  finished: () => "Final standings",
};

const MARKUP = `
  <section id="t-view" class="view narrow t-page" aria-labelledby="t-title">
    <h1 id="t-title"></h1>
    <p id="t-winner" class="t-winner" role="status" hidden></p>
    <p id="t-line" class="t-line" role="status" aria-live="polite"></p>
    <div id="t-go" class="actionbar static" hidden></div>
    <div id="t-reroll" class="card t-reroll" hidden aria-labelledby="t-reroll-title">
      <h2 id="t-reroll-title">Rerolls</h2>
      <p id="t-again" class="t-again" role="status" hidden></p>
      <div id="t-prompt"></div>
      <div id="t-groups"></div>
    </div>
    <div id="t-feed-box" class="card" hidden>
      <h2 id="t-feed-box-title">Rerolls</h2>
      <ol id="t-feed" class="t-feed" reversed></ol>
    </div>
    <div id="t-last" class="card" hidden></div>
    <div id="t-tables-box" hidden>
      <h2 id="t-tables-title">Tables</h2>
      <ul id="t-tables" class="t-cards"></ul>
    </div>
    <div id="t-seat-box" class="card" hidden>
      <h2 id="t-seat-title">Seating</h2>
      <div class="t-seating"></div>
    </div>
    <div id="t-act" class="actionbar static sticky" hidden></div>
    <div class="card t-standings-card">
      <div id="t-standings" class="t-scroll" tabindex="0" role="region" aria-label="Standings (scrolls sideways)"></div>
      <p class="t-links">
        <a id="t-csv" download>Download the scoresheet (CSV)</a>
        <button type="button" class="secondary" id="t-print">Print the standings</button>
      </p>
    </div>
  </section>`;

export function mount(ctx, root) {
  root.innerHTML = MARKUP;
  const el = (id) => $(`#${id}`, root);
  const host = isHost(ctx.you);
  const seating = new Seating();
  const feed = new RerollFeed(ctx.code);
  let panel = null;
  el("t-csv").href = scoresheetUrl(ctx.code);
  el("t-print").addEventListener("click", () => window.print());

  if (host) {
    panel = h("section", { class: "card t-lobby-seating", id: "t-lobby-seating" }, h("h2", {}, "Seating for game 1"), h("div", { class: "t-seating" }));
    $("#lobby-start")?.before(panel);
    active = { ctx, seating, panel };
  }

  const me = () => ctx.you?.player_id ?? null;
  const myTable = (state) => state.tables.find((t) => t.players.includes(me()));

  function render(state, previous) {
    document.body.dataset.view = `tournament-${state.status}`;
    setText(el("t-title"), TITLES[state.status]?.(state) ?? state.status);
    document.title = `${ctx.code} · ${TITLES[state.status]?.(state) ?? ""} · bankit`;
    drawLine(state);
    drawWinner(state);
    drawGo(state, previous);
    drawReroll(state, previous);
    drawLast(state);
    drawTables(state);
    drawSeating(state);
    drawActions(state);
    el("t-standings").replaceChildren(standingsTable(state, me()));
  }

  function drawLine(state) {
    const mine = myTable(state);
    const others = mine ? mine.players.filter((id) => id !== me()) : [];
    let text = "";
    if (host) {
      text = {
        playing: "Open each table as its banker and start it, or hand it to a scorekeeper.",
        scoring: `Every table of game ${state.current} is finished: score it to rank the players.`,
        reroll: "Ties for places that earn points: each tied player rolls two dice.",
        between: `Seat game ${state.current + 1} and start it.`,
        finished: "The tournament is over.",
      }[state.status];
    } else if (state.status === "playing" || state.status === "scoring") {
      text = mine
        ? `You play at table ${mine.table}${others.length ? ` with ${namesOf(state, others)}` : ""}.`
        : `You sit out game ${state.current}.`;
      if (mine?.status === "finished" && state.status === "playing") text += " Your table is done: waiting for the other tables.";
      if (state.status === "scoring") text += ` Waiting for the organiser to score game ${state.current}.`;
    } else if (state.status === "reroll") text = "Ties are being rerolled.";
    else if (state.status === "between") text = `Waiting for the organiser to seat game ${state.current + 1}…`;
    else if (state.status === "finished") {
      const row = state.standings.find((r) => r.player_id === me());
      text = row ? `You finished ${ordinal(row.rank)} with ${row.total} points.` : "The tournament is over.";
    }
    setText(el("t-line"), text);
  }

  function drawWinner(state) {
    const done = state.status === "finished";
    show(el("t-winner"), done);
    if (!done) return;
    const list = state.winners.map((id) => nameOf(state, id));
    setText(el("t-winner"), `★ ${names(list)} ${list.length === 1 ? "wins" : "win"} the tournament!`);
  }

  /** A player's way to its live table; sent there by itself once per game (not again after
   * "back"). A finished table is not offered: the line above says it is done. */
  function drawGo(state) {
    const table = !host && state.status === "playing" ? myTable(state) : null;
    const mine = table?.status === "finished" ? null : table;
    show(el("t-go"), Boolean(mine));
    if (!mine) return;
    el("t-go").replaceChildren(tableLink(ctx, mine, `Go to table ${mine.table}`, "button primary big"));
    const key = `bankit:went:${ctx.code}`;
    let went = null;
    try {
      went = sessionStorage.getItem(key);
      sessionStorage.setItem(key, String(state.current));
    } catch {
      went = String(state.current); // no session store: never bounce
    }
    if (went !== String(state.current)) {
      seatAt(ctx, mine);
      location.assign(`/r/${mine.code}`);
    }
  }

  /** A group whose reroll tied again comes back with no rolls: say so, until its next roll. */
  const rolledIn = (group) => Object.values(group.rolls).filter(Boolean).length;
  let heard = null; // reroll lines already said
  const tiedAgain = new Map(); // players (sorted, joined) -> words
  function noteTiesAgain(state, previous) {
    const before = previous?.reroll?.groups ?? [];
    const groups = state.reroll?.groups ?? [];
    for (const group of groups) {
      const key = [...group.players].sort().join(",");
      const rolled = rolledIn(group);
      const was = before.find((g) => group.players.every((id) => g.players.includes(id)));
      if (!rolled && was && rolledIn(was)) {
        tiedAgain.set(key, `Tied again! ${namesOf(state, group.players)} roll again for ${placesText(group.places)}.`);
      }
      if (rolled) tiedAgain.delete(key);
    }
    for (const key of tiedAgain.keys()) if (!groups.some((g) => [...g.players].sort().join(",") === key)) tiedAgain.delete(key);
    const text = [...tiedAgain.values()].join(" ");
    if (text && text !== el("t-again").textContent) announce(text, { urgent: true });
    setText(el("t-again"), text);
    show(el("t-again"), Boolean(text));
  }

  function drawReroll(state, previous) {
    const pending = state.status === "reroll";
    showCard(el("t-reroll"), pending); // a tie to reroll: in view, and focused
    noteTiesAgain(state, previous);
    if (pending) {
      el("t-prompt").replaceChildren(...prompt(state));
      el("t-groups").replaceChildren(...rerollGroups(state));
      const wasMine = previous?.reroll?.groups?.some((g) => g.players.includes(me()) && !g.rolls[me()]);
      if (!wasMine && mustRoll(state)) feel("mine");
    }
    feed.update(state).then((lines) => {
      if (ctx.state !== state) return;
      show(el("t-feed-box"), lines.length > 0);
      setText(el("t-feed-box-title"), `Rerolls of game ${feed.game(state)}`);
      el("t-feed").start = lines.length;
      el("t-feed").replaceChildren(...lines.toReversed().slice(0, FEED_LINES).map((line) => h("li", {}, line.text))); // newest first
      if (heard !== null && lines.length > heard) for (const line of lines.slice(heard)) announce(line.text);
      heard = lines.length; // what was there when the page opened is not read out again
    });
  }

  const mustRoll = (state) =>
    !host && (state.reroll?.groups ?? []).some((g) => g.players.includes(me()) && !g.rolls[me()]);

  /** What this phone must do for the pending rerolls. */
  function prompt(state) {
    const groups = state.reroll?.groups ?? [];
    if (!host) {
      const group = groups.find((g) => g.players.includes(me()));
      if (!group) return [h("p", {}, "You are in no tie: watch the rerolls land.")];
      const rivals = namesOf(state, group.players.filter((id) => id !== me()));
      if (group.rolls[me()]) return [h("p", {}, `You rolled. Waiting for ${rivals}…`)];
      const head = h("p", { class: "t-ask" }, `You tie with ${rivals} for ${placesText(group.places)}: roll two dice!`);
      if (state.roll_entry === "virtual") {
        return [head, h("button", { type: "button", class: "primary big", onclick: (e) => reroll(e, {}) }, "ROLL to break the tie")];
      }
      if (state.roll_entry === "roller") return [head, dicePicker(me(), { name: "You", whose: "your" }, (dice) => reroll(null, { dice }))];
      return [head, h("p", {}, "Throw two dice and call them out: the organiser enters your roll.")];
    }
    const items = [];
    for (const group of groups) {
      for (const id of group.players) {
        if (group.rolls[id]) continue;
        const who = nameOf(state, id);
        if (state.roll_entry === "virtual") {
          items.push(h("button", { type: "button", class: "secondary", onclick: (e) => reroll(e, { player_id: id }) }, `Roll for ${who}`));
        } else {
          items.push(h("div", { class: "t-enter" }, h("h3", {}, `${who}'s roll`), dicePicker(id, { name: who, whose: `${who}'s` }, (dice) => reroll(null, { player_id: id, dice }))));
        }
      }
    }
    if (state.roll_entry === "virtual") items.unshift(h("p", { class: "small muted" }, "Players tap ROLL on their phones; you may roll for anyone without one."));
    return items;
  }

  const reroll = (event, fields) => send(event, { type: "reroll", ...fields });

  function drawLast(state) {
    const result = state.status === "between" || state.status === "finished" ? state.results.at(-1) : null;
    show(el("t-last"), Boolean(result));
    if (!result) return;
    el("t-last").replaceChildren(
      h("h2", {}, `Game ${result.game}`),
      h("p", {}, resultLine(state, result)),
    );
  }

  function drawTables(state) {
    const live = state.status === "playing" || state.status === "scoring";
    show(el("t-tables-box"), live);
    if (!live) return;
    setText(el("t-tables-title"), `Tables of game ${state.current}`);
    el("t-tables").replaceChildren(...(host ? organiserTables(ctx, state, () => drawTables(ctx.state)) : tablesSummary(state)));
  }

  function drawSeating(state) {
    const open = host && state.status === "between";
    show(el("t-seat-box"), open);
    if (!open) return;
    seating.sync(state.players);
    setText(el("t-seat-title"), `Seating for game ${state.current + 1}`);
    seating.draw($(".t-seating", el("t-seat-box")), state.players, () => {
      drawSeating(ctx.state);
      drawActions(ctx.state);
    });
  }

  function drawActions(state) {
    const act = el("t-act");
    let button = null;
    if (host && state.status === "scoring") {
      button = h("button", { type: "button", class: "primary big", onclick: (e) => send(e, { type: "score" }) }, `Score game ${state.current}`);
    } else if (host && state.status === "between") {
      const start = seating.start(state.players, state.current + 1);
      button = h("button", { type: "button", class: "primary big", disabled: !start.enabled, onclick: (e) => send(e, start.command) }, start.label);
    }
    show(act, Boolean(button));
    act.replaceChildren(...(button ? [button] : []));
  }

  /** Send once: the button waits for the answer (a refusal, said in a toast, frees it). */
  async function send(event, command) {
    const button = event?.currentTarget;
    if (button) button.disabled = true;
    const reply = await ctx.command(command);
    if (button && !reply.ok) button.disabled = false;
  }

  return {
    render,
    stale(on) {
      root.querySelector(".t-page")?.classList.toggle("is-stale", on);
    },
    destroy() {
      panel?.remove();
      active = null;
      root.replaceChildren();
    },
  };
}
