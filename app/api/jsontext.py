"""Read a client's JSON text: fast when it is ordinary, correct when it is not.

orjson is the fast path, but it refuses some valid JSON: numbers that overflow a
double (`1e400`, an integer of 310 digits) and nesting deeper than 1024. (Integers
beyond 64 bits that fit a double it reads as floats: no field of the protocol takes
such a number, so either way they are refused with the sender's `id`.) A refusal
there would answer `bad_message` without the sender's `id`, so valid JSON falls back
to the standard library, and JSON nested deeper than its recursion limit (a 4 KiB
frame holds ~2,000 levels) to a small parser that keeps its own stack. Invalid JSON
(`NaN`, `Infinity`, trailing commas) and strings that are not valid Unicode (a lone
surrogate, escaped or not) are refused by every path alike, with `NotJSON`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import orjson

# The standard library's string scanner (C, strict about control characters);
# typeshed does not list it.
scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


class NotJSON(ValueError):
    """The text is not JSON, or holds a string that is not valid Unicode."""


def loads(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        value = _parse_deep(text)
    except ValueError as error:  # JSONDecodeError, or an integer of over 4,300 digits
        raise NotJSON(str(error)) from None
    if _holds_surrogate(value):
        raise NotJSON("A string is not valid Unicode (a lone surrogate).")
    return value


def _refuse_constant(name: str) -> Any:
    raise NotJSON(f"{name} is not JSON.")


def _holds_surrogate(value: Any) -> bool:
    """Any key or string with a surrogate code point (pairs were joined when decoded)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item)
            todo.extend(item.values())
    return False


Container = list[Any] | dict[str, Any]


def _parse_deep(text: str) -> Any:
    """RFC 8259 JSON with an explicit stack, so any depth fits; NotJSON if invalid."""
    try:
        return _parse(text)
    except (ValueError, IndexError) as error:
        raise NotJSON(str(error) or "Not JSON.") from None


def _parse(text: str) -> Any:
    stack: list[tuple[Container, str]] = []  # open containers, each with its pending key
    pos = _skip(text, 0)
    while True:
        value, pos, opened = _value(text, pos)
        if opened is not None:
            stack.append(opened)
            continue
        while True:  # place the value; close every container that ends here
            pos = _skip(text, pos)
            if not stack:
                if pos != len(text):
                    raise ValueError(f"Extra data at {pos}.")
                return value
            container, key = stack[-1]
            if isinstance(container, list):
                container.append(value)
            else:
                container[key] = value
            closer = "]" if isinstance(container, list) else "}"
            mark = text[pos : pos + 1]
            if mark == closer:
                stack.pop()
                value, pos = container, pos + 1
                continue
            if mark != ",":
                raise ValueError(f"Expected ',' or {closer!r} at {pos}.")
            pos = _skip(text, pos + 1)
            if isinstance(container, dict):
                key, pos = _key(text, pos)
                stack[-1] = (container, key)
            break


def _value(text: str, pos: int) -> tuple[Any, int, tuple[Container, str] | None]:
    """A scalar or empty container (and where it ends), or a container just opened."""
    mark = text[pos : pos + 1]
    if mark == "[":
        pos = _skip(text, pos + 1)
        if text.startswith("]", pos):
            return [], pos + 1, None
        return None, pos, ([], "")
    if mark == "{":
        pos = _skip(text, pos + 1)
        if text.startswith("}", pos):
            return {}, pos + 1, None
        key, pos = _key(text, pos)
        return None, pos, ({}, key)
    if mark == '"':
        string, end = scanstring(text, pos + 1, True)
        return string, end, None
    for word, literal in _LITERALS.items():
        if text.startswith(word, pos):
            return literal, pos + len(word), None
    number = _NUMBER.match(text, pos)
    if number is None:
        raise ValueError(f"Expected a value at {pos}.")
    digits = number.group()
    parsed = float(digits) if number.group(1) or number.group(2) else int(digits)
    return parsed, number.end(), None


def _key(text: str, pos: int) -> tuple[str, int]:
    """An object's key and its colon; returns where the value starts."""
    if not text.startswith('"', pos):
        raise ValueError(f"Expected a key at {pos}.")
    key, pos = scanstring(text, pos + 1, True)
    pos = _skip(text, pos)
    if not text.startswith(":", pos):
        raise ValueError(f"Expected ':' at {pos}.")
    return key, _skip(text, pos + 1)


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return pos if match is None else match.end()
