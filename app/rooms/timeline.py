"""The game state as the fold of the events that still count.

Undo never rewrites history: it is an event of its own, and the state after it is
the replay of the log without the undone event and everything that followed it.
The live room and a replay of the stored log use this same class, so they agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Generic, TypeVar

from app.games.seam import Event, Rules
from app.rooms.succession import EVENTS as ROLE_EVENTS

S = TypeVar("S")


def with_fair(entry: Mapping[str, Any]) -> Mapping[str, Any]:
    """An entry's data as the rules read it: with what the fair dice logged beside it
    (its keys are the rules' `dice_commit`, `dice_reveal`...: docs/fair-dice.md)."""
    fair = entry.get("fair")
    return {**entry["data"], **fair} if fair else entry["data"]


class Barred(Exception):
    """An undo would reach back past one of the policy's barriers."""


class Timeline(Generic[S]):
    def __init__(self, rules: Rules[S], options: Mapping[str, Any]) -> None:
        self.rules = rules
        self.options = dict(options)
        self.state: S = rules.create(self.options)
        self.effective: list[tuple[int, Event]] = []

    def apply(self, event: Event, seq: int, after: S | None = None) -> None:
        """`after`: the state `event` leads to, when the caller evolved it already."""
        self.state = self.rules.evolve(self.state, event, seq) if after is None else after
        self.effective.append((seq, event))

    def last_undoable(self) -> int | None:
        """The seq of the latest event that undo would take back (None: there is none).

        Raises `Barred` when a barrier event stands between it and the present."""
        policy = self.rules.undo
        for seq, event in reversed(self.effective):
            if event.type in policy.barriers:
                raise Barred()
            if event.type in policy.events:
                return seq
        return None

    def undo(self, undone_seq: int) -> None:
        """Drop the event `undone_seq` and all after it but those the policy keeps, and
        rebuild the state."""
        index = next(i for i, (seq, _) in enumerate(self.effective) if seq == undone_seq)
        keeps = self.rules.undo.keeps
        kept = self.effective[:index] + [
            e for e in self.effective[index + 1 :] if e[1].type in keeps
        ]
        self.state = self.rules.create(self.options)
        self.effective = []
        for seq, event in kept:
            self.apply(event, seq)

    @classmethod
    def replay(cls, rules: Rules[S], entries: Iterable[Mapping[str, Any]]) -> Timeline[S]:
        """Rebuild from log entries (the first is `create`)."""
        iterator = iter(entries)
        first = next(iterator)
        timeline = cls(rules, with_fair(first))
        for entry in iterator:
            if entry["type"] in ROLE_EVENTS:  # who holds a role: the room's, not the game's
                continue
            if entry["type"] == "undo":
                timeline.undo(entry["data"]["undone_seq"])
            else:
                timeline.apply(Event(entry["type"], with_fair(entry)), entry["seq"])
        return timeline
