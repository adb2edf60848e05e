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
whole object) and forgets an entry when its object dies (a weak reference: the
rendered class needs `weakref_slot=True`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Rendered(Generic[K, V]):
    """What `render` made of each live object, by identity."""

    __slots__ = ("_cache", "_render")

    def __init__(self, render: Callable[[K], V]) -> None:
        self._render = render
        self._cache: dict[int, tuple[weakref.ref[K], V]] = {}

    def __call__(self, obj: K) -> V:
        hit = self._cache.get(id(obj))
        if hit is not None and hit[0]() is obj:
            return hit[1]
        value = self._render(obj)
        self.keep(obj, value)
        return value

    def get(self, obj: K) -> V | None:
        """The rendering kept for `obj`, or None."""
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
        hit = self._cache.get(id(obj))
        if hit is not None and hit[0]() is obj:
            del self._cache[id(obj)]

    def __len__(self) -> int:
        return len(self._cache)


class Kept(list[Any]):
    """A rendered list that nobody changes. `encoded`: its JSON, once the room encoded
    it (app/rooms/room.py splices it into every later view's text)."""

    __slots__ = ("encoded",)

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        self.encoded: Any = None
