"""A Desert Dynasty tournament behind the `Rules` seam: a room whose games are BANK rooms.

`next` seats the players at tables and asks (by `create_room` effects) for one BANK
room per table; the state names a table only once the server said its room is made
(`spawned`: the room exists with its seats), so a phone that follows the name at once
finds its seat. The room machinery reports each table room's change of status back
as the internal `report` command (role "system"), the totals with a finished one;
`score` tells each table room to `lock` (refuse undo from then on) and takes the totals
once every table has reported itself locked (the tournament stays `scoring` until
then; a table reopened by an undo that won the race takes it back to `playing`), then
starts the sudden-death rerolls that `tournament_scoring` describes.

Choices where the contract is silent (also for docs/protocol.md):
- A tournament seats at most 50 players (`room_full`), as a BANK room does.
- `join` is not checked by role: only the HTTP route sends it.
- A `table` report for a table that is not of the game in play, or once its game is
  scored, is refused with `stale_table` (only the system sends it).
- Table codes of one `next` are distinct; the machinery handles clashes with live rooms.
- A result's `rerolls` lists each group once all its players rolled, in that order.
- A player's reroll without dice in `banker` or `roller` mode is a `bad_message` (as a
  BANK roll is); with dice in `virtual` mode, or in `banker` mode, it is `not_allowed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from app.games.common import Join, Kick, bank_house_rules, group_report, join_kick_seating
from app.games.names import clean_name, name_taken
from app.games.patch import Op
from app.games.seam import (
    PLAYER,
    STRICT,
    Chance,
    Connected,
    Effect,
    Event,
    RuleError,
    Seating,
    Sender,
    UndoPolicy,
    fairness_of,
    revealing,
)
from app.games.tournament import scoring
from app.games.tournament.state import Player, Result, Status, Table, TournamentState
from app.games.tournament.view import tournament_view, view_changes, view_patch

ORGANISER = "organiser"
SYSTEM = "system"
ROLL_ENTRIES = ("banker", "roller", "virtual")
TABLE_STATUSES = ("lobby", "playing", "finished")
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 4
LOCK = {"type": "lock"}  # what a scored table room is told: it refuses undo from then on


@dataclass(frozen=True, slots=True)
class Next:
    type: Literal["next"]
    tables: list[list[str]] | None = None
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Score:
    type: Literal["score"]
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Reroll:
    type: Literal["reroll"]
    player_id: str | None = None
    dice: list[int] | None = None
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class TableStatus:
    """Internal: a table room's report of its new status (rooms/room.py `_report`)."""

    type: Literal["report"]
    code: str
    status: str
    totals: dict[str, int] | None = None
    table: int | None = None
    locked: bool | None = None  # the table refuses undo from now on: its totals are final
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Spawned:
    """Internal: a table room is made, seats and all, under this code (rooms/spawning.py).

    The code differs from the drawn one only when that code was taken by a live room."""

    effect: str
    code: str
    type: Literal["spawned"] = "spawned"
    __pydantic_config__: ClassVar[Any] = STRICT


Command = Next | Score | Reroll | Kick | Join | TableStatus | Spawned


def draw_code(chance: Chance) -> str:
    """A table room's code: 4 characters of the unambiguous alphabet, by lot."""
    return "".join(
        CODE_ALPHABET[chance.dice(1, sides=len(CODE_ALPHABET))[0] - 1] for _ in range(CODE_LENGTH)
    )


def _option(options: Mapping[str, Any], key: str, default: int, top: int) -> int:
    value = options.get(key, default)
    if type(value) is not int or not 1 <= value <= top:
        raise RuleError(f"bad_{key}", f"{key} is a whole number from 1 to {top}.")
    return value


