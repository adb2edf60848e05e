"""The end of a Bunco round: who won at each table, and where everyone sits next.

Movement (the seed's): the High table's winners go to the Low table, every other
table's winners one table up. The common house rule: the High table's winners stay,
its losers go to the Low table, every other table's winners one table up. At each
table the two who stayed take seats 0 and 1 and the two who arrived seats 2 and 3,
each pair in its old seat order; as teams are seats 0+2 and 1+3, each new team pairs a
stayer with an arrival, so every partnership of the round just played is broken. Seat
0, a stayer, rolls first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from app.games.bunco.state import (
    ROUNDS_PER_SET,
    BuncoState,
    Movement,
    RoundResult,
    Table,
    TableResult,
)


def table_result(table: Table) -> TableResult:
    """The team with more points wins (a table is never tied once its roll-offs end)."""
    winning = 0 if table.scores[0] > table.scores[1] else 1
    return TableResult(
        seats=table.seats,
        scores=table.scores,
        winners=table.team(winning),
        losers=table.team(1 - winning),
    )


def moved(
    results: Sequence[TableResult], movement: Movement = "seed"
) -> tuple[tuple[str, ...], ...]:
    """The seats of every table after the move (High first)."""
    count = len(results)
    common = movement == "common"
    seatings: list[tuple[str, ...]] = []
    for index, result in enumerate(results):
        source = (index + 1) % count  # from one table down; the Low table's from High
        arriving = results[source].winners
        if common and index == count - 1:
            arriving = results[0].losers  # the High table's losers go to Low
        stayers = _in_seat_order(
            result.winners if common and index == 0 else result.losers, result.seats
        )
        arrivals = _in_seat_order(arriving, results[source].seats)
        seatings.append((stayers[0], stayers[1], arrivals[0], arrivals[1]))
    return tuple(seatings)


def _in_seat_order(pair: tuple[str, str], seats: tuple[str, ...]) -> tuple[str, str]:
    first, second = sorted(pair, key=seats.index)
    return (first, second)


def finish_round(state: BuncoState) -> BuncoState:
    """Score the round just ended, log it, then move everyone or end the night."""
    results = tuple(table_result(table) for table in state.tables)
    winners = {pid for result in results for pid in result.winners}
    players = tuple(
        replace(p, wins=p.wins + 1) if p.id in winners else replace(p, losses=p.losses + 1)
        for p in state.players
    )
    logged = RoundResult(state.set, state.round, state.bell_by or "", results)
    ended = replace(
        state,
        players=players,
        rounds_log=(*state.rounds_log, logged),
        bell_by=None,
        tables=tuple(replace(t, rolloff_turns=0) for t in state.tables),
    )
    if state.last_round:
        return replace(ended, status="finished", phase=None)
    seatings = moved(results, state.house.movement)
    next_set, next_round = state.set, state.round + 1
    if next_round > ROUNDS_PER_SET:
        next_set, next_round = state.set + 1, 1
    return replace(
        ended,
        set=next_set,
        round=next_round,
        phase="waiting",
        tables=tuple(Table(seats=seats) for seats in seatings),
    )
