"""A state as the change from the one before it: JSON Patch (RFC 6902) operations,
each written as an array, `[op, path]` or `[op, path, value]`, half the bytes.

The state patches extension (docs/protocol.md): a socket that asks for it gets each
new state as the operations that turn the previous state into it, computed once per
state for every such socket (app/api/hub.py). Only `add`, `remove` and `replace` are
made; a list that grew gets its new items appended (`/-`), so the rounds already in
`rounds_log` are never sent again; where the changes inside an object or a list would
be longer than its new value, it is replaced whole. static/js/shell/patch.js applies them.
"""

from __future__ import annotations

from typing import Any

import orjson

Op = list[Any]  # ["add" | "remove" | "replace", JSON pointer, value (not for remove)]


def pointer(path: str, key: str | int) -> str:
    """`path` and one more reference token, escaped as RFC 6901 says."""
    if isinstance(key, int):
        return f"{path}/{key}"
    return path + "/" + key.replace("~", "~0").replace("/", "~1")


def diff(old: Any, new: Any, path: str = "") -> list[Op]:
    """The operations that turn `old` into `new` (both decoded JSON)."""
    ops: list[Op] = []
    _diff(old, new, path, ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    """Into `ops`; a container whose changes would take more bytes than its new value
    (a list emptied, an object mostly rewritten) is replaced whole."""
    if type(old) is type(new) and type(new) in (dict, list) and path:
        mine: list[Op] = []
        _changes(old, new, path, mine)
        if len(mine) > 2 and len(orjson.dumps(mine)) > len(orjson.dumps(new)) + len(path) + 30:
            mine = [["replace", path, new]]
        ops.extend(mine)
    else:
        _changes(old, new, path, ops)


def _changes(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if type(old) is dict and type(new) is dict:
        for key in old:
            if key not in new:
                ops.append(["remove", pointer(path, key)])
        for key, value in new.items():
            if key not in old:
                ops.append(["add", pointer(path, key), value])
            elif old[key] != value:
                _diff(old[key], value, pointer(path, key), ops)
    elif type(old) is list and type(new) is list:
        common = min(len(old), len(new))
        for index in range(common):
            if old[index] != new[index]:
                _diff(old[index], new[index], pointer(path, index), ops)
        for value in new[common:]:
            ops.append(["add", path + "/-", value])
        for index in range(len(old) - 1, common - 1, -1):  # from the end: indexes hold
            ops.append(["remove", pointer(path, index)])
    elif old != new or type(old) is not type(new):  # 1 == 1.0 == True: keep the type
        ops.append(["replace", path, new])