class TournamentRules:
    """Desert Dynasty: `games` BANK games, places scored, ties rerolled, a bonus for 1st."""

    name = "tournament"
    creator = ORGANISER
    undo = UndoPolicy(
        roles=frozenset(),
        events=frozenset(),
        nothing_left="A tournament has nothing to undo: undo rolls in the table rooms.",
        not_allowed="A tournament has no undo: the banker undoes rolls in a table room.",
    )

    def __init__(self, max_players: int = 50) -> None:
        self.max_players = max_players

    def create(self, options: Mapping[str, Any]) -> TournamentState:
        games = _option(options, "games", 4, 10)
        rounds = _option(options, "rounds", 10, 100)
        roll_entry = options.get("roll_entry", "banker")
        if roll_entry not in ROLL_ENTRIES:
            raise RuleError("bad_roll_entry", "roll_entry is banker, roller or virtual.")
        table_rules = tuple(sorted(bank_house_rules(options).items()))
        return TournamentState(
            games,
            rounds,
            roll_entry,
            self.max_players,
            table_rules=table_rules,
            fair=fairness_of(options),
            in_group=options.get("group") is True,
        )

    # -- decide ------------------------------------------------------------------
    def decide(self, state: TournamentState, sender: Sender, command: Any, chance: Chance) -> Event:
        if isinstance(command, Reroll):
            return self._decide_reroll(state, sender, command, chance)
        if isinstance(command, TableStatus):
            return self._decide_table(state, sender, command)
        if isinstance(command, Spawned):
            return self._decide_spawned(state, sender, command)
        if isinstance(command, Next):
            return self._decide_next(state, sender, command, chance)
        if isinstance(command, Score):
            return self._decide_score(state, sender)
        if isinstance(command, Join):
            return self._decide_join(state, command)
        if isinstance(command, Kick):
            return self._decide_kick(state, sender, command.player_id)
        raise RuleError("bad_message", f"A tournament has no command {command!r}.")

    def _decide_join(self, state: TournamentState, command: Join) -> Event:
        name = clean_name(command.name)
        if state.status not in ("lobby", "between"):
            raise RuleError("not_in_lobby", "Players join in the lobby or between games.")
        if name_taken(name, (p.name for p in state.players)):
            raise RuleError("name_taken", f"{name!r} is taken in this tournament.")
        if len(state.players) >= state.max_players:
            raise RuleError("room_full", f"A tournament seats at most {state.max_players}.")
        return Event("join", {"player_id": command.player_id, "name": name})

    def _decide_kick(self, state: TournamentState, sender: Sender, player_id: str) -> Event:
        if sender.role != ORGANISER:
            raise RuleError("not_allowed", "Only the organiser removes players.")
        if state.player(player_id) is None:
            raise RuleError("unknown_player", "No such player in this tournament.")
        if state.status != "lobby":
            raise RuleError("not_in_lobby", "Players can be removed only before the first game.")
        return Event("kick", {"player_id": player_id})

    def _decide_next(
        self, state: TournamentState, sender: Sender, command: Next, chance: Chance
    ) -> Event:
        if sender.role != ORGANISER:
            raise RuleError("not_allowed", "Only the organiser starts a game.")
        if command.tables is None:
            seating = [[p.id for p in state.players]] if state.players else []
        else:
            seating = command.tables
            if any(state.player(pid) is None for table in seating for pid in table):
                raise RuleError("unknown_player", "The seating names a stranger.")
        _require_not_over(state)
        if state.status not in ("lobby", "between"):
            raise RuleError("game_in_progress", "The current game is not scored yet.")
        seated = [pid for table in seating for pid in table]
        if len(set(seated)) != len(seated) or any(not table for table in seating):
            raise RuleError("bad_seating", "Each player sits at most once, at no empty table.")
        if not seated:
            raise RuleError("not_enough_players", "A game needs at least one player.")
        game = state.current + 1
        codes: list[str] = []
        while len(codes) < len(seating):
            code = draw_code(chance)
            if code not in codes:
                codes.append(code)
        tables = [
            {"table": number, "code": code, "players": list(players), "made": False}
            for number, (code, players) in enumerate(zip(codes, seating), start=1)
        ]
        effects = tuple(self._create_room(state, game, table) for table in tables)
        return Event("next", {"game": game, "tables": tables}, effects)

    def _create_room(self, state: TournamentState, game: int, table: dict[str, Any]) -> Effect:
        names = {p.id: p.name for p in state.players}
        data = {
            "game": "bank",
            "code": table["code"],
            "options": {
                "rounds": state.rounds,
                "roll_entry": state.roll_entry,
                **dict(state.table_rules),  # the house rules of every table
                "tournament": {"game": game, "table": table["table"]},
            },
            "seats": [{"player_id": pid, "name": names[pid]} for pid in table["players"]],
        }
        return Effect("create_room", f"{game}-{table['table']}", data)

    def _decide_spawned(self, state: TournamentState, sender: Sender, command: Spawned) -> Event:
        if sender.role != SYSTEM:
            raise RuleError("not_allowed", "Only the server says where a table was made.")
        game, _, number = command.effect.partition("-")
        table = next((t for t in state.tables if str(t.table) == number), None)
        if table is None or game != str(state.current):
            raise RuleError("stale_table", "That table is not of the game in play.")
        if table.made and table.code == command.code:
            raise RuleError("nothing_to_change", "That table is made already.")
        return Event("table_code", {"table": table.table, "code": command.code})

    def _decide_table(self, state: TournamentState, sender: Sender, command: TableStatus) -> Event:
        if sender.role != SYSTEM:
            raise RuleError("not_allowed", "Only the server reports a table's status.")
        finished = command.status == "finished"
        if command.status not in TABLE_STATUSES or finished != (command.totals is not None):
            raise RuleError("bad_message", "A table is lobby, playing or finished (with totals).")
        table = next((t for t in state.tables if t.code == command.code), None)
        live = state.status in ("playing", "scoring")
        numbered = command.table in (None, table.table if table else None)
        if table is None or not numbered or not live:
            raise RuleError("stale_table", "That table is not of the game in play.")
        if command.locked and not finished:
            raise RuleError("bad_message", "Only a finished table is locked.")
        data: dict[str, Any] = {"table": table.table, "code": table.code, "status": command.status}
        if command.totals is not None:
            if set(command.totals) != set(table.players):
                raise RuleError("bad_message", "The totals are those of the table's players.")
            data["totals"] = dict(command.totals)
        if command.locked:
            data["locked"] = True
        return Event("table", data)

    def _decide_score(self, state: TournamentState, sender: Sender) -> Event:
        if sender.role != ORGANISER:
            raise RuleError("not_allowed", "Only the organiser closes a game.")
        _require_not_over(state)
        if state.status != "scoring":
            raise RuleError("not_finished", "Every table of the game must be finished first.")
        locks = tuple(_lock(t, state.current) for t in state.tables if not t.locked)
        return Event("score", {"game": state.current}, locks)

    def _decide_reroll(
        self, state: TournamentState, sender: Sender, command: Reroll, chance: Chance
    ) -> Event:
        dice = command.dice
        if dice is not None and (len(dice) != 2 or any(type(d) is not int for d in dice)):
            raise RuleError("bad_message", "A reroll is two dice, e.g. [3, 4].")
        if dice is not None and not all(1 <= d <= 6 for d in dice):
            raise RuleError("bad_message", "Each die shows 1 to 6.")
        if dice is None and state.roll_entry != "virtual":
            raise RuleError("bad_message", "A reroll needs its dice, e.g. [3, 4].")
        if sender.role == ORGANISER:
            if command.player_id is None:
                raise RuleError("bad_message", "The organiser rolls for a player: give player_id.")
            target = command.player_id
        elif sender.role == PLAYER and sender.player_id is not None:
            if state.roll_entry == "banker":
                raise RuleError("not_allowed", "In this tournament the organiser enters rolls.")
            if state.roll_entry == "virtual" and dice is not None:
                raise RuleError("not_allowed", "In this tournament the server rolls the dice.")
            if command.player_id not in (None, sender.player_id):
                raise RuleError("not_allowed", "A player rerolls only for itself.")
            target = sender.player_id
        else:
            raise RuleError("not_allowed", "Only players and the organiser reroll.")
        if state.player(target) is None:
            raise RuleError("unknown_player", "No such player in this tournament.")
        _require_not_over(state)
        group = state.scoring.group_of(target) if state.scoring else None
        if state.status != "reroll" or group is None:
            raise RuleError("no_reroll", "No reroll is pending for that player.")
        if group.roll_of(target) is not None:
            raise RuleError("already_rolled", "That player has rolled in this group already.")
        rolled = list(dice) if dice is not None else list(chance.dice(2))
        return Event("reroll", {"player_id": target, "dice": rolled})

    # -- evolve ------------------------------------------------------------------
    def evolve(self, state: TournamentState, event: Event, seq: int) -> TournamentState:
        return revealing(self._evolve(state, event, seq), event.data)

    def _evolve(self, state: TournamentState, event: Event, seq: int) -> TournamentState:
        data = event.data
        if event.type == "join":
            return replace(state, players=(*state.players, Player(data["player_id"], data["name"])))
        if event.type == "kick":
            kept = tuple(p for p in state.players if p.id != data["player_id"])
            return replace(state, players=kept)
        if event.type == "next":
            tables = tuple(
                Table(t["table"], t["code"], tuple(t["players"]), made=t.get("made", True))
                for t in data["tables"]
            )
            return replace(state, status="playing", current=data["game"], tables=tables)
        if event.type == "table":
            return _after_table(state, data)
        if event.type == "table_code":
            tables = tuple(
                replace(t, code=data["code"], made=True) if t.table == data["table"] else t
                for t in state.tables
            )
            return replace(state, tables=tables)
        if event.type == "score":
            if "totals" in data:  # logged before scores waited for the locks
                return _settle(replace(state, scoring=scoring.start(data["totals"])))
            return _close_if_locked(replace(state, closing=True))
        if event.type == "reroll":
            dice = (data["dice"][0], data["dice"][1])
            assert state.scoring is not None
            return _settle(
                replace(state, scoring=scoring.roll(state.scoring, data["player_id"], dice))
            )
        raise ValueError(f"A tournament has no event {event.type!r}")

    def seating(self, event: Event) -> Seating:
        return join_kick_seating(event)

    def view(self, state: TournamentState, connected: Connected) -> dict[str, Any]:
        return tournament_view(state, connected)

    def view_changes(
        self, before: TournamentState, after: TournamentState, connected: Connected
    ) -> dict[str, Any] | None:
        return view_changes(before, after, connected)

    def view_patch(
        self, before: TournamentState, after: TournamentState, connected: Connected
    ) -> list[Op] | None:
        return view_patch(before, after, connected)

    def player_ids(self, state: TournamentState) -> list[str]:
        return [p.id for p in state.players]

    def followers(self, state: TournamentState, principal: str | None) -> list[str]:
        """Its tables' rooms: every one for the organiser, a player's own for a seat."""
        tables = [(t.code, t.players) for t in state.tables if t.made]
        for result in state.results:
            tables.extend((code, ()) for code in result.tables if principal is None)
        chosen = (code for code, seated in tables if principal is None or principal in seated)
        return list(dict.fromkeys(code for code in chosen if code))

    def finished(self, state: TournamentState) -> bool:
        return state.status == "finished"

    def report(self, state: TournamentState) -> Mapping[str, Any] | None:
        """A tournament started from a group tells it its status, and its result once
        over (score: the points of its standings; won: among its winners)."""
        if not state.in_group:
            return None
        if state.status != "finished":
            return group_report(state.status)
        ids = [p.id for p in state.players]
        table = scoring.standings(ids, [r.places for r in state.results], state.games, True)
        winners = set(scoring.winners(table, True))
        names = {p.id: p.name for p in state.players}
        rows = [
            {
                "id": line.player_id,
                "name": names[line.player_id],
                "score": scoring.as_number(line.total),
                "won": line.player_id in winners,
                "points": scoring.as_number(line.total),
            }
            for line in table
        ]
        return group_report("finished", rows)


