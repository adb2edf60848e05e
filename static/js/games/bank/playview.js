// The live round, for a player (huge BANK button) and for the banker (dice pad,
// bank on behalf and take it back, undo that says what it takes back, seat a late
// player). The same board for both.

import { board } from "./board.js";
import { rollLine } from "./dice.js";
import { dicePad } from "./dicepad.js";
import { lateSeat } from "./lateseat.js";
import { $, h, points, setText, show } from "../../shell/dom.js";
import { endingText, banks, bankedByBanker, shownRound } from "./roundlog.js";
import { doublesAdd, isDoubles, minBank, nameOf, nextRollSafe, playerById, roundLive, sevenPoints } from "./rules.js";
import { undoPreviewText } from "./words.js";

const TOO_LATE = "Too late — the 7 came first.";

export function playView(ctx) {
  const updateBoard = board($("#board"));
  const padArea = $("#pad-area");
  const padLabel = h("p", { class: "pad-title", id: "pad-title" });
  const pad = dicePad((entered, key) => roll({ type: "roll", ...entered }, key));
  const rollButton = h("button", { type: "button", class: "roll-btn", onclick: () => roll({ type: "roll" }, rollButton) }, "ROLL");
  padArea.append(padLabel, pad.el, rollButton);
  const bankButton = $("#bank-btn");
  const undoButton = $("#undo-btn");
  const undoWhat = $("#undo-what");
  const late = lateSeat(ctx);
  let banking = false;
  let rolling = false;

  // A BANK or a roll means "now": sent only while live, never later (socket.js `prompt`).
  // Not sent (or sent and not answered): the note says so, and the same button is there.
  let notSent = null; // {what: "bank" | "roll", seq, round, sent}: the state it was tapped in
  const notice = $("#tap-note");
  const unsent = (reply, what, state) =>
    ["not_sent", "not_confirmed"].includes(reply.code)
      ? { what, seq: state.seq, round: state.round, sent: reply.code === "not_confirmed" }
      : null;

  bankButton.addEventListener("click", async () => {
    const wasLive = roundLive(ctx.state); // refused as round_over, a live round means the 7 won
    const tapped = ctx.state;
    banking = true;
    notSent = null;
    draw();
    const reply = await ctx.command({ type: "bank" }, (answer) => {
      if (answer.code === "not_sent" || answer.code === "not_confirmed") return null; // said beside the button
      if (answer.code === "round_over") {
        return wasLive || /too late/i.test(answer.message) ? TOO_LATE : "Wait for the first roll of the round.";
      }
      return answer.code === "already_banked" ? null : answer.message;
    }, { prompt: true });
    notSent = unsent(reply, "bank", tapped);
    banking = false;
    draw();
    keepFocus(bankButton);
  });

  undoButton.addEventListener("click", () => ctx.command({ type: "undo" }));

  async function roll(message, pressed) {
    const tapped = ctx.state;
    rolling = true;
    notSent = null;
    draw();
    const reply = await ctx.command(message, (answer) => (unsent(answer, "roll", tapped) ? null : answer.message), { prompt: true });
    notSent = unsent(reply, "roll", tapped);
    rolling = false;
    draw();
    keepFocus(pressed);
  }

  /** The pressed control was disabled while its command waited: give it focus back. */
  function keepFocus(button) {
    if (button && !button.disabled && !button.hidden && document.activeElement === document.body) button.focus();
  }

  /** "Not sent: you were offline", until the game says what became of the tap. */
  function drawNotice(state) {
    if (notSent && outdated(notSent, state)) notSent = null;
    const text = notSent ? notSentText(notSent, state) : offlinePadText();
    setText(notice, text);
    show(notice, Boolean(text));
  }

  /** A note about a tap is over once the game says what became of it: a roll's, at the next
   * roll; a BANK's, once it shows as banked, or (its round over) at the first roll after the
   * phone learnt that the round had ended. */
  function outdated(tap, state) {
    const rolledSince = (seq) => Boolean(state.last_roll && state.last_roll.seq > seq);
    if (tap.what === "roll") return rolledSince(tap.seq);
    if (playerById(state, ctx.you?.player_id)?.banked) return true;
    if (state.round === tap.round) return false;
    tap.learnt ??= state.seq;
    return rolledSince(tap.learnt);
  }

  function notSentText(tap, state) {
    if (tap.what === "bank" && state.round !== tap.round) {
      const ended = state.last_round?.round === tap.round ? state.last_round : null;
      const mine = ended?.banked.find((b) => b.player_id === ctx.you?.player_id);
      if (mine) return `Your BANK got through: you banked ${points(mine.amount)} in round ${tap.round}.`;
      const how = ended?.ended_by === "seven" ? " on a 7" : "";
      return `Not banked: round ${tap.round} ended${how} before your BANK got through.`;
    }
    if (tap.sent) {
      return tap.what === "bank"
        ? "Not confirmed: the connection dropped after you tapped. If it got through, the board shows you banked; if not, tap BANK again."
        : "Not confirmed: the connection dropped after you tapped. Check the last roll before entering it again.";
    }
    return tap.what === "bank"
      ? "Not sent: you were offline. Tap BANK again if you still want to bank."
      : "Not sent: you were offline. Enter the roll again.";
  }

  const offlinePadText = () =>
    ctx.stale && padArea.hidden === false && ctx.you?.role === "banker"
      ? "Offline: the pad takes rolls again once the top bar says ● Live."
      : "";

  function bankFor(player) {
    ctx.command({ type: "bank", player_id: player.id }, (reply) =>
      reply.code === "round_over" ? `${TOO_LATE} ${player.name} was not banked.` : reply.message,
    );
  }

  /** A BANK the banker made for someone by mistake: just that BANK, the rolls stand. */
  function unbank(player) {
    ctx.command({ type: "unbank", player_id: player.id });
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
    setText($("#phase-hint"), safe ? `A 7 adds ${sevenPoints(state)} · doubles add their dots` : `A 7 ends the round · doubles ×2${doublesAdd(state) ? " + the roll" : ""}`);
    $("#phase-hint").dataset.phase = safe ? "safe" : "danger";
    setText($("#bank-total"), points(state.bank));
    $("#bank-box").dataset.phase = safe ? "safe" : "danger";

    const last = $("#last-roll");
    const { ended } = shownRound(state);
    if (state.last_roll && state.roll_count > 0) {
      const roll = state.last_roll;
      const key = `${roll.seq}`;
      if (last.dataset.key !== key) {
        last.dataset.key = key;
        last.replaceChildren(...rollLine(roll, nameOf(state, roll.by), "", isDoubles(roll) ? " (doubles)" : ""));
      }
    } else if (ended && !ctx.banner) {
      const key = `ended-${ended.round}-${state.seq}`;
      if (last.dataset.key !== key) {
        last.dataset.key = key;
        last.replaceChildren(h("span", {}, `${endingText(state, ended)} Round ${state.round}: waiting for the first roll.`));
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
    drawNotice(state);
    updateBoard(state, {
      me: me?.id,
      banks: banks(state),
      byBanker: bankedByBanker(state),
      onBank: banker ? bankFor : null,
      onUnbank: banker ? unbank : null,
    });
    late.render(state, banker);
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
    pad.update(state, usePad && !rolling && !ctx.stale); // not live: no roll is taken
    rollButton.disabled = rolling || ctx.stale;
    setText(rollButton, rolling ? "Rolling…" : banker ? `ROLL for ${turnName}` : "ROLL the dice");
  }

  function drawActions(state, me, banker) {
    show(bankButton, Boolean(me));
    show(undoButton, banker);
    undoButton.disabled = !state.undo_preview;
    // Before the tap, the banker reads exactly what it will take back.
    const what = undoPreviewText(state);
    setText(undoWhat, what); // the button's name: "Undo last roll: takes back Ann's 9"
    if (!me) return;
    const amount = banks(state).get(me.id);
    bankButton.classList.toggle("done", me.banked);
    if (me.banked) {
      setText(bankButton, amount === undefined ? "✓ You banked" : `✓ You banked ${points(amount)}`);
      bankButton.disabled = true;
    } else if (!roundLive(state)) {
      setText(bankButton, "BANK opens after the first roll");
      bankButton.disabled = true;
    } else if (me.waiting) {
      setText(bankButton, "BANK opens after the next roll");
      bankButton.disabled = true;
    } else if (state.bank < minBank(state)) {
      setText(bankButton, `BANK opens at ${points(minBank(state))} (now ${points(state.bank)})`);
      bankButton.disabled = true;
    } else if (banking) {
      setText(bankButton, "Banking…");
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
