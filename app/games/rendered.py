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
from itertools import compress
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

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
        # `get` and `keep` written out: a roll, a BANK, a seat is looked up at every event
        kept = obj.renderings
        if kept is None:
            value = self._render(obj)
            object.__setattr__(obj, RENDERINGS, {self: value})
            return value
        found: V | None = kept.get(self)
        if found is None:
            found = kept[self] = self._render(obj)
        return found


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
Fields = tuple[Any, ...]  # the fields of a state that its view reads, in `ViewParts`'s order


@dataclasses.dataclass(frozen=True, slots=True)
class FieldPart:
    """A part of the view that is one field of the state: its value as it is, or `show`n
    (made of that value alone: no state, no presence). Written whole when it changed;
    read and compared with the state's other fields, without a call of its own."""

    name: str
    show: Callable[[Any], Any] | None = None


MAX_PLANS = 512  # a bound on what `ViewParts` keeps, should a game move fields at random


class _Step(NamedTuple):
    """What a view part needs done when one of the fields it reads moved."""

    key: str
    path: str  # its JSON pointer
    place: int  # a FieldPart's: where its field is among the fields read; else -1
    show: Callable[[Any], Any] | None  # a FieldPart's `show`
    render: Part[Any] | None  # any other part's rendering, and its patcher:
    patcher: Patcher[Any] | None


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
      `Patcher` (a seat that banked, a roll appended to the round), a `FieldPart`
      replaced when its value changed, or by default the diff of that part's two
      renderings (rendered once, mostly: app/games/rendered.py).

    Both are None when a tail field moved (a key may come or go: render the whole
    view). tests/games/test_view_changes.py replays recorded games of every game and
    checks both against the whole views.

    Every event reads every field of both states at once (in C) and looks up the parts
    that set of moved fields touches: a plan made at its first sight, in view order.
    An event of a kind moves the same fields each time, so a game has a few dozen
    plans (BANK!: eleven); the work per event is then the parts whose fields moved,
    nothing for the others."""

    __slots__ = ("_names", "_parts", "_plans", "_read", "_steps", "_tail", "_tail_fields")

    def __init__(
        self,
        parts: dict[str, tuple[tuple[str, ...], Part[S]] | FieldPart],
        tail: Callable[[S], dict[str, Any]],
        tail_fields: tuple[str, ...],
        patchers: dict[str, Patcher[S]] | None = None,
        whole: tuple[str, ...] = (),
    ) -> None:
        """`patchers`: parts with a patch of their own; `whole`: small parts written
        whole when they changed; every other part's patch is the diff of its renderings."""
        self._tail = tail
        self._tail_fields = tail_fields
        names = list(tail_fields)
        for part in parts.values():
            names += [name for name in _reads(part) if name not in names]
        self._names = tuple(names)
        self._read = _reader(self._names)
        index = {name: n for n, name in enumerate(self._names)}
        own = patchers or {}
        self._steps: list[tuple[tuple[str, ...], _Step]] = []  # each part's, with its fields
        self._parts: dict[str, Part[S]] = {}  # each part's rendering (`view`)
        for key, part in parts.items():
            if isinstance(part, FieldPart):
                step = _Step(key, "/" + key, index[part.name], part.show, None, None)
                self._steps.append(((part.name,), step))
                self._parts[key] = _field_render(part)
                continue
            reads, render = part
            patcher = own.get(key) or (_replaced(render) if key in whole else _differ(render))
            self._steps.append((reads, _Step(key, "/" + key, -1, None, render, patcher)))
            self._parts[key] = render
        self._plans: dict[tuple[str, ...], tuple[_Step, ...] | None] = {}

    def view(self, state: S, connected: Connected) -> dict[str, Any]:
        view = {key: render(state, connected) for key, render in self._parts.items()}
        tail = self._tail(state)
        return {**view, **tail} if tail else view

    def _moved(self, before: S, after: S) -> tuple[Fields, Fields, tuple[_Step, ...] | None]:
        """The fields of both states, and the steps of the parts whose fields are other
        objects now, in view order (None when a tail field is one)."""
        old, new = self._read(before), self._read(after)
        moved = tuple(compress(self._names, map(operator.is_not, old, new)))
        try:
            return old, new, self._plans[moved]
        except KeyError:
            plan = self._plan(set(moved))
            if len(self._plans) < MAX_PLANS:
                self._plans[moved] = plan
            return old, new, plan

    def _plan(self, moved: set[str]) -> tuple[_Step, ...] | None:
        if not moved.isdisjoint(self._tail_fields):
            return None
        return tuple(step for reads, step in self._steps if not moved.isdisjoint(reads))

    def changes(self, before: S, after: S, connected: Connected) -> dict[str, Any] | None:
        """The parts of `after`'s view that may differ from `before`'s, in view order."""
        if before is after:
            return {}
        _, new, plan = self._moved(before, after)
        if plan is None:
            return None
        changes: dict[str, Any] = {}
        for step in plan:
            if step.render is not None:
                changes[step.key] = step.render(after, connected)
            else:
                value = new[step.place]
                changes[step.key] = value if step.show is None else step.show(value)
        return changes

    def patch(self, before: S, after: S, connected: Connected) -> list[Op] | None:
        """The operations that turn `before`'s view into `after`'s, in view order."""
        if before is after:
            return []
        old, new, plan = self._moved(before, after)
        if plan is None:
            return None
        ops: list[Op] = []
        for step in plan:
            if step.patcher is not None:
                ops += step.patcher(before, after, connected, step.path)
                continue
            was, value = old[step.place], new[step.place]
            if step.show is not None:
                was, value = step.show(was), step.show(value)
            if not _unchanged(was, value):
                ops.append(["replace", step.path, value])
        return ops


