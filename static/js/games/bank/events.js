// What happened between two states, in words. States may be coalesced (seqs
// skipped), so everything here is read from differences, never counted.

import { names, points } from "../../shell/dom.js";
import { SAFE_ROLLS, nameOf } from "./rules.js";

/**
 * [{kind: "start"|"roll"|"bank"|"round"|"undo"|"finished", text, ...}]
 * bank: {player_id, amount}; round: {entry, waited: [player_id]}
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
    events.push({ kind: "undo", text: "The banker took back the last roll." });
    return events;
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

function bankEvent(state, playerId, amount) {
  return { kind: "bank", player_id: playerId, amount, text: `${nameOf(state, playerId)} banked ${points(amount)}.` };
}

function rollEvent(prev, next, endedRounds) {
  const [a, b] = next.last_roll.dice;
  const who = nameOf(next, next.last_roll.by);
  const total = a + b;
  const sevenEnded = endedRounds.some((r) => r.ended_by === "seven");
  let effect;
  if (sevenEnded && total === 7) effect = "7: the round is over";
  else if (next.round === prev.round && a === b && next.roll_count > SAFE_ROLLS) effect = "doubles: BANK ×2";
  else if (next.round === prev.round) effect = `+${points(next.bank - prev.bank)}`;
  else effect = `${total}`;
  return { kind: "roll", dice: [a, b], text: `${who} rolled ${a}+${b}: ${effect}.` };
}

function roundEvent(state, entry) {
  const bankedIds = new Set(entry.banked.map((b) => b.player_id));
  const waited = state.players.filter((p) => !bankedIds.has(p.id)).map((p) => p.id);
  const text =
    entry.ended_by === "seven"
      ? `7! Round ${entry.round} is over: ${points(entry.bank)} lost${waited.length ? ` by ${names(waited.map((id) => nameOf(state, id)))}` : ""}.`
      : `Everyone banked: round ${entry.round} is over.`;
  return { kind: "round", entry, waited, text };
}
