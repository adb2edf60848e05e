// The live round, for a player (huge BANK button) and for the banker (dice pad,
// bank on behalf, undo). The same board for both.

import { board } from "./board.js";
import { pair } from "./dice.js";
import { dicePad } from "./dicepad.js";
import { $, h, points, setText, show } from "../../shell/dom.js";
import { nameOf, nextRollSafe, playerById, roundLive } from "./rules.js";

const TOO_LATE = "Too late — the 7 came first.";

export function playView(ctx) {
  const updateBoard = board($("#board"));
  const padArea = $("#pad-area");
  const padLabel = h("p", { class: "pad-title", id: "pad-title" });
  const pad = dicePad((dice) => roll({ type: "roll", dice }));
  const rollButton = h("button", { type: "button", class: "roll-btn", onclick: () => roll({ type: "roll" }) }, "ROLL");
  padArea.append(padLabel, pad.el, rollButton);
  const bankButton = $("#bank-btn");
  const undoButton = $("#undo-btn");
  let banking = false;
  let rolling = false;

  bankButton.addEventListener("click", async () => {
    const wasLive = roundLive(ctx.state); // refused as round_over, a live round means the 7 won
    banking = true;
    draw();
    await ctx.command({ type: "bank" }, (reply) => {
      if (reply.code === "round_over") return wasLive ? TOO_LATE : "Wait for the first roll of the round.";
      return reply.code === "already_banked" ? null : reply.message;
    });
    banking = false;
    draw();
  });

  undoButton.addEventListener("click", () => ctx.command({ type: "undo" }));

  async function roll(message) {
    rolling = true;
    draw();
    await ctx.command(message);
    rolling = false;
    draw();
  }

  function bankFor(player) {
    ctx.command({ type: "bank", player_id: player.id }, (reply) =>
      reply.code === "round_over" ? `${TOO_LATE} ${player.name} was not banked.` : reply.message,
    );
  }

  function draw() {
    if (ctx.state?.status === "playing") render(ctx.state);
  }

  function render(state) {
    const banker = ctx.you?.role === "banker";
    const me = playerById(state, ctx.you?.player_id);
    document.body.classList.toggle("is-banker", banker);

    setText($("#round-info"), `Round ${state.round} of ${state.rounds}`);
    const safe = nextRollSafe(state);
    const phase = $("#phase");
    phase.dataset.phase = safe ? "safe" : "danger";
    const rolls = `${state.roll_count} ${state.roll_count === 1 ? "roll" : "rolls"}`;
    setText(phase, safe ? `✓ SAFE · ${rolls}` : `⚠ DANGER · ${rolls}`);
    setText($("#phase-hint"), safe ? "A 7 adds 70 · doubles add their dots" : "A 7 ends the round · doubles ×2");
    $("#phase-hint").dataset.phase = safe ? "safe" : "danger";
    setText($("#bank-total"), points(state.bank));
    $("#bank-box").dataset.phase = safe ? "safe" : "danger";

    const last = $("#last-roll");
    if (state.last_roll && state.roll_count > 0) {
      const [a, b] = state.last_roll.dice;
      const key = `${state.last_roll.seq}`;
      if (last.dataset.key !== key) {
        last.dataset.key = key;
        last.replaceChildren(pair([a, b]), h("span", {}, `${nameOf(state, state.last_roll.by)} rolled ${a + b}${a === b ? " (doubles)" : ""}`));
      }
    } else if (last.dataset.key !== `new-${state.round}`) {
      last.dataset.key = `new-${state.round}`;
      last.replaceChildren(h("span", {}, `Round ${state.round}: waiting for the first roll`));
    }
    setText($("#turn"), turnText(state, me, banker));

    const banner = $("#banner");
    show(banner, Boolean(ctx.banner));
    if (ctx.banner) {
      setText(banner, ctx.banner.text);
      banner.dataset.kind = ctx.banner.kind;
    }

    drawPad(state, me, banker);
    drawActions(state, me, banker);
    updateBoard(state, {
      me: me?.id,
      banks: ctx.tracker.banks,
      onBank: banker ? bankFor : null,
    });
  }

  function drawPad(state, me, banker) {
    const turnName = nameOf(state, state.turn);
    const myTurn = me && state.turn === me.id && !me.banked;
    const mode = state.roll_entry;
    let label = "";
    let usePad = false;
    let useButton = false;
    if (banker) {
      usePad = mode !== "virtual";
      useButton = mode === "virtual";
      label = ""; // the turn line says whose roll it is
    } else if (myTurn && mode === "roller") {
      usePad = true;
      label = "Your roll: tap what you threw";
    } else if (myTurn && mode === "virtual") {
      useButton = true;
      label = "Your turn to roll";
    }
    show(padArea, usePad || useButton);
    document.body.classList.toggle("has-pad", usePad);
    setText(padLabel, label);
    show(padLabel, Boolean(label));
    show(pad.el, usePad);
    show(rollButton, useButton);
    pad.update(state, usePad && !rolling);
    rollButton.disabled = rolling;
    setText(rollButton, rolling ? "Rolling…" : banker ? `ROLL for ${turnName}` : "ROLL the dice");
  }

  function drawActions(state, me, banker) {
    show(bankButton, Boolean(me));
    show(undoButton, banker);
    undoButton.disabled = !state.last_roll;
    if (!me) return;
    const amount = ctx.tracker.banks.get(me.id);
    bankButton.classList.toggle("done", me.banked);
    if (me.banked) {
      setText(bankButton, amount === undefined ? "✓ You banked" : `✓ You banked ${points(amount)}`);
      bankButton.disabled = true;
    } else if (!roundLive(state)) {
      setText(bankButton, "BANK opens after the first roll");
      bankButton.disabled = true;
    } else if (banking) {
      setText(bankButton, ctx.socket.live ? "Banking…" : "Banking… (reconnecting)");
      bankButton.disabled = true;
    } else {
      setText(bankButton, `BANK ${points(state.bank)}`);
      bankButton.disabled = false;
    }
  }

  return { render };
}

function turnText(state, me, banker) {
  const who = nameOf(state, state.turn);
  if (me?.banked) return "You sit out the rest of this round.";
  if (me && state.turn === me.id) {
    if (state.roll_entry === "banker") return "▶ Your roll! Throw, and call the total.";
    return state.roll_entry === "virtual" ? "▶ Your turn: tap ROLL." : "▶ Your roll! Enter it below.";
  }
  if (banker && state.roll_entry === "banker") return `▶ Enter ${who}'s roll`;
  if (banker && state.roll_entry === "roller") return `▶ ${who} enters the roll (or tap it here)`;
  return `▶ ${who} rolls next`;
}
