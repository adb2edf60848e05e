// The few rules a page needs to explain the game (the server stays the judge).

export const SAFE_ROLLS = 3;

/** The BANK after roll `number` (1-based), or null when a 7 ends the round. */
export function rollValue(bank, number, [a, b]) {
  const total = a + b;
  if (number <= SAFE_ROLLS) return bank + (total === 7 ? 70 : total);
  if (total === 7) return null;
  return a === b ? bank * 2 : bank + total;
}

/** Is the next roll still safe (a 7 pays 70, doubles pay face value)? */
export const nextRollSafe = (state) => state.roll_count < SAFE_ROLLS;

/** Two dice, not doubles, that make `total` (3..11). */
export function diceForTotal(total) {
  let a = Math.max(1, total - 6);
  let b = total - a;
  if (a === b) {
    a -= 1;
    b += 1;
  }
  return [a, b];
}

/** Is a BANK possible now (a live round: after its first roll)? */
export const roundLive = (state) => state.status === "playing" && state.roll_count > 0;

export const playerById = (state, id) => state.players.find((p) => p.id === id) || null;
export const nameOf = (state, id) => (playerById(state, id) || { name: "?" }).name;

/** Players by score, best first; ties keep seating order. */
export function standings(state) {
  return state.players
    .map((p, seat) => ({ ...p, seat }))
    .sort((x, y) => y.score - x.score || x.seat - y.seat);
}

/** Rank with ties sharing a place: [{player, place}] */
export function ranked(state) {
  let place = 0;
  let last = null;
  return standings(state).map((player, index) => {
    if (player.score !== last) place = index + 1;
    last = player.score;
    return { player, place };
  });
}
