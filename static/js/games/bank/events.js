// What happened between two states, in words. States may be coalesced (seqs
// skipped), so everything here is read from differences, never counted.

import { names, points } from "../../shell/dom.js";
import { endingText, shownRound } from "./roundlog.js";
import { doublesAdd, isDoubles, nameOf, safeRolls, totalOf } from "./rules.js";
import { listTaken } from "./words.js";

/**
 * [{kind: "start"|"roll"|"bank"|"round"|"undo"|"unbank"|"join"|"finished", text, ...}]
 * roll: {doubles}; bank: {player_id, amount}; round: {entry, waited: [player_id]}
 */
export function diff(prev, next) {
  if (!prev || next.seq <= prev.seq) return [];
  const events = [];
  if (prev.status === "lobby" && next.status !== "lobby") {
    events.push({ kind: "start", text: `Game on! Round 1 of ${next.rounds}.` });
  }
  const undone =
    (prev.last_roll && (!next.last_roll || next.last_roll.seq < prev.last_roll.seq)) ||
    next.rounds_log.length < prev.rounds_log.length;
  if (undone) {
    // What it took back is what the state before it said an undo would take back.
    const taken = prev.undo_preview?.takes_back;
    const text = taken?.length
      ? `The banker took back ${listTaken(prev, taken)}.`
      : "The banker took back the last roll.";
    events.push({ kind: "undo", text });
    return events;
  }
  const correction = next.last_correction;
  if (correction && correction.seq !== prev.last_correction?.seq && correction.type === "unbank") {
    events.push({ kind: "unbank", text: `The banker took back ${listTaken(prev, correction.took_back)}.` });
  }
  const fresh = next.last_roll && (!prev.last_roll || next.last_roll.seq > prev.last_roll.seq);
  const endedRounds = next.rounds_log.slice(prev.rounds_log.length);
  // Banks made in rounds that ended meanwhile, then in the live round.
  for (const entry of endedRounds) {
    for (const b of entry.banked) {
      if (b.seq > prev.seq) events.push(bankEvent(next, b.player_id, b.amount));
    }
  }
  const before = new Map(prev.players.map((p) => [p.id, p]));
  if (!endedRounds.length) {
    for (const player of next.players) {
      const old = before.get(player.id);
      if (player.banked && old && !old.banked) {
        events.push(bankEvent(next, player.id, player.score - old.score));
      }
    }
  }
  if (prev.status !== "lobby") {
    for (const player of next.players) {
      if (before.has(player.id)) continue;
      const when = player.waiting ? "BANK from the next roll on" : "plays from the next round";
      events.push({ kind: "join", text: `${player.name} joined late: ${when}.` });
    }
  }
  if (fresh) events.unshift(rollEvent(prev, next, endedRounds));
  for (const entry of endedRounds) events.push(roundEvent(next, entry));
  if (prev.status !== "finished" && next.status === "finished") {
    const winners = next.winners.map((id) => nameOf(next, id));
    const top = next.players.find((p) => p.id === next.winners[0]);
    events.push({
      kind: "finished",
      text: `Game over! ${names(winners)} ${winners.length > 1 ? "win" : "wins"} with ${points(top ? top.score : 0)}.`,
    });
  }
  return events;
}

/** The feed of a page that opens mid-game, oldest first, from the state alone: the rounds
 * before (who banked, how each ended: `rounds_log` keeps no rolls), then the round so far
 * (or how the last one ended, roll by roll). */
export function feedSoFar(state) {
  if (state.status !== "playing") return [];
  const { rolls, ended } = shownRound(state);
  const before = ended ? state.rounds_log.slice(0, -1) : state.rounds_log;
  return [...before.flatMap((entry) => roundEnding(state, entry)), ...thisRound(state, rolls, ended)];
}

/** An ended round's BANKs and its ending line. */
const roundEnding = (state, entry) => [
  ...[...entry.banked].sort((x, y) => x.seq - y.seq).map((b) => bankItem(state, b)),
  { kind: "round", text: endingText(state, entry) },
];

