"""A group behind the `Rules` seam: the same friends, many game nights, one standings table.

A group is a room of the game "group" (collection "groups"): its log is hash-chained and
replayable like any room's, it lives in the same stores, has one owner, and hears of
its games as data. Its creator is the host. Members are seated by the server's `join`
(their token opens the group as them, and the games it starts); a member is an id
only: their name is on their member card (app/games/member), which `leave` deletes,
so that no name of theirs stays in the group's stored data (docs/protocol.md, "Groups").

The host starts a game (`start_game`, sent by the HTTP route once it validated the
options): a `create_room` effect makes a BANK room, a Bunco night or a tournament whose
`parent` is the group, and the group is told its code (`spawned`, deduplicated by the
effect's id). The game reports its status to the group, and its result once over
(`report`, a `tell` effect of the game's own event: stored with it, carried out after
the commit and again by the next owner until done). A result is recorded once per
game code: the same result again is refused (`already_recorded`), and a game reopened
by an undo takes its result back until it is over again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from app.games.group.state import GAMES, MAX_MEMBERS, GameLine, GroupState
from app.games.group.view import group_view
from app.games.names import clean_name
from app.games.seam import (
    NO_SEATING,
    STRICT,
    SYSTEM,
    Chance,
    Connected,
    Effect,
    Event,
    RuleError,
    Seating,
    Sender,
    UndoPolicy,
)

HOST = "host"
MAX_GROUP_NAME = 40
STATUSES = ("lobby", "playing", "scoring", "between", "reroll", "finished")
ROW_NUMBERS = ("score", "biggest_bank", "lost_to_seven", "wins", "losses", "buncos", "points")


@dataclass(frozen=True, slots=True)
class CloseSeason:
    type: Literal["close_season"]
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class JoinMember:
    """Server: a member joins (their name is on their card, whose code is their id)."""

    type: Literal["join"]
    player_id: str
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Leave:
    """Server: a member leaves, and takes their history out."""

    type: Literal["leave"]
    player_id: str
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class StartGame:
    """Server: the host starts a game; the route validated `options` for `game`."""

    type: Literal["start_game"]
    game: str
    options: dict[str, Any]
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Spawned:
    type: Literal["spawned"]
    effect: str
    code: str
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Report:
    """Server: a game of the group tells its status, and its result once over."""

    type: Literal["report"]
    code: str
    status: str
    result: list[dict[str, Any]] | None = None
    __pydantic_config__: ClassVar[Any] = STRICT


class GroupRules:
    name = "group"
    creator = HOST
    undo = UndoPolicy(
        roles=frozenset(),
        events=frozenset(),
        nothing_left="A group has nothing to undo: undo rolls in its games.",
        not_allowed="A group has no undo: undo rolls in its games.",
    )

    def create(self, options: Mapping[str, Any]) -> GroupState:
        raw = options.get("name")
        if not isinstance(raw, str):
            raise RuleError("bad_name", "A group needs a name.")
        return GroupState(name=clean_name(raw, MAX_GROUP_NAME))

    # -- decide ------------------------------------------------------------------
    def decide(self, state: GroupState, sender: Sender, command: Any, chance: Chance) -> Event:
        if isinstance(command, Report):
            return _decide_report(state, sender, command)
        if isinstance(command, Spawned):
            return _decide_spawned(state, sender, command)
        if isinstance(command, StartGame):
            return _decide_start(state, sender, command)
        if isinstance(command, CloseSeason):
            if sender.role != HOST:
                raise RuleError("not_allowed", "Only the host closes the season.")
            if not any(g.season == state.season for g in state.games):
                raise RuleError("empty_season", "This season has no game yet.")
            return Event("season_closed", {"season": state.season})
        if isinstance(command, JoinMember):
            if command.player_id in state.members:
                raise RuleError("already_member", "Already a member of this group.")
            if len(state.members) >= MAX_MEMBERS:
                raise RuleError("group_full", f"A group has at most {MAX_MEMBERS} members.")
            return Event("join", {"player_id": command.player_id})
        if isinstance(command, Leave):
            if command.player_id not in state.members:
                raise RuleError("unknown_player", "No such member in this group.")
            return Event("leave", {"player_id": command.player_id})
        raise RuleError("bad_message", f"A group has no command {command!r}.")

    def evolve(self, state: GroupState, event: Event, seq: int) -> GroupState:
        data = event.data
        if event.type == "join":
            return replace(state, members=(*state.members, data["player_id"]))
        if event.type == "leave":
            return state.without(data["player_id"])
        if event.type == "game":
            line = GameLine(data["effect"], data["game"], data["season"])
            return replace(state, games=(*state.games, line))
        if event.type == "game_code":
            line = next(g for g in state.games if g.effect == data["effect"])
            return state.with_line(replace(line, code=data["code"]))
        if event.type == "game_status":
            line = _line(state, data["code"])
            result = data.get("result")
            rows = None if result is None else tuple(result)
            return state.with_line(replace(line, status=data["status"], result=rows))
        if event.type == "season_closed":
            return replace(state, season=data["season"] + 1)
        return state

    def seating(self, event: Event) -> Seating:
        if event.type == "join":
            return Seating(seated=(event.data["player_id"],))
        if event.type == "leave":
            return Seating(unseated=(event.data["player_id"],))
        return NO_SEATING

    def view(self, state: GroupState, connected: Connected) -> dict[str, Any]:
        return group_view(state, connected)

    def player_ids(self, state: GroupState) -> list[str]:
        return list(state.members)

    def finished(self, state: GroupState) -> bool:
        return False

    def report(self, state: GroupState) -> None:
        return None


def _line(state: GroupState, code: str) -> GameLine:
    line = state.line(code)
    if line is None:
        raise RuleError("unknown_game", "This group started no such game.")
    return line


def _system(sender: Sender) -> None:
    if sender.role != SYSTEM:
        raise RuleError("not_allowed", "Only the server sends this.")


def _decide_start(state: GroupState, sender: Sender, command: StartGame) -> Event:
    if sender.role != HOST:
        raise RuleError("not_allowed", "Only the host starts a game.")
    if command.game not in GAMES:
        raise RuleError("bad_game", "A group plays bank, bunco or tournament.")
    effect = f"game-{len(state.games) + 1}"
    options = {**command.options, "group": True}
    spawn = Effect("create_room", effect, {"game": command.game, "options": options})
    touch = {"type": "touch"}  # the members' cards live as long as the group is in use
    touches = tuple(
        Effect("tell", f"{effect}-touch-{member}", {"code": member, "command": touch})
        for member in state.members
    )
    data = {"effect": effect, "game": command.game, "season": state.season}
    return Event("game", data, effects=(spawn, *touches))


def _decide_spawned(state: GroupState, sender: Sender, command: Spawned) -> Event:
    _system(sender)
    line = next((g for g in state.games if g.effect == command.effect), None)
    if line is None:
        raise RuleError("unknown_game", "This group started no such game.")
    if line.code is not None:
        raise RuleError("already_recorded", "This game's code is known already.")
    return Event("game_code", {"effect": command.effect, "code": command.code})


def _decide_report(state: GroupState, sender: Sender, command: Report) -> Event:
    """A game's status; its result rows as the group keeps them: a member's without
    their name (it is on their card), a guest's with theirs, numbers only."""
    _system(sender)
    line = _line(state, command.code)
    if command.status not in STATUSES:
        raise RuleError("bad_message", "Unknown status.")
    data: dict[str, Any] = {"code": command.code, "status": command.status}
    if command.result is not None:
        data["result"] = [_row(row, state.members) for row in command.result]
    rows = data.get("result")
    if line.status == command.status and (None if rows is None else tuple(rows)) == line.result:
        raise RuleError("already_recorded", "The group has this report already.")
    return Event("game_status", data)


def _row(row: Mapping[str, Any], members: tuple[str, ...]) -> dict[str, Any]:
    kept: dict[str, Any] = {"id": str(row["id"]), "won": bool(row.get("won"))}
    for key in ROW_NUMBERS:
        value = row.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            kept[key] = value
    kept.setdefault("score", 0)
    if kept["id"] not in members:
        kept["guest"] = str(row.get("name", "guest"))
    return kept
