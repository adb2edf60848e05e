// What a Bunco state means in words: who sits where, teams, what a roll scored, where a
// player goes after a round. Pure functions of states (docs/protocol.md, "# Bunco").

import { names } from "../../shell/dom.js";

export const VALID_COUNTS = [8, 12, 16, 20, 24];
export const ROUNDS_PER_SET = 6;

/** The house rules' three of a kind (another number than the round's) and the bell. */
export const threeOfAKind = (state) => state.house_rules?.three_of_a_kind ?? 5;
export const bellAt = (state) => state.house_rules?.bell_at ?? 21;

export const nameOf = (state, id) => state.players.find((p) => p.id === id)?.name ?? "?";

/** "the High table" — the words a person at a party follows. */
export const tableWords = (table) => `the ${table.name} table`;

/** {table, seat} of a player in a list of tables (a state's, or a rounds_log entry's), or null. */
export function seatOf(tables, id) {
  for (const table of tables || []) {
    const seat = table.seats.indexOf(id);
    if (seat >= 0) return { table, seat };
  }
  return null;
}

/** The two ids of a team at a table: team 0 sits at seats 0 and 2, team 1 at 1 and 3. */
export const team = (table, index) => [table.seats[index], table.seats[index + 2]];

/** "You & Dee" for the team holding `me`, else "Ann & Dee". */
export function teamName(state, table, index, me) {
  const [a, b] = team(table, index);
  if (a === me) return `You & ${nameOf(state, b)}`;
  if (b === me) return `You & ${nameOf(state, a)}`;
  return `${nameOf(state, a)} & ${nameOf(state, b)}`;
}

/** What the last roll scored, in words: "BUNCO! +21", "three of a kind +5", "+2",
 * "miss: dice pass to Cy". `roller` is who holds the dice after it. */
export function rollWords(state, table, roll) {
  const [a, b, c] = roll.dice;
  if (roll.points === 21) return "BUNCO! +21";
  if (a === b && b === c && roll.points > 0) return `three of a kind +${roll.points}`; // house rules: not always 5
  if (roll.points > 0) return `+${roll.points}`;
  const next = table.roller === roll.by ? "the next player" : nameOf(state, table.roller);
  return `miss: dice pass to ${next}`;
}

/** "Set 1 of 2 · Round 3 of 6" */
export function roundWords(state) {
  const last = state.rounds_log.at(-1);
  const over = (state.phase === "waiting" || state.status === "finished") && last;
  const { set, round } = over ? last : state;
  const sets = state.sets > 1 ? `Set ${set} of ${state.sets} · ` : "";
  return `${sets}Round ${round} of ${ROUNDS_PER_SET}${over ? " is over" : ""}`;
}

/** The phase in words with a symbol (never colour alone). */
export function phaseWords(state) {
  if (state.status === "finished") return "★ The night is over";
  if (state.phase === "rolloff") {
    const at = state.tables.filter((t) => t.rolloff).map((t) => t.name);
    return `⚖ Roll-off at ${names(at)}`;
  }
  if (state.phase === "waiting") return `♫ Bell rang · next: round ${state.round}`;
  return `▶ Round live: roll for ${state.round}s!`;
}

/** After the bell, until the next round starts: "Round 2 ended: High 25–4 · Low 9–21". */
export function roundScoresWords(state) {
  const last = state.rounds_log.at(-1);
  if (state.phase !== "waiting" || !last) return "";
  const tables = last.tables.map((t) => `${state.tables[t.table]?.name ?? t.table + 1} ${t.scores[0]}–${t.scores[1]}`);
  return `Round ${last.round} ended: ${tables.join(" · ")}`;
}

/** The sentence for a table in a roll-off. */
export const rolloffWords = (table) =>
  `Roll-off at ${tableWords(table)}: each player takes one turn`;

/**
 * Where `me` goes after the round that `result` (a rounds_log entry) closed, in words:
 * "You won! Go to the Middle table, sit across from Dee." The new seating is `next.tables`.
 */
export function movementWords(next, result, me) {
  const index = result.tables.findIndex((t) => t.seats.includes(me));
  const after = seatOf(next.tables, me);
  if (index < 0 || !after) return "";
  const won = result.tables[index].winners.includes(me);
  const partner = nameOf(next, after.table.seats[(after.seat + 2) % 4]);
  const where = tableWords(after.table);
  const move = after.table.table === index ? `Stay at ${where}` : `Go to ${where}`;
  return `${won ? "You won!" : "You lost."} ${move}, sit across from ${partner}.`;
}

/** Everyone's move after a round, for the TV: [{who, from, to, won, text}] per table and
 * side, from where each pair really sits now (under either movement). */
export function movements(next, result) {
  const moves = [];
  result.tables.forEach((old, index) => {
    for (const side of ["winners", "losers"]) {
      const ids = old[side];
      const move = {
        who: names(ids.map((id) => nameOf(next, id))),
        from: next.tables[index]?.name ?? "",
        to: seatOf(next.tables, ids[0])?.table.name ?? "",
        won: side === "winners",
      };
      moves.push({ ...move, text: moveText(move) });
    }
  });
  return moves;
}

/** "★ Ann & Bo won at High: go to Low", "★ … won at High: stay", "Cy & Di lost at High: go
 * to Low", "Cy & Di stay at Low". */
function moveText({ who, from, to, won }) {
  const where = from === to ? `stay at ${to}` : `go to ${to}`;
  if (won) return `★ ${who} won at ${from}: ${where}`;
  return from === to ? `${who} ${where}` : `${who} lost at ${from}: ${where}`;
}

/** Players sorted for a leaderboard: wins, then Buncos, then fewer losses, then name. */
export function standings(state) {
  const sorted = [...state.players].sort(
    (a, b) => b.wins - a.wins || b.buncos - a.buncos || a.losses - b.losses || a.name.localeCompare(b.name),
  );
  let place = 0;
  return sorted.map((player, i) => {
    const prev = sorted[i - 1];
    if (!prev || prev.wins !== player.wins) place = i + 1;
    return { player, place };
  });
}

/** W or L per finished round for one player: ["W", "L", ...], oldest first. */
export function record(state, id) {
  return state.rounds_log.map((entry) => {
    const t = entry.tables.find((x) => x.seats.includes(id));
    if (!t) return "–";
    return t.winners.includes(id) ? "W" : "L";
  });
}

export const scoresheetUrl = (code) => `/api/rooms/${code}/scoresheet.csv`;
