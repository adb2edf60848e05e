"""A table room freed before its game was scored (its phones gone, its time up) can no
longer change: `score` still ends, with the totals the table last reported."""

from __future__ import annotations

import httpx

from tests.conftest import ServerProcess
from tests.games.tournament.support import one_table_ended, until


async def test_score_ends_though_a_table_room_was_freed_in_between(fresh_server) -> None:  # type: ignore[no-untyped-def]
    server: ServerProcess = fresh_server(
        BANKIT_FINISHED_ROOM_SECONDS="0.5", BANKIT_REAP_INTERVAL_SECONDS="0.2"
    )
    tourney, ann, organiser, banker, table = await one_table_ended(server.base_url, server.ws_url)
    await banker.close()

    async def freed() -> bool:
        url = f"{server.base_url}/api/rooms/{table['code']}"
        return httpx.get(url).status_code == 404

    await until(freed, "the finished table room to be freed")
    await organiser.ok(type="score")
    final = await tourney.status("finished")
    assert final["results"][0]["totals"] == {ann: 10}
    table_events = [e for e in tourney.log() if e["type"] == "table"]
    assert table_events[-1]["data"]["locked"] is True  # reported locked by the server
