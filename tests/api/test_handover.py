"""Hand-over on one process (docs/protocol.md, "Hand-over"): the banker's role and a
player's seat move to another phone, and the table takes the role back by a majority."""

from __future__ import annotations

from tests import handover_support as scenario
from tests.conftest import ServerProcess


async def test_banker_hands_the_role_to_another_phone(server: ServerProcess) -> None:
    await scenario.banker_hands_over(server, server)


async def test_a_seat_moves_to_another_phone(server: ServerProcess) -> None:
    await scenario.seat_moves(server, server)


async def test_the_table_takes_the_role_back_by_a_majority(server: ServerProcess) -> None:
    await scenario.table_takes_back(server, server)


async def test_the_banker_offers_the_role_to_a_player(server: ServerProcess) -> None:
    await scenario.banker_offers(server, server)
