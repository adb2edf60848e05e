"""Chance lives outside the rules: fair dice and shuffles from the OS's CSPRNG."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class FairChance:
    """The production `Chance`: every draw comes from `secrets` (the rules log what it drew)."""

    def dice(self, count: int, sides: int = 6) -> tuple[int, ...]:
        return tuple(secrets.randbelow(sides) + 1 for _ in range(count))

    def shuffle(self, items: Sequence[T]) -> list[T]:
        drawn = list(items)
        for index in range(len(drawn) - 1, 0, -1):  # Fisher-Yates with a CSPRNG
            other = secrets.randbelow(index + 1)
            drawn[index], drawn[other] = drawn[other], drawn[index]
        return drawn
