"""The rules of Bunco (seeds/002, PROTOCOL-bunco.md), pure, behind the `Rules` seam.

Choices where the contract leaves them to the server (also for docs/protocol.md):
- Player counts: 8, 12, 16, 20 or 24 players on n / 4 tables. Any other count, 0 and
  4 included, is refused at `start` with `bad_player_count` (no ghost seats: a ghost
  would win or lose rounds that count for real partners). A 25th `join` is `room_full`.
- Table names: High, Middle, Low with 3 tables; High, Low with 2; otherwise High,
  Middle 1, Middle 2, ..., Low.
- The seating after each move: see `bunco_movement`.
- A banker's `table` outside 0..n-1 (negative included) is `unknown_table`.
- Buncos rolled in a roll-off count as Buncos.
- When the night is finished, each table keeps its `roller` and `last_roll`.
- `create` options: `sets` 1..10 (else `bad_sets`), `roll_entry` virtual, roller or
  banker (else `bad_roll_entry`); other keys are ignored.
- `join` comes from the room's `POST /players` (open to anyone with the code, the host
  included), so its sender is not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from app.games.bunco.play import apply_roll
from app.games.bunco.state import (
    MAX_PLAYERS,
    PLAYER_COUNTS,
    SEATS,
    BuncoState,
    Dice3,
    HouseRules,
    Player,
    Table,
)
from app.games.bunco.view import view as bunco_view
from app.games.bunco.view import view_changes, view_patch
from app.games.common import Join, Kick, Start, group_report, join_kick_seating
from app.games.names import clean_name, name_taken
from app.games.patch import Op
from app.games.seam import (
    STRICT,
    Chance,
    Connected,
    Event,
    RuleError,
    Seating,
    Sender,
    UndoPolicy,
    fairness_of,
    revealing,
)

BANKER = "banker"
PLAYER = "player"
ROLL_ENTRIES = ("virtual", "roller", "banker")


@dataclass(frozen=True, slots=True)
class Roll:
    type: Literal["roll"]
    table: int | None = None
    dice: list[int] | None = None
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Ring:
    type: Literal["ring"]
    __pydantic_config__: ClassVar[Any] = STRICT


Command = Start | Roll | Ring | Kick | Join


BELL_RANGE = (5, 100)  # house rules: the points that ring the bell
THREE_RANGE = (0, 21)  # house rules: three of a kind of another number
MOVEMENTS = ("seed", "common")


def house_rules(options: Mapping[str, Any]) -> HouseRules:
    """The create options' variants (absent: the seed's rules); RuleError when out of range."""
    seed = HouseRules()
    bell_at = options.get("bell_at", seed.bell_at)
    three = options.get("three_of_a_kind", seed.three_of_a_kind)
    movement = options.get("movement", seed.movement)
    if type(bell_at) is not int or not BELL_RANGE[0] <= bell_at <= BELL_RANGE[1]:
        raise RuleError("bad_bell_at", "bell_at is a whole number from 5 to 100.")
    if type(three) is not int or not THREE_RANGE[0] <= three <= THREE_RANGE[1]:
        raise RuleError("bad_three_of_a_kind", "three_of_a_kind is a whole number from 0 to 21.")
    if movement not in MOVEMENTS:
        raise RuleError("bad_movement", "movement is seed or common.")
    return HouseRules(bell_at, three, movement)


class BuncoRules:
    """Bunco behind the `Rules` seam: one room holds every table of the night."""

    name = "bunco"
    creator = BANKER
    undo = UndoPolicy(
        roles=frozenset({BANKER}),
        events=frozenset({"roll"}),  # a roll, and whatever came after it (a ring)
        nothing_left="There is no roll to take back.",  # also before start
        not_allowed="Only the host can undo.",
    )
    commands = (Start, Roll, Ring, Kick, Join)

    def create(self, options: Mapping[str, Any]) -> BuncoState:
        sets = options.get("sets", 1)
        roll_entry = options.get("roll_entry", "virtual")
        if type(sets) is not int or not 1 <= sets <= 10:
            raise RuleError("bad_sets", "sets is a whole number from 1 to 10.")
        if roll_entry not in ROLL_ENTRIES:
            raise RuleError("bad_roll_entry", "roll_entry is virtual, roller or banker.")
        return BuncoState(
            sets=sets,
            roll_entry=roll_entry,
            house=house_rules(options),
            fair=fairness_of(options),
            in_group=options.get("group") is True,
        )

    def decide(self, state: BuncoState, sender: Sender, command: Any, chance: Chance) -> Event:
        if isinstance(command, Roll):
            return _decide_roll(state, sender, command, chance)
        if isinstance(command, Ring):
            return _decide_ring(state, sender)
        if isinstance(command, Start):
            return _decide_start(state, sender, chance)
        if isinstance(command, Kick):
            return _decide_kick(state, sender, command.player_id)
        if isinstance(command, Join):
            return _decide_join(state, command.player_id, command.name)
        raise RuleError("bad_message", "Bunco has no such command.")

    def evolve(self, state: BuncoState, event: Event, seq: int) -> BuncoState:
        return revealing(self._evolve(state, event, seq), event.data)

    def _evolve(self, state: BuncoState, event: Event, seq: int) -> BuncoState:
        data = event.data
        if event.type == "roll":
            dice: Dice3 = (data["dice"][0], data["dice"][1], data["dice"][2])
            return apply_roll(state, data["table"], dice, seq)
        if event.type == "ring":
            return replace(state, phase="playing")
        if event.type == "start":
            tables = tuple(Table(seats=tuple(seats)) for seats in data["seating"])
            return replace(state, status="playing", set=1, round=1, phase="playing", tables=tables)
        if event.type == "join":
            joined = Player(data["player_id"], data["name"])
            return replace(state, players=(*state.players, joined))
        if event.type == "kick":
            kept = tuple(p for p in state.players if p.id != data["player_id"])
            return replace(state, players=kept)
        raise ValueError(f"Bunco has no event {event.type!r}")

    def seating(self, event: Event) -> Seating:
        return join_kick_seating(event)

    def view(self, state: BuncoState, connected: Connected) -> dict[str, Any]:
        return bunco_view(state, connected)

    def view_changes(
        self, before: BuncoState, after: BuncoState, connected: Connected
    ) -> dict[str, Any] | None:
        return view_changes(before, after, connected)

    def view_patch(
        self, before: BuncoState, after: BuncoState, connected: Connected
    ) -> list[Op] | None:
        return view_patch(before, after, connected)

    def player_ids(self, state: BuncoState) -> list[str]:
        return [p.id for p in state.players]

    def finished(self, state: BuncoState) -> bool:
        return state.status == "finished"

    def report(self, state: BuncoState) -> Mapping[str, Any] | None:
        """A night started from a group tells it its status, and its result once over
        (score: rounds won; the night's winners: the most rounds won)."""
        if not state.in_group:
            return None
        if state.status != "finished":
            return group_report(state.status)
        top = max((p.wins for p in state.players), default=0)
        rows = [
            {
                "id": p.id,
                "name": p.name,
                "score": p.wins,
                "won": p.wins == top,
                "wins": p.wins,
                "losses": p.losses,
                "buncos": p.buncos,
            }
            for p in state.players
        ]
        return group_report("finished", rows)


def _decide_roll(state: BuncoState, sender: Sender, roll: Roll, chance: Chance) -> Event:
    dice = roll.dice
    if dice is not None and (len(dice) != 3 or any(not 1 <= die <= 6 for die in dice)):
        raise RuleError("bad_message", "A roll is three dice, each from 1 to 6.")
    if dice is None and state.roll_entry != "virtual":
        raise RuleError("bad_message", "A roll needs its three dice, e.g. [3, 3, 1].")
    if sender.role == BANKER and roll.table is None:
        raise RuleError("bad_message", "The host names the table of the roll: give table.")
    if sender.role == PLAYER:
        if roll.table is not None:
            raise RuleError("not_allowed", "A player rolls at its own table: no table field.")
        if state.roll_entry == "banker":
            raise RuleError("not_allowed", "In this game the host enters the rolls.")
        if state.roll_entry == "virtual" and dice is not None:
            raise RuleError("not_allowed", "In this game the server rolls the dice.")
    elif sender.role != BANKER:
        raise RuleError("not_allowed", "Spectators cannot roll.")
    if state.status == "lobby":
        raise RuleError("not_started", "The night has not started.")
    index = roll.table if roll.table is not None else state.table_of(sender.player_id or "")
    if index is not None and not 0 <= index < len(state.tables):
        raise RuleError("unknown_table", f"There is no table {index}.")
    if state.phase not in ("playing", "rolloff"):
        raise RuleError("round_over", "No round is live: the bell has rung, or the night is over.")
    if state.phase == "rolloff" and index is not None and not state.tables[index].rolloff:
        raise RuleError("round_over", "The bell has rung: only tables in a roll-off roll.")
    if index is None or (sender.role == PLAYER and state.tables[index].roller != sender.player_id):
        raise RuleError("not_your_turn", "You do not hold the dice.")
    rolled = tuple(dice) if dice is not None else chance.dice(3)
    return Event(
        "roll", {"table": index, "player_id": state.tables[index].roller, "dice": list(rolled)}
    )


def _decide_ring(state: BuncoState, sender: Sender) -> Event:
    if sender.role == PLAYER:
        if state.table_of(sender.player_id or "") != 0:
            raise RuleError("not_allowed", "Only the High table (or the host) rings the bell.")
    elif sender.role != BANKER:
        raise RuleError("not_allowed", "Spectators cannot ring the bell.")
    if state.status == "lobby":
        raise RuleError("not_started", "The night has not started.")
    if state.status == "finished":
        raise RuleError("game_over", "The night is over.")
    if state.phase != "waiting":
        raise RuleError("round_in_progress", "A round is still being played.")
    return Event("ring", {})


def _decide_start(state: BuncoState, sender: Sender, chance: Chance) -> Event:
    if sender.role != BANKER:
        raise RuleError("not_allowed", "Only the host starts the night.")
    if state.status != "lobby":
        raise RuleError("already_started", "The night has already started.")
    count = len(state.players)
    if count not in PLAYER_COUNTS:
        raise RuleError("bad_player_count", f"Bunco seats 8 to 24 players in fours, not {count}.")
    drawn = chance.shuffle([p.id for p in state.players])
    seating = [drawn[i : i + SEATS] for i in range(0, count, SEATS)]
    return Event("start", {"seating": seating})


def _decide_kick(state: BuncoState, sender: Sender, player_id: str) -> Event:
    if sender.role != BANKER:
        raise RuleError("not_allowed", "Only the host removes players.")
    if state.player(player_id) is None:
        raise RuleError("unknown_player", "No such player in this room.")
    if state.status != "lobby":
        raise RuleError("not_in_lobby", "Players can be removed only in the lobby.")
    return Event("kick", {"player_id": player_id})


def _decide_join(state: BuncoState, player_id: str, raw_name: str) -> Event:
    name = clean_name(raw_name)
    if state.status != "lobby":
        raise RuleError("not_in_lobby", "The night has started: players join in the lobby.")
    if name_taken(name, (p.name for p in state.players)):
        raise RuleError("name_taken", f"{name!r} is taken in this room.")
    if len(state.players) >= MAX_PLAYERS:
        raise RuleError("room_full", f"A Bunco night seats at most {MAX_PLAYERS} players.")
    return Event("join", {"player_id": player_id, "name": name})
