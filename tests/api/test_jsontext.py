"""The tolerant JSON reader: every valid JSON text is read as the standard library
reads it (at any depth a frame can hold), and everything else is `NotJSON`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api import jsontext
from app.api.jsontext import NotJSON

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**300), max_value=10**300)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


def as_orjson_reads(value: Any) -> Any:
    """orjson's fast path reads an integer beyond 64 bits that fits a double as a float."""
    if isinstance(value, list):
        return [as_orjson_reads(item) for item in value]
    if isinstance(value, dict):
        return {key: as_orjson_reads(item) for key, item in value.items()}
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        try:
            return float(value)
        except OverflowError:
            return value  # orjson refuses it; the standard library reads it exactly
    return value


@settings(max_examples=300, deadline=None)
@given(documents, st.sampled_from([None, 0, 2]), st.booleans())
def test_valid_json_reads_as_the_standard_library_reads_it(
    value: Any, indent: int | None, ascii_only: bool
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert jsontext.loads(text) == as_orjson_reads(json.loads(text))
    assert jsontext._parse_deep(text) == json.loads(text)


def test_big_integers_and_overflowing_floats_are_json() -> None:
    assert jsontext.loads('{"dice": [' + "9" * 1000 + ", 4]}") == {"dice": [int("9" * 1000), 4]}
    assert jsontext.loads("[1e400, -1e400]") == [float("inf"), float("-inf")]


def test_nesting_as_deep_as_a_frame_holds_is_read() -> None:
    depth = 2000
    value = jsontext.loads('{"id": "x", "deep": ' + "[" * depth + "7" + "]" * depth + "}")
    assert value["id"] == "x"
    inner = value["deep"]
    for _ in range(depth):
        inner = inner[0] if isinstance(inner, list) else pytest.fail("too shallow")
    assert inner == 7


def test_duplicate_keys_keep_the_last_value() -> None:
    assert jsontext.loads('{"type": "bank", "type": "roll"}') == {"type": "roll"}


@pytest.mark.parametrize(
    "text",
    [
        "NaN",
        "[Infinity]",
        '{"a": -Infinity}',
        "[1,]",
        '{"a": 1,}',
        "01",
        "\u00a0[]",
        '"\\ud800"',
        '{"\\udc00": 1}',
        '["ok", "\ud83d"]',
        "[" * 2000 + '"\\ud800"' + "]" * 2000,
        "[" * 2000 + "NaN" + "]" * 2000,
        "[" * 2000 + "]" * 1999,
        "[" * 2000 + "]" * 2000 + "x",
    ],
)
def test_invalid_json_and_lone_surrogates_are_not_json(text: str) -> None:
    with pytest.raises(NotJSON):
        jsontext.loads(text)
