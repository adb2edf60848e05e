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
/** The house rules' smallest BANK anyone may take (0: no minimum). */
export const minBank = (state) => state.house_rules?.min_bank ?? 0;

/** "How BANK! works" as this room plays it (its house rules), for the lobby and the TV. */
export function howtoItems(state) {
  const safe = safeRolls(state);
  const min = minBank(state);
  return [
    "Every roll adds to one shared <strong>BANK</strong>.",
    `${safe === 1 ? "Roll 1 is" : `Rolls 1–${safe} are`} <strong>safe</strong>: a 7 adds ${sevenPoints(state)}, doubles add their dots.`,
    `From roll ${safe + 1} on it is <strong>danger</strong>: doubles <strong>double</strong> the BANK${doublesAdd(state) ? " and add the roll" : ""}, and a <strong>7 ends the round</strong>. Whoever has not banked gets nothing for it.`,
    `Tap <strong>BANK</strong> on your phone ${min ? `once the BANK is ${min} or more` : "any time after the first roll"} to put it into your score, then sit out the round.`,
    "Most points after the last round wins.",
  ];
}

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
