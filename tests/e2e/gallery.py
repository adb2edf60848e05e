"""Every view of every game, each on a page of its own, made once for the axe test
(tests/e2e/test_axe.py): rooms and tournaments are driven over HTTP and a socket of the
test's own (fast), then each person's page is opened with its seat and left on its view."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from tests.e2e.conftest import Table

Message = dict[str, Any]


def drive(base: str, collection: str, code: str, token: str, commands: list[Message]) -> None:
    """Send commands one at a time on a socket of the test's own; each must be acked."""
    url = base.replace("http", "ws", 1) + f"/ws/{collection}/{code}?token={token}"
    prefix = uuid.uuid4().hex  # ids are remembered per seat: a repeated one is not applied again
    with connect(url) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        for n, command in enumerate(commands):
            ws.send(json.dumps({**command, "id": f"{prefix}-{n}"}))
            while (answer := json.loads(ws.recv(timeout=10))).get("id") != f"{prefix}-{n}":
                pass
            assert answer["type"] == "ack", (command, answer)


@dataclass
class Made:
    """A room or tournament made over HTTP: its code, the creator's token, players' seats."""

    base: str
    collection: str
    code: str
    token: str
    players: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (id, token)

    @classmethod
    def create(cls, base: str, collection: str, **options: Any) -> Made:
        body = httpx.post(f"{base}/api/{collection}", json=options).raise_for_status().json()
        token = body.get("banker_token") or body["organiser_token"]
        return cls(base, collection, body["code"], token)

    def join(self, *names: str) -> Made:
        for name in names:
            url = f"{self.base}/api/{self.collection}/{self.code}/players"
            body = httpx.post(url, json={"name": name}).raise_for_status().json()
            self.players[name] = (body["player_id"], body["token"])
        return self

    def id(self, name: str) -> str:
        return self.players[name][0]

    def state(self) -> Message:
        url = f"{self.base}/api/{self.collection}/{self.code}"
        return httpx.get(url).raise_for_status().json()["state"]  # type: ignore[no-any-return]

    def send(self, *commands: Message) -> None:
        drive(self.base, self.collection, self.code, self.token, list(commands))

    def seat(self, name: str | None) -> Message:
        """The localStorage seat of a player, or (None) of the banker / organiser."""
        if name is None:
            role = "banker" if self.collection == "rooms" else "organiser"
            return {"token": self.token, "role": role, "player_id": None, "name": "Host"}
        pid, token = self.players[name]
        return {"token": token, "role": "player", "player_id": pid, "name": name}


def open_page(table: Table, path: str, seats: dict[str, Message] | None = None) -> Page:
    """A phone of its own, holding `seats` (code -> seat) before its first script runs."""
    return table.open(path, seats=seats)


View = tuple[Page, Callable[[Page], None]]  # the page, and how to know it shows the view

NAMES = [
    "home",
    "join",
    "gone",
    "bank lobby, banker",
    "bank lobby, player",
    "bank TV lobby",
    "join, game started",
    "bank play, banker",
    "bank play, player",
    "bank play, player banked",
    "bank TV play",
    "bank final, banker",
    "bank final, player",
    "bank TV final",
    "bunco play, phone",
    "bunco host",
    "bunco TV",
    "bunco at the bell, phone",
    "bunco TV at the bell",
    "bunco final, phone",
    "bunco final, host",
    "bunco TV final",
    "tournament lobby, organiser",
    "tournament lobby, player",
    "tournament playing, organiser",
    "tournament table, player",
    "tournament TV playing",
    "tournament reroll, tied player",
    "tournament reroll, organiser",
    "tournament TV reroll",
    "tournament final, player",
    "tournament final, organiser",
    "tournament TV final",
]


def seen(selector: str, text: str | None = None) -> Callable[[Page], None]:
    def check(page: Page) -> None:
        locator = page.locator(selector)
        if text is None:
            expect(locator).to_be_visible()
        else:
            expect(locator).to_contain_text(text)

    return check


