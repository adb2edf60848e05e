"""Chance for rule tests, and a driver that plays rules the way the room does.

`SeededChance` is fair but repeatable; `ScriptedChance` deals the dice a test queued
and leaves every shuffle in its given order. `Driver` calls decide then evolve with
consecutive seqs (create is seq 1), undoes as the room does (drop the last event the
rules' `UndoPolicy` names and all after it, replay the rest with their seqs), and
checks that a refused command leaves the state exactly as it was.
"""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from app.games.seam import Event, RuleError, Rules, Sender

T = TypeVar("T")
S = TypeVar("S")


class SeededChance:
    """Fair dice and shuffles from `random.Random(seed)`: the same seed, the same night."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def dice(self, count: int, sides: int = 6) -> tuple[int, ...]:
        return tuple(self.random.randint(1, sides) for _ in range(count))

    def shuffle(self, items: Sequence[T]) -> list[T]:
        shuffled = list(items)
        self.random.shuffle(shuffled)
        return shuffled


class ScriptedChance:
    """Deals queued rolls in order; a shuffle keeps its items' order."""

    def __init__(self, *rolls: Sequence[int]) -> None:
        self.rolls: deque[tuple[int, ...]] = deque(tuple(roll) for roll in rolls)

    def queue(self, *rolls: Sequence[int]) -> None:
        self.rolls.extend(tuple(roll) for roll in rolls)

    def dice(self, count: int, sides: int = 6) -> tuple[int, ...]:
        assert self.rolls, "ScriptedChance ran out of queued rolls"
        roll = self.rolls.popleft()
        assert len(roll) == count, f"queued {roll}, asked for {count} dice"
        return roll

    def shuffle(self, items: Sequence[T]) -> list[T]:
        return list(items)


def no_one_connected(player_id: str) -> bool:
    return False


class Driver(Generic[S]):
    """One room's rules, driven without the room: decide, evolve, undo, replay."""

    def __init__(self, rules: Rules[S], options: Mapping[str, Any], chance: Any) -> None:
        self.rules = rules
        self.options = dict(options)
        self.chance = chance
        self.state: S = rules.create(self.options)
        self.seq = 1
        self.effective: list[tuple[int, Event]] = []

    def view(self) -> dict[str, Any]:
        return self.rules.view(self.state, no_one_connected)

    def send(self, sender: Sender, command: Any) -> Event:
        """Decide and apply `command`; a refusal raises RuleError and changes nothing."""
        before, seen = self.state, self.view()
        try:
            event = self.rules.decide(self.state, sender, command, self.chance)
        except RuleError:
            assert self.state is before and self.view() == seen
            raise
        self.apply(event)
        return event

    def refused(self, sender: Sender, command: Any) -> str:
        """The error code `command` gets (the state checked unchanged)."""
        try:
            self.send(sender, command)
        except RuleError as error:
            return error.code
        raise AssertionError(f"{command!r} was accepted")

    def apply(self, event: Event) -> None:
        self.seq += 1
        self.state = self.rules.evolve(self.state, event, self.seq)
        self.effective.append((self.seq, event))

    def undo(self, sender: Sender) -> int:
        """Take back the last undoable event as the room does; the seq it undid."""
        policy = self.rules.undo
        if sender.role not in policy.roles:
            raise RuleError("not_allowed", policy.not_allowed)  # as app/rooms/room.py
        index = next(
            (
                i
                for i in reversed(range(len(self.effective)))
                if self.effective[i][1].type in policy.events
            ),
            None,
        )
        if index is None:
            raise RuleError("nothing_to_undo", policy.nothing_left)
        undone = self.effective[index][0]
        self.seq += 1
        self.state = replayed(self.rules, self.options, self.effective[:index])
        self.effective = self.effective[:index]
        return undone


def replayed(rules: Rules[S], options: Mapping[str, Any], events: Iterable[tuple[int, Event]]) -> S:
    """create, then every event in order, its data through JSON as the log stores it."""
    state = rules.create(options)
    for seq, event in events:
        stored = Event(event.type, json.loads(json.dumps(dict(event.data))))
        state = rules.evolve(state, stored, seq)
    return state
