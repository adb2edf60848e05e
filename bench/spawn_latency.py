"""How long after `next`'s ack every phone of a tournament is welcomed in its seat.

    python -m bench.spawn_latency [--tournaments 20] [--players 16] [--tables 2]

Two `python -m app` processes share one redis-server of the bench's own (both pinned to
CPU 0, as bench/cluster.py starts them). For each tournament, made on process 0: the
players join over HTTP, the organiser's socket is on process 1, each player's
tournament socket on process 0 or 1 in turn. The organiser sends `next` with the
players dealt to the tables in join order; each phone opens its table (on its own
process) the moment a tournament state names it, once, and the time it is welcomed
there in its own seat is taken. A tournament's figure is the last phone's welcome
after the ack (all are seated then); the table prints the median and the max of those
over the tournaments, the same for a phone's own wait, and how many phones were not
welcomed in their seat on that one try (refused as an unknown room, or welcomed as a
spectator: what a room named before it is whole does).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.cluster import Deployment

Message = dict[str, Any]


async def receive(ws: ClientConnection, wanted: Any) -> Message:
    while True:
        message: Message = json.loads(await ws.recv())
        if wanted(message):
            return message


async def follow(ws_base: str, tournament: ClientConnection, pid: str, token: str) -> float | None:
    """Open the table the tournament's state first seats `pid` at, once; when it was
    welcomed there in its seat (None: closed, or welcomed as someone else)."""

    def names_my_table(message: Message) -> bool:
        state = message.get("state") or {}
        return any(pid in t["players"] for t in state.get("tables", ()))

    state = (await receive(tournament, names_my_table))["state"]
    code = next(t["code"] for t in state["tables"] if pid in t["players"])
    try:
        async with connect(f"{ws_base}/ws/rooms/{code}?token={token}") as table:
            hello = json.loads(await table.recv())
            welcomed = time.monotonic()
    except ConnectionClosed:  # 4404: the room the state named does not exist yet
        return None
    seated = hello.get("type") == "welcome" and hello["you"] == {"role": "player", "player_id": pid}
    return welcomed if seated else None


async def one_tournament(ports: list[int], players: int, tables: int) -> list[float | None]:
    """Seconds from `next`'s ack to each phone's welcome in its seat (None: not seated)."""
    base = [f"http://127.0.0.1:{port}" for port in ports]
    ws = [f"ws://127.0.0.1:{port}" for port in ports]
    async with httpx.AsyncClient() as http:
        made = (await http.post(f"{base[0]}/api/tournaments", json={"games": 1})).json()
        code, organiser_token = made["code"], made["organiser_token"]
        joined = []
        for n in range(players):
            url = f"{base[0]}/api/tournaments/{code}/players"
            joined.append((await http.post(url, json={"name": f"P{n:02}"})).json())
    seating = [[p["player_id"] for p in joined[t::tables]] for t in range(tables)]
    phones = [
        await connect(f"{ws[n % 2]}/ws/tournaments/{code}?token={p['token']}")
        for n, p in enumerate(joined)
    ]
    organiser = await connect(f"{ws[1]}/ws/tournaments/{code}?token={organiser_token}")
    try:
        for socket in (*phones, organiser):
            await receive(socket, lambda m: m["type"] == "welcome")
        followers = [
            asyncio.create_task(follow(ws[n % 2], phones[n], p["player_id"], p["token"]))
            for n, p in enumerate(joined)
        ]
        await organiser.send(json.dumps({"type": "next", "tables": seating, "id": "next"}))
        answer = await receive(organiser, lambda m: m.get("id") == "next")
        acked = time.monotonic()
        if answer["type"] != "ack":
            raise AssertionError(f"next refused: {answer}")
        welcomed = await asyncio.wait_for(asyncio.gather(*followers), 60)
        return [None if at is None else at - acked for at in welcomed]
    finally:
        for socket in (*phones, organiser):
            await socket.close()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


async def run(tournaments: int, players: int, tables: int) -> None:
    deployment = Deployment.start(2, with_redis=True)
    try:
        last: list[float] = []
        each: list[float] = []
        unseated = 0
        for _ in range(tournaments):
            waits = await one_tournament(deployment.ports, players, tables)
            seated = [wait for wait in waits if wait is not None]
            unseated += len(waits) - len(seated)
            if len(seated) == len(waits):
                last.append(max(seated))
            each.extend(seated)
    finally:
        deployment.stop()
    print(
        f"\n{tournaments} tournaments of {players} players at {tables} tables, "
        "2 processes on one redis-server: from `next`'s ack to a welcome in the seat"
    )
    print(f"{'':28} {'median ms':>9} {'max ms':>8}")
    if last:
        print(f"{'every phone seated':28} {ms(statistics.median(last)):>9} {ms(max(last)):>8}")
    print(f"{'one phone seated':28} {ms(statistics.median(each)):>9} {ms(max(each)):>8}")
    print(
        f"phones not welcomed in their seat on the first try: {unseated} of "
        f"{tournaments * players}; tournaments with every phone seated: {len(last)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.spawn_latency",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--tournaments", type=int, default=20)
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--tables", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(run(args.tournaments, args.players, args.tables))


if __name__ == "__main__":
    main()
