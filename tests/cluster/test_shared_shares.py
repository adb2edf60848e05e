"""One address's shares hold across processes sharing Redis (app/bus/redis/tally.py):
its spectator sockets, spread over two processes, meet ONE share, not one per process;
a socket that closes gives its place back, and so does a process that dies."""

from __future__ import annotations

import time

from tests.client import Client, Table

SHARE = 3
STRANGER = "127.0.0.2"


async def opened(ws_url: str, code: str, source: str) -> Client | None:
    """A spectator socket from `source`: the client once welcomed, None if refused."""
    client = await Client.connect(ws_url, code, source=source)
    try:
        await client.wait_for(lambda m: m["type"] == "welcome", timeout=10)
    except ConnectionError:
        assert client.close_code == 1013, client.close_code
        return None
    return client


async def test_one_addresss_spectator_share_holds_across_two_processes(make_cluster) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(2, BANKIT_SPECTATORS_PER_ADDRESS=str(SHARE))
    first, second = cluster.servers
    table = Table(first.base_url)
    urls = [first.ws_url, second.ws_url]
    held = []
    for attempt in range(2 * SHARE):  # alternating: each process alone would admit SHARE
        client = await opened(urls[attempt % 2], table.code, STRANGER)
        if client is not None:
            held.append(client)
    assert len(held) == SHARE, f"{len(held)} spectator sockets from one address"
    other = await opened(second.ws_url, table.code, "127.0.0.3")  # another address: its own
    assert other is not None

    await held.pop().close()  # a place given back is free on the other process too
    started = time.monotonic()

    async def reopened() -> Client | None:
        return await opened(urls[len(held) % 2], table.code, STRANGER)

    again = None
    while again is None and time.monotonic() - started < 10:
        again = await reopened()
    assert again is not None, "a closed socket's place was not given back"
    assert await opened(first.ws_url, table.code, STRANGER) is None


async def test_a_dead_processs_shares_lapse(make_cluster) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(2, BANKIT_SPECTATORS_PER_ADDRESS=str(SHARE), BANKIT_NODE_TTL_SECONDS="1")
    doomed, survivor = cluster.servers
    table = Table(survivor.base_url)
    for _ in range(SHARE):
        assert await opened(doomed.ws_url, table.code, STRANGER) is not None
    assert await opened(survivor.ws_url, table.code, STRANGER) is None
    doomed.kill()  # its count lapses with its lease (node TTL), not never

    async def admitted() -> bool:
        return await opened(survivor.ws_url, table.code, STRANGER) is not None

    deadline = time.monotonic() + 10
    while not await admitted():
        assert time.monotonic() < deadline, "a dead process's shares never lapsed"
