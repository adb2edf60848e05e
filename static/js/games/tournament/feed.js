// The rerolls of the game being scored, as they land, in order: read from the
// tournament's log (its `reroll` events since the last `score`), because a group that
// completes leaves the state at once (broken, or replaced by a new tie) and its last
// roll would be lost between two states. Fetched when the state's seq moves while
// rerolls are pending or have just ended.

import { roomLog } from "../../shell/api.js";
import { diceText, nameOf } from "./standings.js";

export class RerollFeed {
  constructor(code) {
    this.code = code;
    this.seq = 0; // the tournament seq the lines were read at
    this.lines = [];
  }

  /** The game whose rerolls these are: the one being scored, else the one just scored. */
  game(state) {
    return state.status === "reroll" ? state.current : state.results.at(-1)?.game;
  }

  /** Resolves the lines for this state ({id, text}, oldest first), refetching when it moved.
   * Only while a game's ties are rerolled, or until the next game starts. */
  async update(state) {
    const justScored = ["between", "finished"].includes(state.status) && state.results.at(-1)?.rerolls?.length;
    if (state.status !== "reroll" && !justScored) {
      this.lines = [];
      return this.lines;
    }
    if (state.seq === this.seq) return this.lines;
    this.seq = state.seq;
    try {
      const { events } = await roomLog(this.code, "tournaments");
      const since = events.map((e) => e.type).lastIndexOf("score");
      this.lines = events
        .slice(since + 1)
        .filter((e) => e.type === "reroll")
        .map((e) => ({ id: e.seq, text: `${nameOf(state, e.data.player_id)} rolled ${diceText(e.data.dice)}` }));
    } catch {
      // offline for a moment: keep the lines we had; the next state tries again
    }
    return this.lines;
  }
}
