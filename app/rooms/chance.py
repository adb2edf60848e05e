"""Chance lives outside the rules: the room's provably fair dice (docs/fair-dice.md).

A room that draws commits at create to a secret server seed (its SHA-256 is logged);
draw n is read from HMAC-SHA256(seed, "n:block:client seeds") blocks, one byte at a
time with rejection (no modulo bias), shuffles by Fisher-Yates on the same stream.
Each draw is logged with its number and values, and the seed is revealed (and a
fresh one committed for any later draw) when the game ends, so anyone can re-check
every draw from the room's log. Rooms that never draw use `SecretChance`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
CLIENT_SEED = re.compile(r"[0-9a-f]{16,64}")  # what a phone may contribute when it joins


class SecretChance:
    """Draws from the OS's CSPRNG, for rooms that commit to nothing (they never draw)."""

    def dice(self, count: int, sides: int = 6) -> tuple[int, ...]:
        return tuple(secrets.randbelow(sides) + 1 for _ in range(count))

    def shuffle(self, items: Sequence[T]) -> list[T]:
        drawn = list(items)
        for index in range(len(drawn) - 1, 0, -1):  # Fisher-Yates with a CSPRNG
            other = secrets.randbelow(index + 1)
            drawn[index], drawn[other] = drawn[other], drawn[index]
        return drawn


SECRET_CHANCE = SecretChance()


def commitment(seed: str) -> str:
    """What the log shows of a seed before it is revealed."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def stream(seed: str, n: int, clients: Sequence[str]) -> Iterator[int]:
    """Draw n's bytes: HMAC-SHA256(seed, f"{n}:{block}:{','.join(clients)}"), block 0, 1…"""
    key, tail = bytes.fromhex(seed), ",".join(clients)
    block = 0
    while True:
        yield from hmac.new(key, f"{n}:{block}:{tail}".encode(), hashlib.sha256).digest()
        block += 1


def below(bytes_: Iterator[int], bound: int) -> int:
    """A uniform 0..bound-1 (bound <= 256): the first byte under the largest multiple."""
    limit = 256 - 256 % bound
    return next(byte % bound for byte in bytes_ if byte < limit)


def fisher_yates(bytes_: Iterator[int], count: int) -> list[int]:
    """A uniform order of range(count): order[i] is the index of the i-th item drawn."""
    order = list(range(count))
    for index in range(count - 1, 0, -1):
        other = below(bytes_, index + 1)
        order[index], order[other] = order[other], order[index]
    return order


class FairDice:
    """A room's committed dice: the secret seed, the client seeds so far, the draw count.

    Kept in the room's snapshot (private: never served) and never in its state or log
    until `reveal`; `drawn` holds this command's draw records until the room logs them."""

    def __init__(
        self, seed: str, clients: list[str], draws: int, revealed: list[dict[str, str]]
    ) -> None:
        self.seed = seed
        self.clients = clients  # every client seed logged so far, in log order
        self.draws = draws
        self.revealed = revealed  # [{"commit", "seed"}] of seeds already shown
        self.drawn: list[dict[str, Any]] = []

    @classmethod
    def new(cls) -> FairDice:
        return cls(secrets.token_hex(32), [], 0, [])

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> FairDice | None:
        if record is None:
            return None
        revealed = [dict(r) for r in record["revealed"]]
        return cls(record["seed"], list(record["clients"]), record["draws"], revealed)

    def record(self) -> dict[str, Any]:
        """The snapshot's private part."""
        return {
            "seed": self.seed,
            "clients": self.clients,
            "draws": self.draws,
            "revealed": self.revealed,
        }

    @property
    def commit(self) -> str:
        return commitment(self.seed)

    # -- Chance ------------------------------------------------------------------------
    def dice(self, count: int, sides: int = 6) -> tuple[int, ...]:
        bytes_ = self._next()
        rolled = tuple(below(bytes_, sides) + 1 for _ in range(count))
        self.drawn.append({"n": self.draws, "sides": sides, "values": list(rolled)})
        return rolled

    def shuffle(self, items: Sequence[T]) -> list[T]:
        order = fisher_yates(self._next(), len(items))
        self.drawn.append({"n": self.draws, "shuffle": True, "values": order})
        return [items[index] for index in order]

    def _next(self) -> Iterator[int]:
        self.draws += 1
        return stream(self.seed, self.draws, self.clients)

    # -- what the room logs ---------------------------------------------------------------
    def begin(self) -> None:
        """Before a command: nothing drawn yet."""
        self.drawn = []

    def cancel(self) -> None:
        """The command was refused: its draws never happened (draw numbers have no gaps)."""
        self.draws -= len(self.drawn)
        self.drawn = []

    def take_drawn(self) -> list[dict[str, Any]]:
        drawn, self.drawn = self.drawn, []
        return drawn

    def catch_up(self, logged: Mapping[str, Any], fresh_seed: str | None) -> None:
        """Redo what an entry logged after the snapshot did to the dice (`Room._catch_up`):
        its draws, the seed a phone sent, and a reveal (whose fresh seed only its note has)."""
        self.draws = max([self.draws, *(draw["n"] for draw in logged.get("drawn", ()))])
        if "client_seed" in logged:
            self.clients.append(logged["client_seed"])
        reveal = logged.get("dice_reveal")
        if reveal is not None and fresh_seed is not None:
            self.revealed.append({"commit": reveal["commit"], "seed": reveal["seed"]})
            self.seed = fresh_seed

    def reveal(self) -> dict[str, str]:
        """Show the seed and commit to a fresh one (an undo may reopen the game)."""
        shown = {"commit": self.commit, "seed": self.seed}
        self.revealed.append(shown)
        self.seed = secrets.token_hex(32)
        return {**shown, "next_commit": self.commit}


def client_seed(command: Mapping[str, Any]) -> str | None:
    """The seed a joining phone sent with its seat (checked at the HTTP edge)."""
    seed = command.get("client_seed")
    return seed if isinstance(seed, str) and CLIENT_SEED.fullmatch(seed) else None
