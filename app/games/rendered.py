"""Renderings kept for as long as the part of a state they render lives (pure helpers).

A state is immutable and shares its unchanged parts with the state before it: a
round that has ended is the same object in every later state of its game. Its view
is then rendered once, not at every event, and every later view holds the same
dict, so that a patch (app/games/patch.py) sees it unchanged by identity instead of
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
import operator
from collections.abc import Callable, Iterable
from typing import Any, Generic, Protocol, TypeVar

from app.games.patch import Op, diff

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
# A part's own patch: (state before, state after, connected, its JSON pointer) -> the
# operations that turn the part's view before into its view after (app/games/patch.py).
Patcher = Callable[[S, S, Connected, str], list[Op]]


class ViewParts(Generic[S]):
    """A game's view as named parts, each with the fields of the state it reads.

    `view` renders every part, in order, then `tail` (the keys a view has only now and
    then: each of them reads `tail_fields`). A state shares the parts an event did not
    touch (app/games/seam.py's `changed`), so what an event changed is known from the
    fields that are other objects now:

    - `changes`: those parts of the view after, rendered (laid over the view before,
      the view after: how a room brings its whole view up to date, app/rooms/room.py);
    - `patch`: the JSON Patch operations that turn the view before into the view after,
      made from the two states, not from two whole views: each changed part's own
      `Patcher` (a seat that banked, a roll appended to the round), or by default the
      diff of that part's two renderings (rendered once, mostly: app/games/rendered.py).

    Both are None when a tail field moved (a key may come or go: render the whole
    view). tests/games/test_view_changes.py replays recorded games of every game and
    checks both against the whole views."""

    __slots__ = (
        "_fields",
        "_keys_of",
        "_order",
        "_parts",
        "_patchers",
        "_read",
        "_read_tail",
        "_tail",
        "_tail_fields",
    )

    def __init__(
        self,
        parts: dict[str, tuple[tuple[str, ...], Part[S]]],
        tail: Callable[[S], dict[str, Any]],
        tail_fields: tuple[str, ...],
        patchers: dict[str, Patcher[S]] | None = None,
        whole: tuple[str, ...] = (),
    ) -> None:
        """`patchers`: parts with a patch of their own; `whole`: small parts written
        whole when they changed; every other part's patch is the diff of its renderings."""
        self._parts = parts
        self._tail = tail
        self._tail_fields = tail_fields
        self._fields = tuple({f for fields, _ in parts.values() for f in fields})
        self._read = _reader(self._fields)
        self._keys_of = {f: [k for k, (fs, _) in parts.items() if f in fs] for f in self._fields}
        self._order = {key: n for n, key in enumerate(parts)}.__getitem__
        self._read_tail = _reader(tail_fields)
        own = patchers or {}
        self._patchers: dict[str, Patcher[S]] = {
            key: own.get(key) or (_replaced(render) if key in whole else _differ(render))
            for key, (_, render) in parts.items()
        }

    def view(self, state: S, connected: Connected) -> dict[str, Any]:
        view = {key: render(state, connected) for key, (_, render) in self._parts.items()}
        tail = self._tail(state)
        return {**view, **tail} if tail else view

    def _moved(self, before: S, after: S) -> set[str] | None:
        """The fields that are other objects now; None when a tail field is one."""
        read = self._read_tail
        if any(was is not now for was, now in zip(read(before), read(after), strict=True)):
            return None
        read = self._read
        return {
            name
            for name, was, now in zip(self._fields, read(before), read(after), strict=True)
            if was is not now
        }

    def changes(self, before: S, after: S, connected: Connected) -> dict[str, Any] | None:
        """The parts of `after`'s view that may differ from `before`'s, in view order."""
        if before is after:
            return {}
        moved = self._moved(before, after)
        if moved is None:
            return None
        return {
            key: render(after, connected)
            for key, (fields, render) in self._parts.items()
            if not moved.isdisjoint(fields)
        }

    def patch(self, before: S, after: S, connected: Connected) -> list[Op] | None:
        """The operations that turn `before`'s view into `after`'s, in view order."""
        if before is after:
            return []
        moved = self._moved(before, after)
        if moved is None:
            return None
        ops: list[Op] = []
        patchers, keys_of = self._patchers, self._keys_of
        for key in sorted({key for name in moved for key in keys_of[name]}, key=self._order):
            ops.extend(patchers[key](before, after, connected, "/" + key))
        return ops


def _reader(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields `names` of an object, as one tuple (read in C)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        read = operator.attrgetter(names[0])
        return lambda obj: (read(obj),)
    return lambda obj: ()


def _differ(render: Part[S]) -> Patcher[S]:
    """The default patcher: the diff of the part's two renderings."""

    def patcher(before: S, after: S, connected: Connected, path: str) -> list[Op]:
        was, value = render(before, connected), render(after, connected)
        if was is value or (was == value and type(was) is type(value)):
            return []
        return diff(was, value, path)

    return patcher


def _replaced(render: Part[S]) -> Patcher[S]:
    """A small part whose change is written whole (a score, the last roll)."""

    def patcher(before: S, after: S, connected: Connected, path: str) -> list[Op]:
        was, value = render(before, connected), render(after, connected)
        if was is value or (was == value and type(was) is type(value)):
            return []
        return [["replace", path, value]]

    return patcher


def appended(
    before: tuple[Any, ...], after: tuple[Any, ...], render: Callable[[Any], Any], path: str
) -> list[Op] | None:
    """A rendered list of `render`ed items (each rendered once) that grew or stayed the
    same: the items added (`path/-`); None when an item changed or went (diff it)."""
    count = len(before)
    if len(after) < count or (count and after[count - 1] is not before[-1]):
        return None
    return [["add", path + "/-", render(item)] for item in after[count:]]
