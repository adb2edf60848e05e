// What the state does not say about the current round, kept from state to state:
// the BANK after each roll (for the chart) and how much each player banked
// (for "You banked 340"). A page that opens mid-round fills the gaps from the log.

import { rollValue } from "./rules.js";

const roundKey = (state) => `${state.status}:${state.round}:${state.rounds_log.length}`;

export class RoundTracker {
  constructor() {
    this.key = null;
    this.series = [0]; // series[k] = the BANK after roll k; holes are unknown
    this.banks = new Map(); // player_id -> amount banked this round
  }

  /** Feed every rendered state, in seq order (prev may be null). */
  update(prev, next) {
    if (!prev || roundKey(prev) !== this.key || roundKey(next) !== this.key) {
      this.reset(next);
      return;
    }
    this.series.length = next.roll_count + 1; // an undo shortens it
    this.series[next.roll_count] = next.bank;
    const before = new Map(prev.players.map((p) => [p.id, p]));
    for (const player of next.players) {
      if (!player.banked) {
        this.banks.delete(player.id); // an undo takes a bank back
      } else if (!this.banks.has(player.id)) {
        const old = before.get(player.id);
        if (old && !old.banked) this.banks.set(player.id, player.score - old.score);
      }
    }
  }

  reset(state) {
    this.key = roundKey(state);
    this.series = new Array(state.roll_count + 1);
    this.series[0] = 0;
    this.series[state.roll_count] = state.bank;
    if (state.roll_count === 1) this.series[1] = state.bank;
    this.banks = new Map();
  }

  /** Does this state hold things only the log can tell? */
  incomplete(state) {
    if (roundKey(state) !== this.key) return false;
    let holes = this.series.length < state.roll_count + 1;
    for (let i = 0; i <= state.roll_count && !holes; i += 1) holes = this.series[i] === undefined;
    const unknownBanks = state.players.some((p) => p.banked && !this.banks.has(p.id));
    return holes || unknownBanks;
  }

  /** Rebuild the current round from the event log (events up to state.seq). */
  seed(events, state) {
    if (roundKey(state) !== this.key) return;
    const rolls = [];
    const banks = [];
    for (const event of events) {
      if (event.seq > state.seq) break;
      if (event.type === "roll") rolls.push(event);
      else if (event.type === "bank") banks.push(event);
      else if (event.type === "undo") {
        const undone = event.data.undone_seq;
        while (rolls.length && rolls[rolls.length - 1].seq >= undone) rolls.pop();
        while (banks.length && banks[banks.length - 1].seq > undone) banks.pop();
      }
    }
    if (state.roll_count === 0 || rolls.length < state.roll_count) return;
    const round = rolls.slice(rolls.length - state.roll_count);
    const series = [0];
    round.forEach((roll, index) => {
      series.push(rollValue(series[index], index + 1, roll.data.dice) ?? 0);
    });
    this.series = series;
    const firstSeq = round[0].seq;
    this.banks = new Map();
    for (const bank of banks) {
      if (bank.seq > firstSeq) this.banks.set(bank.data.player_id, bank.data.amount);
    }
  }
}
