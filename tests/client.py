"""A small protocol client for the tests: a real WebSocket, every message kept in order."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.rooms.timeline import Timeline
from tests.bank_support import BANK
from tests.fair import assert_dice_check_out

Message = dict[str, Any]
_ids = itertools.count(1)
OPEN: list[Client] = []  # closed after each test by the `close_clients` fixture


class Client:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[Message] = []
        self.closed: asyncio.Event = asyncio.Event()
        self.close_code: int | None = None
        self._changed = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())
        OPEN.append(self)

    @classmethod
    async def connect(
        cls,
        ws_url: str,
        code: str,
        token: str | None = None,
        *,
        source: str | None = None,
        collection: str = "rooms",
        headers: dict[str, str] | None = None,
    ) -> Client:
        """`source`: the local address to connect from (127.0.0.2...: another client)."""
        url = f"{ws_url}/ws/{collection}/{code}" + (f"?token={token}" if token else "")
        where = {"local_addr": (source, 0)} if source else {}
        ws = await connect(url, max_size=None, open_timeout=5, additional_headers=headers, **where)
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                async with self._changed:
                    self.messages.append(message)
                    self._changed.notify_all()
        except ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()
            async with self._changed:
                self._changed.notify_all()

    async def wait_for(
        self, predicate: Callable[[Message], bool], timeout: float = 5.0, start: int = 0
    ) -> Message:
        """The first message (from index `start`) that matches, waiting up to `timeout`."""
        async with asyncio.timeout(timeout):
            async with self._changed:
                while True:
                    for message in self.messages[start:]:
                        if predicate(message):
                            return message
                    if self.closed.is_set():
                        raise ConnectionError(f"closed with {self.close_code} before a match")
                    await self._changed.wait()

    async def wait_closed(self, timeout: float = 5.0) -> int | None:
        async with asyncio.timeout(timeout):
            await self.closed.wait()
        return self.close_code

    async def send(self, message: Message | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def command(self, timeout: float = 5.0, **command: Any) -> Message:
        """Send with a fresh id and return the matching `ack`, `error` (or `pong`)."""
        command_id = command.pop("id", None) or f"t{next(_ids)}"
        mark = len(self.messages)
        await self.send({**command, "id": command_id})
        return await self.wait_for(
            lambda m: m.get("type") in ("ack", "error", "pong") and m.get("id") == command_id,
            timeout,
            start=mark,
        )

    async def ok(self, **command: Any) -> int:
        """Send a command that must be accepted; its seq."""
        answer = await self.command(**command)
        assert answer["type"] == "ack", answer
        return int(answer["seq"])

    async def refused(self, code: str, **command: Any) -> Message:
        answer = await self.command(**command)
        assert answer["type"] == "error" and answer["code"] == code, answer
        return answer

    def states(self) -> list[Message]:
        return [m["state"] for m in self.messages if m.get("type") in ("welcome", "state")]

    async def state_at_least(self, seq: int, timeout: float = 5.0) -> Message:
        message = await self.wait_for(
            lambda m: m.get("type") in ("welcome", "state") and m["state"]["seq"] >= seq, timeout
        )
        return message["state"]  # type: ignore[no-any-return]

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


class Table:
    """A room made over HTTP: its banker token and seated players."""

    def __init__(self, base_url: str, **options: Any) -> None:
        self.base_url = base_url
        response = httpx.post(f"{base_url}/api/rooms", json={"game": "bank", **options})
        assert response.status_code == 201, response.text
        body = response.json()
        self.code: str = body["code"]
        self.banker_token: str = body["banker_token"]
        self.players: dict[str, tuple[str, str]] = {}  # name -> (player_id, token)

    def join(self, name: str) -> str:
        response = httpx.post(f"{self.base_url}/api/rooms/{self.code}/players", json={"name": name})
        assert response.status_code == 201, response.text
        body = response.json()
        self.players[name] = (body["player_id"], body["token"])
        return str(body["player_id"])

    def state(self) -> Message:
        return httpx.get(f"{self.base_url}/api/rooms/{self.code}").json()["state"]  # type: ignore[no-any-return]

    def log(self) -> list[Message]:
        return httpx.get(f"{self.base_url}/api/rooms/{self.code}/log").json()["events"]  # type: ignore[no-any-return]


def assert_replays_to(events: list[dict[str, Any]], state: dict[str, Any]) -> None:
    """The log alone rebuilds the game (presence aside)."""
    rules = BANK.rules
    rebuilt = rules.view(Timeline.replay(rules, events).state, lambda _: False)
    served = {k: v for k, v in state.items() if k not in ("code", "seq", "handover")}
    served["players"] = [{**p, "connected": False} for p in state["players"]]
    assert rebuilt == served
    assert events[-1]["seq"] == state["seq"]
    assert_dice_check_out(events)  # every fair draw re-checks (docs/fair-dice.md)
