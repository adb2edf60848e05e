"""Shares are reserved before the work (issue 29, item 4): a join or a create takes its
share before the route runs and gives it back on any answer but a 2xx, so requests from
one address that arrive together never pass a quota."""

from __future__ import annotations

import asyncio

import httpx

from tests.conftest import ServerProcess

SEATS, ROOMS = 4, 3
STRANGER = "127.0.0.2"


async def all_at_once(
    proc: ServerProcess, count: int, path: str, body: dict[str, object]
) -> list[int]:
    transport = httpx.AsyncHTTPTransport(local_address=STRANGER)
    async with httpx.AsyncClient(base_url=proc.base_url, transport=transport, timeout=20) as client:

        async def one(n: int) -> int:
            payload = {k: (f"{v}{n}" if k == "name" else v) for k, v in body.items()}
            return (await client.post(path, json=payload)).status_code

        return list(await asyncio.gather(*(one(n) for n in range(count))))


async def test_twenty_joins_at_once_seat_at_most_the_share(fresh_server) -> None:  # type: ignore[no-untyped-def]
    proc = fresh_server(BANKIT_SEATS_PER_ADDRESS_IN_ROOM=str(SEATS))
    code = httpx.post(f"{proc.base_url}/api/rooms", json={"game": "bank"}).json()["code"]
    path = f"/api/rooms/{code}/players"
    refused = await all_at_once(proc, 3, path, {"nom": "x"})  # 4xx: no seat taken
    assert all(status in (400, 422) for status in refused), refused
    answers = await all_at_once(proc, 20, path, {"name": "P"})
    assert answers.count(201) == SEATS, answers
    assert set(answers) <= {201, 429}
    players = httpx.get(f"{proc.base_url}/api/rooms/{code}").json()["state"]["players"]
    assert len(players) == SEATS


async def test_fifteen_creates_at_once_make_at_most_the_live_room_quota(fresh_server) -> None:  # type: ignore[no-untyped-def]
    proc = fresh_server(BANKIT_ROOMS_PER_ADDRESS=str(ROOMS))
    refused = await all_at_once(proc, 3, "/api/rooms", {"game": "chess"})  # 4xx: given back
    assert all(status in (400, 422) for status in refused), refused
    answers = await all_at_once(proc, 15, "/api/rooms", {"game": "bank"})
    assert answers.count(201) == ROOMS, answers
    assert set(answers) <= {201, 429}
