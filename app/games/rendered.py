"""Renderings kept for as long as the part of a state they render lives (pure helpers).

A state is immutable and shares its unchanged parts with the state before it: a
round that has ended is the same object in every later state of its game. Its view
is then rendered once, not at every event, and every later view holds the same
dict, so that a patch (app/api/patch.py) sees it unchanged by identity instead of
comparing it field by field. A rendering is therefore shared: nobody mutates a view.

A rendered list that never changes is `Kept`: its JSON is encoded once too, and
the room splices it into every view's text instead of encoding it again (a long
game's `rounds_log` is most of its state's bytes).

Each rendering is kept on the object it renders (its `renderings` field), so it
lives and dies with that object: no cache to look up, and nothing more for the
garbage collector to walk (a table of weak references costs it five objects per
rendering, for as long as a game lasts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, Generic, Protocol, TypeVar

V = TypeVar("V")
Renderings = dict[Any, Any]
RENDERINGS = "renderings"  # the field's name: a copy (the seam's `changed`) drops it


def renderings() -> Any:
    """The field of a part of a state that is rendered once: `renderings: Renderings |
    None = renderings()`. Not an argument, not compared, not shown; a copy made by
    `dataclasses.replace` or the seam's `changed` starts without any."""
    return dataclasses.field(default=None, init=False, repr=False, compare=False)


class Renderable(Protocol):
    @property
    def renderings(self) -> Renderings | None: ...


K = TypeVar("K", bound=Renderable)


class ByIdentity(Generic[K, V]):
    """Values kept on live objects: forgotten when their object dies."""

    __slots__ = ()

    def get(self, obj: K) -> V | None:
        """The value kept for `obj`, or None."""
        kept = obj.renderings
        return None if kept is None else kept.get(self)

    def keep(self, obj: K, value: V) -> None:
        kept = obj.renderings
        if kept is None:
            object.__setattr__(obj, RENDERINGS, {self: value})  # frozen dataclasses too
        else:
            kept[self] = value

    def drop(self, obj: K) -> None:
        kept = obj.renderings
        if kept is not None:
            kept.pop(self, None)


class Rendered(ByIdentity[K, V]):
    """What `render` made of each live object (never None), made once."""

    __slots__ = ("_render",)

    def __init__(self, render: Callable[[K], V]) -> None:
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


S = TypeVar("S")
Connected = Callable[[str], bool]
Part = Callable[[S, Connected], Any]


class ViewParts(Generic[S]):
    """A game's view as named parts, each with the fields of the state it reads.

    `view` renders every part, in order, then `tail` (the keys a view has only now and
    then: each of them reads `tail_fields`). `changes` says what an event changed in the
    view from the state before it and after it: the parts whose fields are other
    objects now (a state shares the parts an event did not touch, app/games/seam.py's
    `changed`), rendered; None when a tail field moved (render the whole view). The room
    then renders only those parts, and the patch for sockets walks only them
    (app/rooms/room.py); a test replays recorded games of every game to check that the
    parts changed are rendered as the whole view would be (tests/games/test_view_changes.py)."""

    __slots__ = ("_fields", "_parts", "_tail", "_tail_fields")

    def __init__(
        self,
        parts: dict[str, tuple[tuple[str, ...], Part[S]]],
        tail: Callable[[S], dict[str, Any]],
        tail_fields: tuple[str, ...],
    ) -> None:
        self._parts = parts
        self._tail = tail
        self._tail_fields = tail_fields
        self._fields = tuple({f for fields, _ in parts.values() for f in fields})

    def view(self, state: S, connected: Connected) -> dict[str, Any]:
        view = {key: render(state, connected) for key, (_, render) in self._parts.items()}
        tail = self._tail(state)
        return {**view, **tail} if tail else view

    def changes(self, before: S, after: S, connected: Connected) -> dict[str, Any] | None:
        """The parts of `after`'s view that may differ from `before`'s, in view order."""
        if before is after:
            return {}
        for name in self._tail_fields:
            if getattr(before, name) is not getattr(after, name):
                return None
        moved = {f for f in self._fields if getattr(before, f) is not getattr(after, f)}
        return {
            key: render(after, connected)
            for key, (fields, render) in self._parts.items()
            if not moved.isdisjoint(fields)
        }
