"""Hand-over across two processes sharing a real redis-server: requests to one, sockets
on the other; the log chain stays whole and the old token is refused everywhere."""

from __future__ import annotations

from tests import handover_support as scenario


async def test_hand_over_and_seat_move_across_processes(make_cluster) -> None:  # type: ignore[no-untyped-def]
    first, second = make_cluster(2).servers
    await scenario.banker_hands_over(first, second)
    await scenario.seat_moves(second, first)


async def test_take_back_across_processes(make_cluster) -> None:  # type: ignore[no-untyped-def]
    first, second = make_cluster(2, BANKIT_HOST_AWAY_SECONDS="1").servers
    await scenario.table_takes_back(first, second)
    await scenario.banker_offers(second, first)


async def test_a_tournament_s_hand_over_reaches_its_tables_on_the_other_process(
    make_cluster,
) -> None:  # type: ignore[no-untyped-def]
    first, second = make_cluster(2).servers
    await scenario.tournament_tokens_follow(first, second)
