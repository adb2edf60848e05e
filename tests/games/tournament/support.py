"""Driving a tournament over the wire: HTTP for the lobby, sockets for the rest.

A `Tourney` holds the organiser's tournament socket and opens table rooms with the
organiser's token (the banker of every table) and the players' tournament tokens.
`play_game` plays one BANK game at a table with scripted dice: every round but the
last is "roll [6, 4], everyone banks 10" (sent in one burst by the banker: one socket
keeps its order); the last round is `LAST_ROUND` with each player banking from its own
phone after the roll the script names, or never.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import httpx
from websockets.asyncio.client import connect as ws_connect

from app.games.seam import Rules
from app.rooms.eventlog import verify
from app.rooms.timeline import Timeline
from tests.bank_support import BANK
from tests.client import Client
from tests.fair import assert_dice_check_out

Message = dict[str, Any]
_ids = itertools.count(1)

# The last round's rolls, and the bank after each: 10, 20, 30, then doubles on the 4th
# roll double it (60), then 70; the 6th roll is a 7 after the third: the round ends.
LAST_ROUND = ([6, 4], [6, 4], [6, 4], [5, 5], [6, 4], [3, 4])
BANK_AFTER = {1: 10, 2: 20, 3: 30, 4: 60, 5: 70}
EARLY_ROUND = 10  # every round before the last: each player banks one roll of 10


async def connect_tournament(ws_url: str, code: str, token: str | None = None) -> Client:
    url = f"{ws_url}/ws/tournaments/{code}" + (f"?token={token}" if token else "")
    return Client(await ws_connect(url, max_size=None, open_timeout=5))


async def until(check: Callable[[], Awaitable[Any]], what: str, timeout: float = 10) -> Any:
    """Await `check` until it returns something truthy (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)


async def welcome(client: Client) -> Message:
    return await client.wait_for(lambda m: m["type"] == "welcome")


