// The host's page (the banker) during the night: every table at once, the round, set and
// bell (RING), undo of the last roll (saying which one), and in banker mode a three-dice
// pad per table; in virtual mode "Roll for …" per table, for players without a phone.

import { roomLog, tvPath } from "../../shell/api.js";
import { $, h, setText, show } from "../../shell/dom.js";
import { dicePad } from "./dicepad.js";
import { nameOf, phaseWords, roundScoresWords, roundWords, scoresheetUrl } from "./rules.js";
import { tableCard } from "./tablecard.js";

export const HOST = `
  <section id="view-host" class="view bunco-host" hidden aria-labelledby="h-round">
    <div class="status-row">
      <h1 id="h-round" class="b-round"></h1>
    </div>
    <p id="h-phase" class="b-phase" role="status"></p>
    <p id="h-scores" class="b-scores" hidden></p>
    <p id="h-banner" class="b-banner" role="alert" hidden></p>
    <div class="host-bar">
      <button id="h-ring" class="ring-btn" type="button">♫ RING</button>
      <button id="h-undo" class="undo-btn" type="button">↶ Undo the last roll</button>
    </div>
    <div id="h-tables" class="host-tables"></div>
    <p class="host-links">
      <a class="button secondary" id="h-sheet" href="#" download>Download the scoresheet (CSV)</a>
      <a class="button secondary" id="h-tv" href="#" target="_blank" rel="noopener">Open the TV view</a>
    </p>
  </section>`;

export function hostView(ctx) {
  const cards = [];
  const ring = $("#h-ring");
  const undo = $("#h-undo");
  let undoFor = -1; // the seq whose undo label was looked up in the log
  $("#h-sheet").href = scoresheetUrl(ctx.code);
  $("#h-tv").href = tvPath(ctx.code, ctx.collection);
  ring.addEventListener("click", async () => {
    ring.disabled = true;
    await ctx.command({ type: "ring" });
    ring.disabled = false;
  });
  undo.addEventListener("click", async () => {
    undo.disabled = true;
    await ctx.command({ type: "undo" });
    undo.disabled = false;
  });

  function build(state) {
    const root = $("#h-tables");
    root.replaceChildren();
    cards.length = 0;
    for (const table of state.tables) {
      const card = tableCard(table.table);
      const index = table.table;
      const send = (dice) => ctx.command({ type: "roll", table: index, ...(dice ? { dice } : {}) });
      let control = null;
      if (state.roll_entry === "virtual") {
        control = h("button", { type: "button", class: "roll-for secondary", onclick: () => send(null) }, "Roll");
        card.el.append(control);
      } else {
        control = dicePad(send, { label: "Enter" });
        const box = state.roll_entry === "banker"
          ? h("div", { class: "host-pad" }, control.el)
          : h("details", { class: "host-pad" }, h("summary", {}, "Enter a roll for this table"), control.el);
        card.el.append(box);
      }
      root.append(card.el);
      cards.push({ card, control });
    }
  }

  /** "Undo Bob's 3 · 3 · 1 at the High table (+2)": the newest roll still in the state,
   * else (after a bell, whose roll the state no longer shows) the log's last roll. */
  function undoLabel(state) {
    let newest = null;
    for (const t of state.tables) if (t.last_roll && (!newest || t.last_roll.seq > newest.roll.seq)) newest = { t, roll: t.last_roll };
    const fromState = newest && (state.phase === "playing" || state.phase === "rolloff" || state.status === "finished");
    if (fromState) {
      const { t, roll } = newest;
      return `↶ Undo ${nameOf(state, roll.by)}'s ${roll.dice.join(" · ")} at the ${t.name} table`;
    }
    if (undoFor !== state.seq) {
      undoFor = state.seq;
      setText(undo, "↶ Undo the last roll");
      roomLog(ctx.code, ctx.collection)
        .then(({ events }) => {
          if (ctx.state.seq !== state.seq) return;
          const last = [...events].reverse().find((e) => e.type === "roll");
          if (!last) return;
          const name = state.tables[last.data.table]?.name ?? "";
          const after = events.slice(events.indexOf(last) + 1).some((e) => e.type === "ring");
          setText(undo, `↶ Undo ${nameOf(state, last.data.player_id)}'s ${last.data.dice.join(" · ")} at the ${name} table${after ? " (and the ring after it)" : " (the bell roll)"}`);
        })
        .catch(() => {});
    }
    return null;
  }

  function render(state) {
    if (cards.length !== state.tables.length) build(state);
    setText($("#h-round"), roundWords(state));
    const phase = $("#h-phase");
    setText(phase, phaseWords(state));
    phase.dataset.phase = state.phase || "";
    const scores = roundScoresWords(state);
    setText($("#h-scores"), scores);
    show($("#h-scores"), Boolean(scores));
    const banner = $("#h-banner");
    show(banner, Boolean(ctx.banner));
    if (ctx.banner) {
      setText(banner, ctx.banner.text);
      banner.dataset.kind = ctx.banner.kind;
    }
    ring.disabled = state.phase !== "waiting";
    setText(ring, state.phase === "waiting" ? `♫ RING: start round ${state.round}` : "♫ RING (after the bell)");
    const label = undoLabel(state);
    if (label) {
      undoFor = -1;
      setText(undo, label);
    }
    state.tables.forEach((table, i) => {
      const { card, control } = cards[i];
      card.update(state, table);
      const live = state.status === "playing" && (state.phase === "playing" || table.rolloff);
      if (state.roll_entry === "virtual") {
        control.disabled = !live;
        setText(control, live ? `Roll for ${nameOf(state, table.roller)}` : "Roll (no round live)");
      } else {
        control.enable(live);
      }
    });
  }

  return { render };
}
