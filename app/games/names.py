"""Player names, as PROTOCOL.md fixes them for every game: one rule, shared.

Names are stored trimmed, are 1..24 code points with no control, format or
surrogate characters, and are unique in a room when compared casefolded.

Two extensions (docs/security.md), so that nobody sits beside "Bob" as a look-alike
of him: names are compared after NFKC normalisation ("Ｂｏｂ" is "Bob") with the
Cyrillic and Greek letters that look Latin read as those ("Воb" is "Bob"); and a
letter carries at most `MAX_MARKS` combining marks (a "zalgo" name is `bad_name`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from app.games.seam import RuleError

MAX_NAME = 24
MAX_MARKS = 3  # Vietnamese stacks two on a letter; "zalgo" text dozens
FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
# Cyrillic and Greek lower-case letters (after casefold) drawn like a Latin one.
LOOK_ALIKES = str.maketrans(
    "аеорсухіјѕԁԛԝһкмнтвгпαβεικνορτυχ",
    "aeopcyxijsdqwhkmhtbrnabeiknoptux",
)


def clean_name(raw: str, max_len: int = MAX_NAME) -> str:
    """The stored form of a player's name, or RuleError `bad_name`."""
    name = raw.strip()
    if not 1 <= len(name) <= max_len:
        raise RuleError("bad_name", f"A name is 1 to {max_len} characters.")
    if any(unicodedata.category(ch) in FORBIDDEN_CATEGORIES for ch in name):
        raise RuleError("bad_name", "A name cannot hold control or invisible characters.")
    marks = 0
    for ch in name:
        marks = marks + 1 if unicodedata.combining(ch) else 0
        if marks > MAX_MARKS:
            raise RuleError("bad_name", "A name cannot stack marks on a letter.")
    return name


def compared(name: str) -> str:
    """The form names are compared in: NFKC, casefolded, look-alike letters read Latin."""
    return unicodedata.normalize("NFKC", name).casefold().translate(LOOK_ALIKES)


def name_taken(name: str, taken: Iterable[str]) -> bool:
    """Whether `name` clashes with one of `taken` (compared as `compared` says)."""
    folded = compared(name)
    return any(compared(other) == folded for other in taken)
