"""Player names, as PROTOCOL.md fixes them for every game: one rule, shared.

Names are stored trimmed, are 1..24 code points with no control, format or
surrogate characters, and are unique in a room when compared casefolded.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from app.games.seam import RuleError

MAX_NAME = 24
FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})


def clean_name(raw: str, max_len: int = MAX_NAME) -> str:
    """The stored form of a player's name, or RuleError `bad_name`."""
    name = raw.strip()
    if not 1 <= len(name) <= max_len:
        raise RuleError("bad_name", f"A name is 1 to {max_len} characters.")
    if any(unicodedata.category(ch) in FORBIDDEN_CATEGORIES for ch in name):
        raise RuleError("bad_name", "A name cannot hold control or invisible characters.")
    return name


def name_taken(name: str, taken: Iterable[str]) -> bool:
    """Whether `name` clashes with one of `taken` (compared with str.casefold())."""
    folded = name.casefold()
    return any(other.casefold() == folded for other in taken)