const bankItem = (state, b) => ({ seq: b.seq, kind: "bank", text: `${nameOf(state, b.player_id)} banked ${points(b.amount)}.` });

function thisRound(state, rolls, ended) {
  const items = [];
  rolls.forEach((roll, index) => {
    const before = index === 0 ? 0 : rolls[index - 1].bank_after;
    items.push({ seq: roll.seq, kind: "roll", text: rollText(state, roll, index + 1, before, roll.bank_after) });
  });
  if (ended) {
    for (const b of ended.banked) items.push(bankItem(state, b));
    items.push({ seq: Infinity, kind: "round", text: endingText(state, ended) });
  } else {
    for (const b of state.round_log?.banks || []) items.push(bankItem(state, b));
  }
  return items.sort((x, y) => x.seq - y.seq);
}

function bankEvent(state, playerId, amount) {
  return { kind: "bank", player_id: playerId, amount, text: `${nameOf(state, playerId)} banked ${points(amount)}.` };
}

/** What doubles in danger do: "doubles: BANK ×2", or "doubles: BANK ×2 + 8" (house rules). */
const doublesText = (state, roll) => `doubles: BANK ×2${doublesAdd(state) ? ` + ${totalOf(roll)}` : ""}`;

/** "Ann rolled 9: +9." / "Ann rolled 4+4: doubles: BANK ×2." / "Ann rolled 7: the round is over." */
function rollText(state, roll, number, before, after) {
  const who = nameOf(state, roll.by);
  const shown = roll.dice ? `${roll.dice[0]}+${roll.dice[1]}` : `${totalOf(roll)}`;
  let effect;
  if (after === null) effect = "the round is over";
  else if (isDoubles(roll) && number > safeRolls(state)) effect = doublesText(state, roll);
  else effect = `+${points(after - before)}`;
  return `${who} rolled ${shown}: ${effect}.`;
}

function rollEvent(prev, next, endedRounds) {
  const roll = next.last_roll;
  const doubles = isDoubles(roll);
  const seven = endedRounds.some((r) => r.ended_by === "seven") && totalOf(roll) === 7;
  const shown = roll.dice ? `${roll.dice[0]}+${roll.dice[1]}` : `${totalOf(roll)}`;
  const who = nameOf(next, roll.by);
  let effect;
  if (seven) effect = "the round is over";
  else if (next.round === prev.round && doubles && next.roll_count > safeRolls(next)) effect = doublesText(next, roll);
  else if (next.round === prev.round) effect = `+${points(next.bank - prev.bank)}`;
  else effect = `${totalOf(roll)}`;
  return { kind: "roll", doubles, seven, text: `${who} rolled ${shown}: ${effect}.` };
}

function roundEvent(state, entry) {
  const bankedIds = new Set(entry.banked.map((b) => b.player_id));
  const waited = state.players.filter((p) => !bankedIds.has(p.id)).map((p) => p.id);
  const text =
    entry.ended_by === "seven"
      ? `7! Round ${entry.round} is over: the BANK of ${points(entry.bank)} is lost${waited.length ? `; ${names(waited.map((id) => nameOf(state, id)))} had not banked` : ""}.`
      : `Everyone banked: round ${entry.round} is over.`;
  return { kind: "round", entry, waited, text };
}

/** What a phone that was away missed, in words: "You're back: you missed 3 rolls." */
export function missedText(prev, next) {
  if (!prev || prev.status === "lobby") return "";
  if (next.status === "finished" && prev.status !== "finished") return "You're back: the game ended meanwhile.";
  const rounds = next.rounds_log.length - prev.rounds_log.length;
  if (rounds > 1) return `You're back: you missed ${rounds} rounds.`;
  const rolls = [...(next.last_round?.rolls || []), ...(next.round_log?.rolls || [])].filter((r) => r.seq > prev.seq).length;
  if (!rolls) return "You're back: you missed nothing.";
  return `You're back: you missed ${rolls} ${rolls === 1 ? "roll" : "rolls"}${rounds ? " and the end of a round" : ""}.`;
}