def bank_views(table: Table) -> dict[str, View]:
    base = table.server.base_url
    views: dict[str, View] = {}
    p = lambda path, seats=None: open_page(table, path, seats)  # noqa: E731

    views["home"] = (p("/"), seen("#join-title", "Join a game"))
    lobby = Made.create(base, "rooms", game="bank", rounds=10, roll_entry="banker")
    lobby.join("Ann", "Bob", "Cy")
    views["join"] = (p(f"/r/{lobby.code}"), seen("#join-title", lobby.code))
    views["gone"] = (p("/r/QQQQ"), seen("#gone-title"))
    views["bank lobby, banker"] = (
        p(f"/r/{lobby.code}", {lobby.code: lobby.seat(None)}),
        seen("#lobby-players", "Cy"),
    )
    views["bank lobby, player"] = (
        p(f"/r/{lobby.code}", {lobby.code: lobby.seat("Ann")}),
        seen("#lobby-wait"),
    )
    views["bank TV lobby"] = (p(f"/watch/{lobby.code}"), seen("#tv-lobby-players", "Cy"))

    play = Made.create(base, "rooms", game="bank", rounds=10, roll_entry="banker")
    play.join("Ann", "Bob", "Cy")
    play.send(
        {"type": "start"},
        {"type": "roll", "total": 8},
        {"type": "roll", "dice": [3, 3]},
        {"type": "bank", "player_id": play.id("Bob")},
        {"type": "roll", "total": 5},
        {"type": "roll", "total": 9},
    )
    views["join, game started"] = (p(f"/r/{play.code}"), seen("#join-closed"))
    views["bank play, banker"] = (
        p(f"/r/{play.code}", {play.code: play.seat(None)}),
        seen("#bank-total", "28"),
    )
    views["bank play, player"] = (
        p(f"/r/{play.code}", {play.code: play.seat("Ann")}),
        seen("#bank-btn", "BANK 28"),
    )
    views["bank play, player banked"] = (
        p(f"/r/{play.code}", {play.code: play.seat("Bob")}),
        seen("#bank-btn", "✓ You banked"),
    )
    views["bank TV play"] = (p(f"/watch/{play.code}"), seen("#tv-bank", "28"))

    done = Made.create(base, "rooms", game="bank", rounds=1, roll_entry="banker")
    done.join("Ann", "Bob")
    done.send(
        {"type": "start"},
        {"type": "roll", "total": 6},
        {"type": "bank", "player_id": done.id("Ann")},
        {"type": "roll", "total": 4},
        {"type": "roll", "total": 5},
        {"type": "roll", "total": 7},
    )
    views["bank final, banker"] = (
        p(f"/r/{done.code}", {done.code: done.seat(None)}),
        seen("#final-title", "Ann wins"),
    )
    views["bank final, player"] = (
        p(f"/r/{done.code}", {done.code: done.seat("Bob")}),
        seen("#final-me", "2nd"),
    )
    views["bank TV final"] = (p(f"/watch/{done.code}"), seen("#tv-winner", "Ann wins"))
    return views


BUNCO_NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal"]


def bunco_round(r: int) -> list[Message]:
    """Round r in banker mode: a point at Low, then a Bunco at High rings the bell."""
    miss = [n for n in range(1, 7) if n != r]
    return [
        {"type": "roll", "table": 1, "dice": [r, miss[0], miss[1]]},
        {"type": "roll", "table": 0, "dice": [r, r, r]},
    ]


def bunco_views(table: Table) -> dict[str, View]:
    base = table.server.base_url
    views: dict[str, View] = {}
    p = lambda path, seats=None: open_page(table, path, seats)  # noqa: E731

    live = Made.create(base, "rooms", game="bunco", sets=1, roll_entry="virtual")
    live.join(*BUNCO_NAMES)
    live.send({"type": "start"}, {"type": "roll", "table": 0}, {"type": "roll", "table": 1})
    roller = live.state()["tables"][0]["roller"]
    name = next(n for n, (pid, _) in live.players.items() if pid == roller)
    views["bunco play, phone"] = (
        p(f"/r/{live.code}", {live.code: live.seat(name)}),
        seen("#b-round", "Round 1"),
    )
    views["bunco host"] = (
        p(f"/r/{live.code}", {live.code: live.seat(None)}),
        seen("#h-round", "Round 1"),
    )
    views["bunco TV"] = (p(f"/watch/{live.code}"), seen(".tcard >> nth=0"))

    bell = Made.create(base, "rooms", game="bunco", sets=1, roll_entry="banker")
    bell.join(*BUNCO_NAMES)
    bell.send({"type": "start"}, *bunco_round(1))
    views["bunco at the bell, phone"] = (
        p(f"/r/{bell.code}", {bell.code: bell.seat("Ann")}),
        seen("#b-phase", "Bell rang"),
    )
    views["bunco TV at the bell"] = (p(f"/watch/{bell.code}"), seen("#tv-phase", "Bell"))

    night = Made.create(base, "rooms", game="bunco", sets=1, roll_entry="banker")
    night.join(*BUNCO_NAMES)
    commands: list[Message] = [{"type": "start"}]
    for r in range(1, 7):
        commands += bunco_round(r)
        if r < 6:
            commands.append({"type": "ring"})
    night.send(*commands)
    views["bunco final, phone"] = (
        p(f"/r/{night.code}", {night.code: night.seat("Ann")}),
        seen("#view-final"),
    )
    views["bunco final, host"] = (
        p(f"/r/{night.code}", {night.code: night.seat(None)}),
        seen("#view-final"),
    )
    views["bunco TV final"] = (p(f"/watch/{night.code}"), seen("body[data-view*='final']"))
    return views


