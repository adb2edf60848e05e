// The few rules a page needs to explain the game (the server stays the judge).

export const SAFE_ROLLS = 3;

/** A roll's total: `total` when the server says it (always, since game night), else its dice' sum. */
export const totalOf = (roll) => roll.total ?? roll.dice[0] + roll.dice[1];

/** Doubles are only ever entered as dice: a roll known by its total never is. */
export const isDoubles = (roll) => Boolean(roll.dice) && roll.dice[0] === roll.dice[1];

/** The house rules' safe rolls, what a safe 7 adds, whether doubles also add the roll. */
export const safeRolls = (state) => state.house_rules?.safe_rolls ?? SAFE_ROLLS;
export const sevenPoints = (state) => state.house_rules?.seven_points ?? 70;
export const doublesAdd = (state) => state.house_rules?.doubles === "double_add";

/** Is the next roll still safe (a 7 pays 70, doubles pay face value)? */
export const nextRollSafe = (state) => state.roll_count < safeRolls(state);

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
