// The round so far, read from the state alone (`round_log`, `last_round`): the BANK after
// each roll for the chart, what each player banked, and how the last round ended. A
// reload, a late TV or a new spectator has it all in the first state, no log to fetch.

import { names, points } from "../../shell/dom.js";
import { nameOf } from "./rules.js";

/** The rolls of the round on screen: the round in play; before its first roll, the round
 * that just ended (its chart stays until the next roll). */
export function shownRound(state) {
  const rolls = state.round_log?.rolls || [];
  if (rolls.length || !state.last_round || state.status !== "playing") return { rolls, ended: null };
  return { rolls: state.last_round.rolls || [], ended: state.last_round };
}

/** series[k] = the BANK after roll k (0 before the first); the 7 that ended a round is a hole. */
export function series(state) {
  const { rolls } = shownRound(state);
  return [0, ...rolls.map((roll) => roll.bank_after)];
}

/** player_id -> what they banked in the round in play. */
export function banks(state) {
  return new Map((state.round_log?.banks || []).map((b) => [b.player_id, b.amount]));
}

/** The players the banker banked for this round: only those BANKs can be taken back. */
export function bankedByBanker(state) {
  return new Set((state.round_log?.banks || []).filter((b) => b.by_banker).map((b) => b.player_id));
}

/** "Round 3 ended on a 7 at 212: Ann and Bob had banked." */
export function endingText(state, ended) {
  const who = ended.banked.map((b) => nameOf(state, b.player_id));
  if (ended.ended_by !== "seven") return `Round ${ended.round} ended: everyone banked (BANK ${points(ended.bank)}).`;
  const after = who.length ? `${names(who)} had banked` : "nobody had banked";
  return `Round ${ended.round} ended on a 7 at ${points(ended.bank)}: ${after}.`;
}