def tournament_views(table: Table) -> dict[str, View]:
    base = table.server.base_url
    views: dict[str, View] = {}

    def p(path: str, made: Made, name: str | None) -> Page:
        return open_page(table, path, {made.code: {**made.seat(name), "collection": "tournaments"}})

    lobby = Made.create(base, "tournaments", games=2, rounds=1, roll_entry="virtual")
    lobby.join("Ann", "Bob", "Cy")
    views["tournament lobby, organiser"] = (
        p(f"/t/{lobby.code}", lobby, None),
        seen("#t-lobby-seating"),
    )
    views["tournament lobby, player"] = (p(f"/t/{lobby.code}", lobby, "Ann"), seen("#lobby-wait"))

    tie = Made.create(base, "tournaments", games=2, rounds=1, roll_entry="virtual")
    tie.join("Ann", "Bob", "Cy")
    tie.send({"type": "next"})
    playing = Made.create(base, "tournaments", games=2, rounds=1, roll_entry="virtual")
    playing.join("Ann", "Bob")
    playing.send({"type": "next"})
    views["tournament playing, organiser"] = (
        p(f"/t/{playing.code}", playing, None),
        seen("#t-tables"),
    )
    table_code = playing.state()["tables"][0]["code"]
    views["tournament table, player"] = (
        open_page(table, f"/r/{table_code}", {table_code: playing.seat("Ann")}),
        seen(".back-tournament"),
    )
    views["tournament TV playing"] = (
        p(f"/watch/t/{playing.code}", playing, None),
        seen("#tt-tables"),
    )

    # Ann and Bob bank the same: a tie for 2nd-3rd to reroll.
    room = Made(base, "rooms", tie.state()["tables"][0]["code"], tie.token, tie.players)
    room.send(
        {"type": "start"},
        {"type": "roll", "total": 6},
        {"type": "bank", "player_id": tie.id("Ann")},
        {"type": "bank", "player_id": tie.id("Bob")},
        {"type": "roll", "total": 8},
        {"type": "bank", "player_id": tie.id("Cy")},
    )
    tie.send({"type": "score"})
    views["tournament reroll, tied player"] = (
        p(f"/t/{tie.code}", tie, "Ann"),
        seen("#t-prompt", "roll two dice"),
    )
    views["tournament reroll, organiser"] = (p(f"/t/{tie.code}", tie, None), seen("#t-groups"))
    views["tournament TV reroll"] = (p(f"/watch/t/{tie.code}", tie, None), seen("#tt-reroll"))

    done = Made.create(base, "tournaments", games=1, rounds=1, roll_entry="virtual")
    done.join("Ann", "Bob")
    done.send({"type": "next"})
    room = Made(base, "rooms", done.state()["tables"][0]["code"], done.token, done.players)
    room.send(
        {"type": "start"},
        {"type": "roll", "total": 6},
        {"type": "bank", "player_id": done.id("Ann")},
        {"type": "roll", "total": 8},
        {"type": "bank", "player_id": done.id("Bob")},
    )
    done.send({"type": "score"})
    views["tournament final, player"] = (p(f"/t/{done.code}", done, "Ann"), seen("#t-winner"))
    views["tournament final, organiser"] = (p(f"/t/{done.code}", done, None), seen("#t-winner"))
    views["tournament TV final"] = (p(f"/watch/t/{done.code}", done, None), seen("body"))
    return views
