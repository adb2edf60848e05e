"""A state as the change from the one before it: JSON Patch (RFC 6902) operations,
each written as an array, `[op, path]` or `[op, path, value]`, half the bytes.

The state patches extension (docs/protocol.md): a socket that asks for it gets each
new state as the operations that turn the previous state into it, made once per state
for every such socket: by the room, from the two states (the rules' `view_patch`,
app/games/rendered.py), or by the hub, as the diff of two whole views (app/api/hub.py).
Only `add`, `remove` and `replace` are made; a list that grew gets its new items
appended (`/-`), so the rounds already in `rounds_log` are never sent again; where the
changes inside an object or a list would be longer than its new value, it is replaced
whole. static/js/shell/patch.js applies them.
"""

from __future__ import annotations

import json
from typing import Any

Op = list[Any]  # ["add" | "remove" | "replace", JSON pointer, value (not for remove)]


def pointer(path: str, key: str | int) -> str:
    """`path` and one more reference token, escaped as RFC 6901 says."""
    if isinstance(key, int):
        return f"{path}/{key}"
    if "~" in key or "/" in key:
        key = key.replace("~", "~0").replace("/", "~1")
    return path + "/" + key


def diff(old: Any, new: Any, path: str = "") -> list[Op]:
    """The operations that turn `old` into `new` (both decoded JSON, or views: their
    lists may be list subclasses, and a part that did not change is often the same
    object, app/games/rendered.py, which is then not walked)."""
    ops: list[Op] = []
    if _container(old, new):
        _changes(old, new, path, ops)
    elif old != new or type(old) is not type(new):  # 1 == 1.0 == True: keep the type
        ops.append(["replace", path, new])
    return ops


def _container(old: Any, new: Any) -> bool:
    """Both objects, or both arrays."""
    if isinstance(new, dict):
        return isinstance(old, dict)
    return isinstance(new, list) and isinstance(old, list)


def _changed(was: Any, value: Any, path: str, ops: list[Op]) -> None:
    """One member that differs: its own changes, or itself whole when those would take
    more bytes than its new value (a list emptied, an object mostly rewritten)."""
    if not _container(was, value):
        ops.append(["replace", path, value])
        return
    mine: list[Op] = []
    _changes(was, value, path, mine)
    if len(mine) > 2 and _size(mine) > _size(value) + len(path) + 30:
        mine = [["replace", path, value]]
    ops.extend(mine)


def _changes(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    """Two objects or two arrays: what changed in them, member by member."""
    if isinstance(old, dict):
        same_keys = old.keys() == new.keys()  # mostly: then no key is looked for twice
        if not same_keys:
            for key in old:
                if key not in new:
                    ops.append(["remove", pointer(path, key)])
        for key, value in new.items():
            if not same_keys and key not in old:
                ops.append(["add", pointer(path, key), value])
                continue
            was = old[key]
            if was is not value and (was != value or type(was) is not type(value)):
                _changed(was, value, pointer(path, key), ops)
        return
    common = min(len(old), len(new))
    for index in range(common):
        was, value = old[index], new[index]
        if was is not value and (was != value or type(was) is not type(value)):
            _changed(was, value, f"{path}/{index}", ops)
    for value in new[common:]:
        ops.append(["add", path + "/-", value])
    for index in range(len(old) - 1, common - 1, -1):  # from the end: indexes hold
        ops.append(["remove", f"{path}/{index}"])


def _size(value: Any) -> int:
    """Its JSON's length in bytes, compact (as the frames encode it)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
