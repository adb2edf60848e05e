"""Players' names, one rule for every game (PROTOCOL.md): trimmed, 1..24 code points,
no control, format or surrogate characters. Uniqueness (`name_taken`, by casefold)
is the game's to check, as it alone knows who is seated."""

from __future__ import annotations

import unicodedata

from app.rules.base import RuleError

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})


def clean_name(raw: str, max_len: int = 24) -> str:
    """The stored form of a player's name, or RuleError `bad_name`."""
    name = raw.strip()
    if not 1 <= len(name) <= max_len:
        raise RuleError("bad_name", f"A name is 1 to {max_len} characters.")
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in name):
        raise RuleError("bad_name", "A name cannot hold control or invisible characters.")
    return name
