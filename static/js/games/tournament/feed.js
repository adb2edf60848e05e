// The rerolls of the game being scored, as they land, in order. While they are rolled they
// are read from the tournament's log (its `reroll` events since the last `score`), because
// a group that completes leaves the state at once (broken, or replaced by a new tie) and
// its last roll would be lost between two states; read again when the state's seq moves.
// Once the game is scored, its result lists them all (`rerolls`, in the order rolled): no
// read, and no race with the log's write.

import { roomLog } from "../../shell/api.js";
import { diceText, nameOf } from "./standings.js";

const line = (state, id, dice) => ({ text: `${nameOf(state, id)} rolled ${diceText(dice)}` });

export class RerollFeed {
  constructor(code) {
    this.code = code;
    this.seq = 0; // the tournament seq the lines are (being) read at
    this.lines = [];
    this.reading = Promise.resolve(this.lines); // the read for that seq
  }

  /** The game whose rerolls these are: the one being scored, else the one just scored. */
  game(state) {
    return state.status === "reroll" ? state.current : state.results.at(-1)?.game;
  }

  /** Resolves the lines for this state ({text}, oldest first): while ties are rerolled, read
   * from the log (the same state drawn again, e.g. for presence, waits for the same read);
   * then the scored game's, until the next game starts; else none. */
  update(state) {
    if (state.status !== "reroll") {
      const scored = ["between", "finished"].includes(state.status) ? state.results.at(-1)?.rerolls ?? [] : [];
      this.seq = 0;
      this.lines = scored.flatMap((group) => Object.entries(group.rolls).map(([id, dice]) => line(state, id, dice)));
      this.reading = Promise.resolve(this.lines);
    } else if (state.seq !== this.seq) {
      this.seq = state.seq;
      this.reading = this.read(state);
    }
    return this.reading;
  }

  /** The rerolls since the last `score` in the log; a read overtaken by a newer one (reads
   * may answer out of order) leaves the lines to it. */
  async read(state) {
    try {
      const { events } = await roomLog(this.code, "tournaments");
      const since = events.map((e) => e.type).lastIndexOf("score");
      const lines = events.slice(since + 1).filter((e) => e.type === "reroll").map((e) => line(state, e.data.player_id, e.data.dice));
      if (state.seq === this.seq) this.lines = lines;
    } catch {
      // offline for a moment: keep the lines we had; the next state tries again
    }
    return this.lines;
  }
}
