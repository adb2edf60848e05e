"""Renderings kept for as long as the part of a state they render lives (pure helpers).

A state is immutable and shares its unchanged parts with the state before it: a
round that has ended is the same object in every later state of its game. Its view
is then rendered once, not at every event, and every later view holds the same
dict, so that a patch (app/api/patch.py) sees it unchanged by identity instead of
comparing it field by field. A rendering is therefore shared: nobody mutates a view.

A rendered list that never changes is `Kept`: its JSON is encoded once too, and
the room splices it into every view's text instead of encoding it again (a long
game's `rounds_log` is most of its state's bytes).

The cache is keyed by the object's identity (never its hash, which would walk the
whole object) and forgets an entry when its object dies (a weak reference: a class
with slots needs `weakref_slot=True`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """Values kept for live objects, by identity: forgotten when their object dies."""

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict[int, tuple[weakref.ref[K], V]] = {}

    def get(self, obj: K) -> V | None:
        """The value kept for `obj`, or None."""
        hit = self._cache.get(id(obj))
        return hit[1] if hit is not None and hit[0]() is obj else None

    def keep(self, obj: K, value: V) -> None:
        key = id(obj)
        cache = self._cache

        def forget(ref: weakref.ref[K]) -> None:
            held = cache.get(key)
            if held is not None and held[0] is ref:
                del cache[key]

        cache[key] = (weakref.ref(obj, forget), value)

    def drop(self, obj: K) -> None:
        if self.get(obj) is not None:
            del self._cache[id(obj)]

    def __len__(self) -> int:
        return len(self._cache)


class Rendered(ByIdentity[K, V]):
    """What `render` made of each live object (never None), made once."""

    __slots__ = ("_render",)

    def __init__(self, render: Callable[[K], V]) -> None:
        super().__init__()
        self._render = render

    def __call__(self, obj: K) -> V:
        kept = self.get(obj)
        if kept is not None:
            return kept
        value = self._render(obj)
        self.keep(obj, value)
        return value


class Kept(list[Any]):
    """A rendered list that nobody changes. `encoded`: its JSON, once the room encoded
    it (app/rooms/room.py splices it into every later view's text)."""

    __slots__ = ("encoded",)

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        self.encoded: Any = None
