"""The effects rooms ask of each other: create a room with players seated, tell a room.

`create_room` data: {"game", "options", "seats": [{"player_id", "name"}], "code"?}.
The new room is the source room's child (`parent`: it reports to it, and its game
may take the server's own options, e.g. a table another room deals). Its creator is the
source room's creator (their tokens open it the same way); each seat opens for the
token that opened it in the source room, and the source's other players' tokens
open it as a spectator's. The source room is then told the new room's code with the
server command
`{"type": "spawned", "effect": <the rules' effect id>, "code": ...}` (games that
spawn rooms accept it). Every step is idempotent by the effect's id: the codes tried
are derived from it and the room remembers it as its `origin`, the seats are joins
with an id, and the tell carries the effect's id, so a retry after a crash (by this
owner or the next) neither makes a second room nor seats anyone twice.

`tell` data: {"code", "command": {...}}: a server command (role "system") for
another room, deduplicated there by the effect's id.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from app.games.seam import SPECTATOR, SYSTEM, Effect
from app.rooms.effects import Source
from app.rooms.envelope import CommandEnvelope
from app.rooms.registry import CODE_ALPHABET, CODE_LENGTH, RoomRegistry, UnknownRoom


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
        seats = data.get("seats", [])
        seated = {seat["player_id"] for seat in seats}
        onlookers = {
            h: SPECTATOR for h, p in source.tokens.items() if p != creator and p not in seated
        }
        body = {"game": game.name, **data.get("options", {}), "parent": source.code}
        state = await self.registry.create(
            game,
            game.create_options(body, server=True),
            creator_hashes,
            codes=codes_for(effect.id, data.get("code")),
            origin=effect.id,
            parent=source.code,
            onlookers=onlookers,
        )
        code = state["code"]
        for seat in seats:
            player_id = seat["player_id"]
            token_hash = next((h for h, p in source.tokens.items() if p == player_id), None)
            join = CommandEnvelope(
                role=SYSTEM,
                pid=player_id,
                id=f"{effect.id}/seat",
                cmd=game.server_command(_join(seat, source.seeds or {})),
                th=token_hash,  # the seat opens for the token that opened it in the source
                server=True,
            )
            await self.registry.submit(code, join)
        spawned = {"type": "spawned", "effect": rules_effect_id(effect), "code": code}
        await self._system(source.code, spawned, effect.id)

    async def tell(self, source: Source, effect: Effect) -> None:
        with contextlib.suppress(UnknownRoom):  # the room is gone: nothing to tell
            await self._system(effect.data["code"], effect.data["command"], effect.id)

    async def _system(self, code: str, command: Mapping[str, Any], effect_id: str) -> None:
        game_name = (await self.registry.snapshot(code) or {}).get("game")
        game = self.registry.games.get(str(game_name))
        if game is None:
            raise UnknownRoom(code)
        text = game.server_command(command)
        envelope = CommandEnvelope(SYSTEM, None, effect_id, text, server=True)
        await self.registry.submit(code, envelope)


def _join(seat: Mapping[str, Any], seeds: Mapping[str, str]) -> dict[str, Any]:
    """A seat of the new room; with the player's fair-dice seed from the source room, which
    the new room logs again if it draws (docs/fair-dice.md)."""
    join = {"type": "join", "player_id": seat["player_id"], "name": seat["name"]}
    if seat["player_id"] in seeds:
        join["client_seed"] = seeds[seat["player_id"]]
    return join
