"""The room's event log: hash-chained, append-only, replayable (see docs/protocol.md)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

GENESIS = "0" * 64


def canonical(entry: Mapping[str, Any]) -> bytes:
    """The bytes the hash covers: the entry without `hash`, as the contract writes it:
    `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)` in UTF-8
    (an entry being made has no `hash` yet: it is written as it is, without a copy).

    orjson writes the same bytes for what a log holds (str keys, ints, strings, lists;
    tests/rooms/test_eventlog.py checks it) at a tenth of the cost; whatever orjson
    cannot write (an integer beyond 64 bits) falls back to the standard library."""
    body = {k: v for k, v in entry.items() if k != "hash"} if "hash" in entry else entry
    try:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def chain(prev: str, entry: Mapping[str, Any]) -> str:
    return hashlib.sha256(prev.encode() + canonical(entry)).hexdigest()


def make_entry(
    prev: str,
    seq: int,
    at: int,
    type_: str,
    by: str,
    data: Mapping[str, Any],
    fair: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """`fair`: what the room's fair dice add beside the event's data (docs/fair-dice.md)."""
    entry: dict[str, Any] = {"seq": seq, "at": at, "type": type_, "by": by, "data": dict(data)}
    if fair:
        entry["fair"] = dict(fair)
    entry["hash"] = chain(prev, entry)
    return entry


def verify(entries: Iterable[Mapping[str, Any]]) -> bool:
    """True when seqs run 1, 2, 3… and every hash chains to the one before it."""
    prev = GENESIS
    for expected_seq, entry in enumerate(entries, start=1):
        if entry.get("seq") != expected_seq or entry.get("hash") != chain(prev, entry):
            return False
        prev = entry["hash"]
    return True
