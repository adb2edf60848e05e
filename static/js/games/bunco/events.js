// What happened between two Bunco states, as events: rolls, Buncos, the bell, roll-offs,
// the move after a round, the next ring, undo, the end. Computed from the difference of
// two states, so skipped seqs lose nothing.

import { nameOf, rollWords } from "./rules.js";

const rolls = (state) => (state?.tables || []).map((t) => t.last_roll?.seq ?? 0);

export function diff(previous, next) {
  if (!previous || previous === next || (previous.status === "finished" && next.status === "finished")) {
    return [];
  }
  const events = [];
  const started = previous.status === "lobby" && next.status !== "lobby";
  const before = previous.rounds_log?.length ?? 0;
  const after = next.rounds_log.length;
  const prevRolls = rolls(previous);
  const sameRound = next.round === previous.round && next.set === previous.set;
  const rollGone = next.tables.some((t, i) => (t.last_roll?.seq ?? 0) < prevRolls[i]);
  if (after < before || (after === before && sameRound && rollGone)) return [{ kind: "undo" }];
  if (started) events.push({ kind: "ring", started: true });
  next.tables.forEach((table, index) => {
    const roll = table.last_roll;
    if (roll && roll.seq > (prevRolls[index] ?? 0)) {
      events.push({ kind: "roll", table: index, roll, text: `${nameOf(next, roll.by)}: ${rollWords(next, table, roll)}` });
    }
  });
  for (const player of next.players) {
    const old = previous.players.find((p) => p.id === player.id);
    if (old && player.buncos > old.buncos) events.push({ kind: "bunco", player_id: player.id });
  }
  const wasLive = previous.status === "playing" && previous.phase === "playing";
  const nowOver = next.status === "finished" || next.phase === "waiting" || next.phase === "rolloff";
  if (wasLive && nowOver) events.push({ kind: "bell", by: after > before ? next.rounds_log[after - 1].bell_by : null });
  next.tables.forEach((table, index) => {
    if (table.rolloff && !previous.tables?.[index]?.rolloff) events.push({ kind: "rolloff", table: index });
  });
  if (after > before && next.status === "playing") events.push({ kind: "moved", result: next.rounds_log[after - 1] });
  if (previous.phase === "waiting" && next.phase === "playing") events.push({ kind: "ring" });
  if (next.status === "finished" && previous.status !== "finished") events.push({ kind: "finished" });
  return events;
}
