"""A scripted `Chance` for the tournament's tests: dice come from a queue, in order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from app.games.tournament.rules import CODE_ALPHABET

T = TypeVar("T")


def code_dice(code: str) -> list[int]:
    """The dice (one 31-sided die per character) that make `draw_code` draw `code`."""
    return [CODE_ALPHABET.index(ch) + 1 for ch in code]


class ScriptedChance:
    """Hands out the queued dice one by one; shuffles leave the order as it is."""

    def __init__(self, dice: Iterable[int] = ()) -> None:
        self.queue = list(dice)

    def add(self, dice: Iterable[int]) -> None:
        self.queue.extend(dice)

    def add_codes(self, *codes: str) -> None:
        for code in codes:
            self.add(code_dice(code))

    def dice(self, count: int, sides: int = 6) -> tuple[int, ...]:
        assert len(self.queue) >= count, "the test scripted too few dice"
        drawn, self.queue = self.queue[:count], self.queue[count:]
        assert all(1 <= d <= sides for d in drawn), f"{drawn} are not dice of {sides} sides"
        return tuple(drawn)

    def shuffle(self, items: Sequence[T]) -> list[T]:
        return list(items)
