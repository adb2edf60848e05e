"""Phones that follow a room's state to the room it names, at once: no retry, no sleep.

A tournament's player opens its table the moment the tournament's state lists it; a
phone or a TV of a room played again opens `next_game` the moment it appears. Each
must be welcomed in its own seat there on the first try, whichever process serves it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.client import Client
from tests.games.tournament.support import connect_tournament, welcome

Message = dict[str, Any]
FOLLOW_SECONDS = 20  # a loaded machine; a takeover after a kill waits for the lease


def named(predicate: Callable[[Message], str | None]) -> Callable[[Message], bool]:
    """A message whose state names a room (by `predicate`)."""
    return lambda m: m.get("type") in ("welcome", "state") and predicate(m["state"]) is not None


async def follow(
    source: Client, where: Callable[[Message], str | None], ws_url: str, token: str | None
) -> tuple[str, Message]:
    """Wait until `source`'s state names a room, open it once, return its code and welcome."""
    message = await source.wait_for(named(where), FOLLOW_SECONDS)
    code = where(message["state"])
    assert code is not None
    client = await Client.connect(ws_url, code, token)
    first = await client.wait_for(lambda m: True, FOLLOW_SECONDS)
    assert first["type"] == "welcome", first  # not 4404, not an error: the room is whole
    return code, first


def table_of(player_id: str, game: int) -> Callable[[Message], str | None]:
    """The code of the table the tournament's state seats `player_id` at in `game`."""

    def where(state: Message) -> str | None:
        if state["current"] != game:
            return None
        return next((t["code"] for t in state["tables"] if player_id in t["players"]), None)

    return where


def next_game(state: Message) -> str | None:
    code: str | None = state.get("next_game")
    return code


async def tournament_phone(ws_url: str, code: str, token: str) -> Client:
    phone = await connect_tournament(ws_url, code, token)
    assert (await welcome(phone))["you"]["role"] == "player"
    return phone