def _reader(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields `names` of an object, as one tuple (read in C)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        read = operator.attrgetter(names[0])
        return lambda obj: (read(obj),)
    return lambda obj: ()


def _reads(part: tuple[tuple[str, ...], Part[Any]] | FieldPart) -> tuple[str, ...]:
    """The fields of the state a part reads."""
    return (part.name,) if isinstance(part, FieldPart) else part[0]


def _field_render(part: FieldPart) -> Part[Any]:
    """A `FieldPart` as the whole view renders it."""
    read, show = operator.attrgetter(part.name), part.show
    if show is None:
        return lambda state, connected: read(state)
    return lambda state, connected: show(read(state))


def _unchanged(was: Any, value: Any) -> bool:
    """The same JSON: the same object, or equal and of one type (1 is not 1.0 or True)."""
    return was is value or (was == value and type(was) is type(value))


def _differ(render: Part[S]) -> Patcher[S]:
    """The default patcher: the diff of the part's two renderings."""

    def patcher(before: S, after: S, connected: Connected, path: str) -> list[Op]:
        was, value = render(before, connected), render(after, connected)
        if _unchanged(was, value):
            return []
        return diff(was, value, path)

    return patcher


def _replaced(render: Part[S]) -> Patcher[S]:
    """A small part whose change is written whole (a score, the last roll)."""

    def patcher(before: S, after: S, connected: Connected, path: str) -> list[Op]:
        was, value = render(before, connected), render(after, connected)
        if _unchanged(was, value):
            return []
        return [["replace", path, value]]

    return patcher


def appended(
    before: tuple[Any, ...], after: tuple[Any, ...], render: Callable[[Any], Any], path: str
) -> list[Op] | None:
    """A rendered list of `render`ed items (each rendered once) that grew or stayed the
    same: the items added (`path/-`); None when an item changed or went (diff it)."""
    if after is before:
        return []
    count, size = len(before), len(after)
    if size < count or (count and after[count - 1] is not before[-1]):
        return None
    if size == count + 1:  # mostly: one event appends one item
        return [["add", path + "/-", render(after[count])]]
    return [["add", path + "/-", render(item)] for item in after[count:]]
