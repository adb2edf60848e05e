"""One roll of a Bunco round, applied: points, the turn, the bell and the roll-offs.

A roll at the High table that brings a team to 21 or more rings the bell. Tables tied
at that moment play roll-offs (each of the 4 players one full turn from the one holding
the dice, points adding; still tied after 4 turns, another roll-off); the round ends
when the last roll-off does, at once if there is none.
"""

from __future__ import annotations

from dataclasses import replace

from app.games.bunco.movement import finish_round
from app.games.bunco.state import (
    BUNCO,
    ROLLOFF_TURNS,
    SEATS,
    SEED_RULES,
    BuncoState,
    Dice3,
    HouseRules,
    LastRoll,
    Table,
    roll_points,
    team_of,
)


def rolled(
    table: Table, dice: Dice3, target: int, seq: int, house: HouseRules = SEED_RULES
) -> Table:
    """The table after its roller's roll: a roll scoring 0 passes the dice to seat + 1."""
    points = roll_points(dice, target, house)
    gained = (points, 0) if team_of(table.roller_seat) == 0 else (0, points)
    scores = (table.scores[0] + gained[0], table.scores[1] + gained[1])
    after = replace(table, scores=scores, last_roll=LastRoll(dice, table.roller, points, seq))
    if points > 0:
        return after
    after = replace(after, roller_seat=(table.roller_seat + 1) % SEATS)
    if not table.rolloff:
        return after
    turns = table.rolloff_turns - 1
    if turns == 0 and after.tied:
        turns = ROLLOFF_TURNS  # still tied after 4 turns: another roll-off
    return replace(after, rolloff_turns=turns)


def apply_roll(state: BuncoState, index: int, dice: Dice3, seq: int) -> BuncoState:
    """The night after a roll at table `index` (decided earlier, so it is legal)."""
    table = state.tables[index]
    roller = table.roller
    after = rolled(table, dice, state.round, seq, state.house)
    tables = (*state.tables[:index], after, *state.tables[index + 1 :])
    players = state.players
    if after.last_roll is not None and after.last_roll.points == BUNCO:
        players = tuple(replace(p, buncos=p.buncos + 1) if p.id == roller else p for p in players)
    state = replace(state, tables=tables, players=players)
    if state.phase == "playing" and index == 0 and max(after.scores) >= state.house.bell_at:
        return ring_bell(state, roller)
    if state.phase == "rolloff" and not any(t.rolloff for t in state.tables):
        return finish_round(state)
    return state


def ring_bell(state: BuncoState, by: str) -> BuncoState:
    """Play stops on every table; tied tables go into roll-offs."""
    tables = tuple(replace(t, rolloff_turns=ROLLOFF_TURNS if t.tied else 0) for t in state.tables)
    state = replace(state, tables=tables, bell_by=by)
    if any(t.rolloff for t in tables):
        return replace(state, phase="rolloff")
    return finish_round(state)
