"""The hash chain's canonical bytes are exactly the contract's `json.dumps` form."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rooms.eventlog import canonical

keys = st.text(max_size=8)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=16)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)


def contract(entry: dict[str, Any]) -> bytes:
    """PROTOCOL.md: the event without `hash`, sort_keys, compact, ensure_ascii=False."""
    body = {k: v for k, v in entry.items() if k != "hash"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(keys, values, max_size=6), st.text(max_size=4))
def test_canonical_bytes_are_the_contracts(entry: dict[str, Any], junk: str) -> None:
    entry = {**entry, "hash": junk}
    assert canonical(entry) == contract(entry)


def test_integers_beyond_64_bits_still_hash_as_the_contract_says() -> None:
    entry = {"seq": 1, "data": {"n": 10**30}, "hash": "x"}
    assert canonical(entry) == contract(entry)
