"""Player names, as every game of PROTOCOL.md stores them."""

from __future__ import annotations

import unicodedata

from app.rules.base import RuleError

MAX_NAME = 24


def clean_name(raw: str, max_len: int = MAX_NAME) -> str:
    """The stored form of a player's name (trimmed), or RuleError `bad_name`."""
    name = raw.strip()
    if not 1 <= len(name) <= max_len:
        raise RuleError("bad_name", f"A name is 1 to {max_len} characters.")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in name):
        raise RuleError("bad_name", "A name cannot hold control or invisible characters.")
    return name


def name_is_free(name: str, taken: list[str]) -> bool:
    """Names are unique in a room, compared with `str.casefold()`."""
    folded = name.casefold()
    return all(other.casefold() != folded for other in taken)