def _lock(table: Table, game: int) -> Effect:
    """Tell a table room to lock; a room already freed can no longer change, so its
    last report stands as locked (the server reports that for it)."""
    gone = {
        "type": "report",
        "code": table.code,
        "status": "finished",
        "totals": dict(table.totals or {}),
        "table": table.table,
        "locked": True,
    }
    data = {"code": table.code, "command": LOCK, "if_gone": gone}
    return Effect("tell", f"lock-{game}-{table.table}", data)


def _require_not_over(state: TournamentState) -> None:
    if state.status == "finished":
        raise RuleError("tournament_over", "The tournament is over.")


def _after_table(state: TournamentState, data: Mapping[str, Any]) -> TournamentState:
    """A table's report: a reopened table cancels a `score` waiting for the locks."""
    tables = tuple(
        replace(
            t, status=data["status"], totals=data.get("totals"), locked=bool(data.get("locked"))
        )
        if t.table == data["table"]
        else t
        for t in state.tables
    )
    if not all(t.status == "finished" for t in tables):
        return replace(state, tables=tables, status="playing", closing=False)
    return _close_if_locked(replace(state, tables=tables, status="scoring"))


def _close_if_locked(state: TournamentState) -> TournamentState:
    """Once `score` was sent and every table is locked, their totals are final: take them."""
    if not state.closing or not all(t.locked for t in state.tables):
        return state
    totals = {pid: n for table in state.tables for pid, n in (table.totals or {}).items()}
    return _settle(replace(state, closing=False, scoring=scoring.start(totals)))


def _settle(state: TournamentState) -> TournamentState:
    """After `score` or a reroll: once no group is pending, the game's places are final."""
    assert state.scoring is not None
    if not state.scoring.done:
        return replace(state, status="reroll")
    result = Result(
        game=state.current,
        tables=tuple(t.code for t in state.tables),
        totals=state.scoring.totals,
        places=state.scoring.places,
        rerolls=state.scoring.rerolls,
    )
    status: Status = "finished" if state.current >= state.games else "between"
    return replace(state, status=status, scoring=None, results=(*state.results, result))