async def burst(client: Client, commands: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Send every command at once (one socket keeps their order), then collect the answers."""
    ids = [f"b{next(_ids)}" for _ in commands]
    mark = len(client.messages)
    for command_id, command in zip(ids, commands):
        await client.send({**command, "id": command_id})
    answers = []
    for command_id in ids:
        answers.append(
            await client.wait_for(
                lambda m, i=command_id: m.get("type") in ("ack", "error") and m.get("id") == i,
                start=mark,
            )
        )
    return answers


class Tourney:
    """One tournament: its code, the organiser's token and socket, the players' tokens."""

    def __init__(self, base_url: str, ws_url: str, **options: Any) -> None:
        self.base_url, self.ws_url = base_url, ws_url
        response = httpx.post(f"{base_url}/api/tournaments", json=options)
        assert response.status_code == 201, response.text
        body = response.json()
        self.code: str = body["code"]
        self.organiser_token: str = body["organiser_token"]
        self.ids: dict[str, str] = {}  # name -> player id
        self.tokens: dict[str, str] = {}  # name -> tournament token
        self.organiser: Client | None = None
        self.acked: list[int] = []  # the seqs of the organiser's acked `next`s (see `next`)

    def join(self, name: str) -> str:
        response = httpx.post(
            f"{self.base_url}/api/tournaments/{self.code}/players", json={"name": name}
        )
        assert response.status_code == 201, response.text
        body = response.json()
        self.ids[name], self.tokens[name] = body["player_id"], body["token"]
        return str(body["player_id"])

    def name_of(self, player_id: str) -> str:
        return next(name for name, pid in self.ids.items() if pid == player_id)

    async def open(self) -> Client:
        self.organiser = await connect_tournament(self.ws_url, self.code, self.organiser_token)
        assert (await welcome(self.organiser))["you"]["role"] == "organiser"
        return self.organiser

    @property
    def socket(self) -> Client:
        assert self.organiser is not None, "open() the organiser's socket first"
        return self.organiser

    def state(self) -> Message:
        response = httpx.get(f"{self.base_url}/api/tournaments/{self.code}")
        assert response.status_code == 200, response.text
        return response.json()["state"]  # type: ignore[no-any-return]

    def log(self) -> list[Message]:
        return httpx.get(f"{self.base_url}/api/tournaments/{self.code}/log").json()["events"]  # type: ignore[no-any-return]

    async def status(self, status: str, timeout: float = 10) -> Message:
        """The organiser's socket shows the tournament in `status` (its newest state)."""
        return await self.newest(lambda state: state["status"] == status, status, timeout)

    async def newest(
        self, predicate: Callable[[Message], bool], what: str, timeout: float = 10
    ) -> Message:
        """The organiser's newest state, once it matches `predicate`."""

        async def seen() -> Message | None:
            states = self.socket.states()
            return states[-1] if states and predicate(states[-1]) else None

        return await until(seen, f"tournament {what}", timeout)  # type: ignore[no-any-return]

    async def next(
        self, tables: list[list[str]] | None = None, timeout: float = 5
    ) -> list[Message]:
        """`next` (seating by names), then wait until each table room has its players seated."""
        command: dict[str, Any] = {"type": "next"}
        if tables is not None:
            command["tables"] = [[self.ids[name] for name in table] for table in tables]
        answer = await self.socket.command(timeout=timeout, **command)
        assert answer["type"] == "ack", answer
        self.acked.append(int(answer["seq"]))
        await self.socket.state_at_least(answer["seq"], timeout)
        return await self.tables_ready()

    async def tables_ready(self) -> list[Message]:
        async def ready() -> list[Message] | None:
            tables = self.state()["tables"]
            for table in tables:
                response = httpx.get(f"{self.base_url}/api/rooms/{table['code']}")
                if response.status_code != 200:
                    return None
                if len(response.json()["state"]["players"]) != len(table["players"]):
                    return None
            return tables  # type: ignore[no-any-return]

        return await until(ready, "the table rooms")  # type: ignore[no-any-return]


async def one_table_ended(
    base_url: str, ws_url: str
) -> tuple[Tourney, str, Client, Client, dict[str, Any]]:
    """A tournament of one game of one round and one player, Ann, whose table's banker
    (the organiser's token) has just ended the game with Ann's BANK of 10: it waits in
    `scoring`. Returns the tournament, Ann's id, the organiser, the banker and the table."""
    tourney = Tourney(base_url, ws_url, games=1, rounds=1)
    ann = tourney.join("Ann")
    organiser = await tourney.open()
    (table,) = await tourney.next()
    banker = await Client.connect(ws_url, table["code"], tourney.organiser_token)
    await welcome(banker)
    for command in ({"type": "start"}, {"type": "roll", "dice": [6, 4]}):
        await banker.ok(**command)
    await banker.ok(type="bank", player_id=ann)  # Ann 10: the game is over
    await tourney.status("scoring")
    return tourney, ann, organiser, banker, table


class Seat:
    """A table room as the tests use it: the banker's socket and each seated phone."""

    def __init__(self, banker: Client, phones: dict[str, Client], code: str) -> None:
        self.banker, self.phones, self.code = banker, phones, code

    @classmethod
    async def open(
        cls,
        tourney: Tourney,
        table: Mapping[str, Any],
        ws_url: str | None = None,
        phone_urls: Mapping[str, str] | None = None,
    ) -> Seat:
        """Connect the organiser (banker) and every seated player with its tournament token
        (the banker at `ws_url`, each phone at `phone_urls[name]` or there too)."""
        url = ws_url or tourney.ws_url
        code = table["code"]
        banker = await Client.connect(url, code, tourney.organiser_token)
        assert (await welcome(banker))["you"]["role"] == "banker"
        phones = {}
        for pid in table["players"]:
            name = tourney.name_of(pid)
            phone_url = (phone_urls or {}).get(name, url)
            phone = await Client.connect(phone_url, code, tourney.tokens[name])
            hello = await welcome(phone)
            # The same tournament token opens this player's seat in every game's table.
            assert hello["you"] == {"role": "player", "player_id": pid}, hello
            phones[pid] = phone
        return cls(banker, phones, code)


async def play_game(seat: Seat, rounds: int, last: Mapping[str, int | None]) -> dict[int, str]:
    """Play a table's whole game; `last[pid]`: after which roll of the last round it banks
    (None: never, so the closing 7 leaves it 0 for that round).

    Returns each acked command's seq with its type (`start`, `roll`, `bank`)."""
    pids = list(seat.phones)
    early: list[dict[str, Any]] = [{"type": "start"}]
    for _ in range(rounds - 1):
        early.append({"type": "roll", "dice": [6, 4]})
        early.extend({"type": "bank", "player_id": pid} for pid in pids)
    answers = await burst(seat.banker, early)
    assert all(a["type"] == "ack" for a in answers), answers
    acked = {int(a["seq"]): c["type"] for a, c in zip(answers, early)}
    waiting = set(pids)
    for index, dice in enumerate(LAST_ROUND, start=1):
        if not waiting:  # everyone banked: the round, and the game, is over
            break
        acked[await seat.banker.ok(type="roll", dice=dice)] = "roll"
        banking = [pid for pid in pids if last.get(pid) == index]
        acks = await asyncio.gather(*(seat.phones[pid].command(type="bank") for pid in banking))
        assert all(a["type"] == "ack" for a in acks), acks
        acked.update((int(a["seq"]), "bank") for a in acks)
        waiting -= set(banking)
    return acked


def expected_total(rounds: int, banks_after: int | None) -> int:
    """What `play_game` gives a player: 10 per early round, plus its last-round bank."""
    return EARLY_ROUND * (rounds - 1) + (BANK_AFTER[banks_after] if banks_after else 0)


def assert_log_replays(rules: Rules[Any], events: list[Message], state: Message) -> None:
    """The log alone rebuilds the served state (presence aside), and its chain holds."""
    assert verify(events), "the hash chain is broken"
    rebuilt = rules.view(Timeline.replay(rules, events).state, lambda _: False)
    served = {k: v for k, v in state.items() if k not in ("code", "seq", "handover")}
    served["players"] = [{**p, "connected": False} for p in state["players"]]
    assert rebuilt == served
    assert events[-1]["seq"] == state["seq"]
    assert_dice_check_out(events)  # every fair draw re-checks (docs/fair-dice.md)


def assert_room_replays(base_url: str, code: str) -> None:
    state = httpx.get(f"{base_url}/api/rooms/{code}").json()["state"]
    events = httpx.get(f"{base_url}/api/rooms/{code}/log").json()["events"]
    assert_log_replays(BANK.rules, events, state)
