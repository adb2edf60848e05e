"""A group with one night played, made over real sockets for the browser tests and the
screenshots (scripts/screenshots_group.py): Ann and Bob are members, Gus a guest."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

from tests.client import OPEN, Client
from tests.games.group.season import Group, play_bank

PHONE: ViewportSize = {"width": 390, "height": 844}
TV: ViewportSize = {"width": 1280, "height": 720}


@dataclass
class Night:
    code: str
    host_token: str
    members: dict[str, tuple[str, str]]  # name -> (member id, token)
    game: str  # the BANK game played


def played_night(base_url: str, ws_url: str) -> Night:
    """Made in a thread of its own: Playwright's sync API owns this thread's loop."""
    made: list[Night] = []

    async def play() -> None:
        group = Group(base_url, ws_url, "Thursday club")
        ann, bob = group.join("Ann"), group.join("Bob")
        code = await group.start("bank", rounds=1)
        ids = {"Ann": group.seat("Ann", code), "Bob": group.seat("Bob", code)}
        ids["Gus"] = group.guest("rooms", code, "Gus")
        await play_bank(group, code, ids)
        await group.recorded(code)
        group.http.close()
        made.append(Night(group.code, group.host_token, group.members, code))
        assert ann and bob
        while OPEN:  # closed on this thread's loop, not left to the next async test's
            await OPEN.pop().close()

    thread = threading.Thread(target=asyncio.run, args=(play(),))
    thread.start()
    thread.join(60)
    assert made, "the night was not played"
    return made[0]


def phone(
    browser: Browser,
    base_url: str,
    path: str,
    membership: dict[str, Any] | None = None,
    code: str = "",
    viewport: ViewportSize = PHONE,
) -> tuple[BrowserContext, Page]:
    """A new phone showing `path`, keeping `membership` of group `code`."""
    context = browser.new_context(viewport=viewport, base_url=base_url, service_workers="block")
    context.set_default_timeout(10_000)
    if membership:
        saved = json.dumps(json.dumps(membership))
        context.add_init_script(f"localStorage.setItem('bankit:group:{code}', {saved})")
    page = context.new_page()
    page.goto(path)
    return context, page


def finish_game(ws_url: str, code: str, host_token: str, player_id: str) -> None:
    """The host ends a one-round BANK game of one player: start, a roll, their BANK."""

    async def play() -> None:
        banker = await Client.connect(ws_url, code, host_token)
        await banker.wait_for(lambda m: m["type"] == "welcome")
        for command in ({"type": "start"}, {"type": "roll", "dice": [6, 4]}):
            await banker.ok(**command)
        await banker.ok(type="bank", player_id=player_id)
        while OPEN:
            await OPEN.pop().close()

    thread = threading.Thread(target=asyncio.run, args=(play(),))
    thread.start()
    thread.join(30)
