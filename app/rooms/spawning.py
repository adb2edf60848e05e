"""The effects rooms ask of each other: create a room with players seated, tell a room.

`create_room` data: {"game", "options", "seats": [{"player_id", "name"}], "code"?}.
The new room is the source room's child (`parent`: it reports to it, and its game
may take the server's own options, e.g. a table another room deals). It is made
whole, in one fenced write: its `create` event carries the seats (the game's server
options take `seats`, in order), and its first record binds every token it knows: the
source's creator's tokens open it as its creator, each seated player's tokens open
their seat, and the source's other tokens open it as a spectator's. So no reader on
any process (a socket's welcome, `GET`, the source's state) can see it half seated.
The source room is then told the new room's code with the server command
`{"type": "spawned", "effect": <the rules' effect id>, "code": ...}` (games that
spawn rooms accept it). Every step is idempotent by the effect's id: the codes tried
are derived from it and the room remembers it as its `origin`, and the tell carries
the effect's id, so a retry after a crash (by this owner or the next) neither makes
a second room nor tells the source twice.

`tell` data: {"code", "command": {...}, "if_gone"?: {...}}: a server command (role
"system") for another room, deduplicated there by the effect's id. When that room is
gone (freed), nothing can change there any more: the source is sent `if_gone`, if
given, instead (a tournament's `lock` of a freed table: its last report stands).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from app.games.seam import SPECTATOR, SYSTEM, Effect
from app.rooms import succession
from app.rooms.effects import Source
from app.rooms.envelope import CommandEnvelope
from app.rooms.registry import CODE_ALPHABET, CODE_LENGTH, RoomRegistry, UnknownRoom


class SeatsRefused(Exception):
    """A game asked for seats at a room whose create options do not take them."""


def codes_for(effect_id: str, wish: str | None = None) -> Iterator[str]:
    """The room codes an effect tries, in order: the same on every try."""
    if wish:
        yield wish
    for attempt in range(1_000):
        digest = hashlib.sha256(f"{effect_id}/{attempt}".encode()).digest()
        yield "".join(CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in digest[:CODE_LENGTH])


def rules_effect_id(effect: Effect) -> str:
    """The id the rules gave the effect (the room prefixed it with its code and seq)."""
    return effect.id.split(".", 2)[-1]


def handed_on(tokens: Mapping[str, str], creator: str, seated: set[str]) -> dict[str, str]:
    """The source's tokens as the new room binds them: a seat for a seated player, a
    spectator's view for anyone else (the creator's are bound apart, as its creator)."""
    return {h: p if p in seated else SPECTATOR for h, p in tokens.items() if p != creator}


class Spawner:
    def __init__(self, registry: RoomRegistry) -> None:
        self.registry = registry
        registry.effects.register("create_room", self.create_room)
        registry.effects.register("tell", self.tell)

    async def create_room(self, source: Source, effect: Effect) -> None:
        data = effect.data
        game = self.registry.games[data["game"]]
        source_snapshot = await self.registry.snapshot(source.code)
        creator = source_snapshot["creator"] if source_snapshot else ""
        creator_hashes = [h for h, principal in source.tokens.items() if principal == creator]
        seats = [_seat(seat) for seat in data.get("seats", [])]
        body = {"game": game.name, **data.get("options", {}), "parent": source.code}
        if seats:
            body["seats"] = seats
        options = game.create_options(body, server=True)
        if seats and options.get("seats") != seats:
            raise SeatsRefused(f"{game.name} takes no seats when it is created")
        state = await self.registry.create(
            game,
            options,
            creator_hashes,
            codes=codes_for(effect.id, data.get("code")),
            origin=effect.id,
            parent=source.code,
            tokens=handed_on(source.tokens, creator, {seat["player_id"] for seat in seats}),
        )
        spawned = {"type": "spawned", "effect": rules_effect_id(effect), "code": state["code"]}
        await self._system(source.code, spawned, effect.id)

    async def tell(self, source: Source, effect: Effect) -> None:
        try:
            await self._system(effect.data["code"], effect.data["command"], effect.id)
        except UnknownRoom:
            gone = effect.data.get("if_gone")
            if gone is not None:
                await self._system(source.code, gone, f"{effect.id}/gone")

    async def _system(self, code: str, command: Mapping[str, Any], effect_id: str) -> None:
        game_name = (await self.registry.snapshot(code) or {}).get("game")
        game = self.registry.games.get(str(game_name))
        if game is None:
            raise UnknownRoom(code)
        if command.get("type") in succession.COMMANDS:  # the room's own, not its game's
            text = orjson.dumps(command).decode()
        else:
            text = game.server_command(command)
        envelope = CommandEnvelope(SYSTEM, None, effect_id, text, server=True)
        await self.registry.submit(code, envelope)


def _seat(seat: Mapping[str, Any]) -> dict[str, Any]:
    return {"player_id": seat["player_id"], "name": seat["name"]}
