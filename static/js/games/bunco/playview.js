// A player's phone during the night: its own table big (both teams, who has the dice, the
// last roll and what it scored), its ROLL button or three-dice pad, the bell, where to go
// after the round, RING for the High table, and a strip of the other tables.

import { $, h, setText, show, showCard } from "../../shell/dom.js";
import { dicePad } from "./dicepad.js";
import { announce } from "../../shell/announce.js";
import { movementRule } from "./house.js";
import { movementWords, nameOf, phaseWords, rolloffWords, roundScoresWords, roundWords, seatOf, tableWords } from "./rules.js";
import { stripItem, tableCard } from "./tablecard.js";

export const PLAY = `
  <section id="view-play" class="view bunco-play" hidden aria-labelledby="b-round">
    <div class="status-row">
      <h1 id="b-round" class="b-round"></h1>
    </div>
    <p id="b-phase" class="b-phase" role="status"></p>
    <p id="b-scores" class="b-scores" hidden></p>
    <p id="b-stale" class="stale-note" hidden>not current</p>
    <p id="b-banner" class="b-banner" role="alert" hidden></p>
    <p id="b-next" class="b-next" role="status" hidden></p>
    <p id="b-movement-rule" class="small muted center" hidden></p>
    <div id="b-mine"></div>
    <div class="b-actions" id="b-actions">
      <button id="b-roll" class="roll-big" type="button" hidden>ROLL</button>
      <div id="b-pad" hidden></div>
      <button id="b-ring" class="ring-btn" type="button" hidden>♫ RING: start round</button>
      <p id="b-wait" class="b-wait" hidden></p>
    </div>
    <h2 class="strip-title">Other tables</h2>
    <ul id="b-strip" class="strip"></ul>
  </section>`;

/** Words for a refused roll or ring. */
export function explain(state) {
  return (reply) => {
    if (reply.code === "round_over") return ""; // the banner says it (no toast)
    if (reply.code === "not_your_turn") return "Not your turn: wait for the dice.";
    if (reply.code === "round_in_progress") return "The round is still being played.";
    return reply.message;
  };
}

export function playView(ctx) {
  const card = tableCard(0, { size: "big" });
  $("#b-mine").append(card.el);
  const roll = $("#b-roll");
  const ring = $("#b-ring");
  const pad = dicePad((dice) => sendRoll({ type: "roll", dice }), { label: "Roll" });
  $("#b-pad").append(pad.el);
  let busy = false; // a roll on its way: the button waits for the answer
  roll.addEventListener("click", () => sendRoll({ type: "roll" }));
  ring.addEventListener("click", async () => {
    ring.disabled = true;
    await ctx.command({ type: "ring" }, explain(ctx.state));
    ring.disabled = false;
  });

  async function sendRoll(message) {
    busy = true;
    render(ctx.state);
    const reply = await ctx.command(message, explain(ctx.state), { prompt: true });
    if (!reply.ok && reply.code === "round_over") {
      ctx.banner = { kind: "late", text: "Too late: the bell rang", key: ctx.state.rounds_log.length };
      announce(ctx.banner.text, { urgent: true });
    }
    busy = false;
    render(ctx.state); // after my own roll the button stays disabled: it is not my turn
    if (document.activeElement === document.body && !roll.hidden) roll.focus();
    return reply;
  }

  function render(state) {
    const me = ctx.you?.player_id;
    setText($("#b-round"), roundWords(state));
    const phase = $("#b-phase");
    setText(phase, phaseWords(state));
    phase.dataset.phase = state.phase || "";
    const scores = roundScoresWords(state);
    setText($("#b-scores"), scores);
    show($("#b-scores"), Boolean(scores));
    const mine = seatOf(state.tables, me);
    if (mine) card.update(state, mine.table, me);
    // After the bell the new table has no scores yet: a smaller card, so that where to sit
    // and RING fit the screen.
    card.el.classList.toggle("compact", state.phase === "waiting");
    show($("#b-mine"), Boolean(mine));
    const banner = $("#b-banner");
    show(banner, Boolean(ctx.banner));
    if (ctx.banner) {
      setText(banner, ctx.banner.text);
      banner.dataset.kind = ctx.banner.kind;
    }
    const next = $("#b-next");
    let nextText = "";
    if (state.phase === "rolloff") {
      nextText = state.tables.filter((t) => t.rolloff).map((t) => `⚖ ${rolloffWords(t)}.`).join(" ");
      if (mine && !mine.table.rolloff) nextText += ` Your table waits: ${tableWords(mine.table)} is done.`;
    } else if (state.phase === "waiting" && state.rounds_log.length) {
      nextText = movementWords(state, state.rounds_log.at(-1), me);
    }
    setText(next, nextText);
    showCard(next, Boolean(nextText)); // where to go next: in view, and focused
    const moving = state.phase === "waiting" && Boolean(nextText); // which movement: settle it
    setText($("#b-movement-rule"), moving ? movementRule(state) : "");
    show($("#b-movement-rule"), moving);
    next.dataset.kind = state.phase === "rolloff" ? "rolloff" : "move";

    const live = mine && (state.phase === "playing" || (state.phase === "rolloff" && mine.table.rolloff));
    const myTurn = live && mine.table.roller === me;
    const entry = state.roll_entry;
    show(roll, entry === "virtual" && live);
    roll.disabled = !myTurn || busy;
    setText(roll, myTurn ? "ROLL" : `${nameOf(state, mine?.table.roller)} has the dice`);
    show($("#b-pad"), entry === "roller" && myTurn);
    pad.enable(Boolean(myTurn));
    if (!myTurn) pad.clear();
    const wait = $("#b-wait");
    let waitText = "";
    if (entry === "banker" && live) waitText = "The host enters the dice for every table.";
    else if (entry === "roller" && live && !myTurn) waitText = `${nameOf(state, mine.table.roller)} has the dice: wait for your turn.`;
    else if (state.phase === "waiting" && mine?.table.table === 0) waitText = "Ring when everyone has sat down.";
    else if (state.phase === "waiting") waitText = `Waiting for someone at the High table to ring round ${state.round}.`;
    setText(wait, waitText);
    show(wait, Boolean(waitText));
    const atHigh = mine && mine.table.table === 0;
    show(ring, state.phase === "waiting" && atHigh);
    setText(ring, `♫ RING: start round ${state.round}`);

    const others = state.tables.filter((t) => !mine || t.table !== mine.table.table);
    $("#b-strip").replaceChildren(...others.map((t) => h("li", {}, stripItem(t))));
  }

  return { render };
}
