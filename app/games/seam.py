"""What every game's rules give the room: the seam between the room and a game.

A game is decide/evolve over plain data, so one room can host BANK!, Bunco or a
tournament alike: `decide` validates a typed command against the state and names
the event it causes (or raises `RuleError`); `evolve` applies an event and never
fails; replaying the events through `evolve` rebuilds the state. Whatever chance
a command needs (dice, a seating drawn by lot) is drawn through `Chance` inside
`decide` and written into the event's data, so a replay needs no randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, Protocol, TypeVar, runtime_checkable

from app.games.rendered import RENDERINGS

T = TypeVar("T")
S = TypeVar("S")

PLAYER = "player"
SPECTATOR = "spectator"
SYSTEM = "system"  # the server itself (effects): no socket can send as it


class RuleError(Exception):
    """A refused command: `code` is the protocol's stable error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Sender:
    """Who sent a command: a principal of the game (e.g. "banker"), a player, a spectator."""

    role: str
    player_id: str | None = None
    # The event log's `by`: the player's id, or the principal's name. Set once, not a
    # property: a room reads it several times per command (its dedupe, its log entry).
    by: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by", self.player_id or self.role)


class Chance(Protocol):
    """Randomness on demand: fair in production, seeded in tests."""

    def dice(self, count: int, sides: int = 6) -> tuple[int, ...]: ...

    def shuffle(self, items: Sequence[T]) -> list[T]: ...


# -- the room's fair dice as a game's state shows them (docs/fair-dice.md) ----------------
@dataclass(frozen=True, slots=True)
class Fairness:
    commit: str  # the SHA-256 of the seed the next draw comes from
    revealed: tuple[tuple[str, str], ...] = ()  # (commit, seed) of every seed shown

    def view(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "revealed": [{"commit": c, "seed": s} for c, s in self.revealed],
        }


class HasFairness(Protocol):
    @property
    def fair(self) -> Fairness | None: ...


F = TypeVar("F", bound=HasFairness)


def changed(state: T, **changes: Any) -> T:
    """`dataclasses.replace` for a frozen dataclass without slots (a game's state, which
    every event copies), at a sixth of its cost: the fields are copied as they are,
    not passed through `__init__` again (so such a class has no `__post_init__`)."""
    fields = state.__dict__
    for name in changes:
        if name not in fields:
            unknown = changes.keys() - fields.keys()
            raise TypeError(f"{type(state).__name__} has no field {sorted(unknown)}")
    values = {**fields, **changes}
    if RENDERINGS in values:
        del values[RENDERINGS]  # a new part: no renderings yet
    copy = object.__new__(type(state))
    object.__setattr__(copy, "__dict__", values)  # its own dict, as `__init__` makes it
    return copy


def fairness_of(options: Mapping[str, Any]) -> Fairness | None:
    """The commitment of the create event (None: this room never draws)."""
    commit = options.get("dice_commit")
    return Fairness(commit) if isinstance(commit, str) else None


def revealing(state: F, data: Mapping[str, Any]) -> F:
    """The state once an event revealed the seed (any event may: the one ending the game)."""
    if state.fair is None:  # a room that never draws (most): no seed to look for
        return state
    reveal = data.get("dice_reveal")
    if reveal is None:
        return state
    shown = (*state.fair.revealed, (str(reveal["commit"]), str(reveal["seed"])))
    return replace(state, fair=Fairness(str(reveal["next_commit"]), shown))  # type: ignore[type-var]


def fairness_view(state: HasFairness) -> dict[str, Any]:
    """The state's `fair` key (extension), or nothing for a room that never draws."""
    return {} if state.fair is None else {"fair": state.fair.view()}


@dataclass(frozen=True, slots=True)
class Effect:
    """Something a room asks to be done outside itself once its event is committed.

    `id` is unique within the room; an effect is stored with the event that caused it
    and carried out by the room's owner after the commit, again after a takeover
    until it is reported done, so every effect handler must be idempotent by `id`.
    """

    kind: str
    id: str
    data: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Event:
    """What a command did, as the log stores it (without seq, time and hash).

    `effects` are not logged: they are kept in the room's snapshot until done."""

    type: str
    data: Mapping[str, Any]
    effects: tuple[Effect, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Seating:
    """How an event changes who holds a seat (and so whose token opens which seat)."""

    seated: tuple[str, ...] = ()
    unseated: tuple[str, ...] = ()


NO_SEATING = Seating()


@dataclass(frozen=True, slots=True)
class UndoPolicy:
    """Who may undo, which events an undo takes back, and what to say when none is left.

    An undo never reaches back past an event of `barriers` (a tournament table
    room's `lock`): it is refused with the code and message of `barred`. Events of
    `keeps` made after the undone one stay (a late seat is not a move of the game)."""

    roles: frozenset[str]
    events: frozenset[str]
    nothing_left: str
    not_allowed: str
    barriers: frozenset[str] = frozenset()
    barred: tuple[str, str] = ("game_over", "This game is closed: it can no longer change.")
    keeps: frozenset[str] = frozenset()


Connected = Callable[[str], bool]
STRICT: Any = {"strict": True, "extra": "ignore"}  # how a game's schema reads its commands


@dataclass(frozen=True, slots=True)
class Undo:
    """Every game's undo: the room takes back the latest event of `UndoPolicy.events`."""

    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["undo"]


class Rules(Protocol[S]):
    """One game's rules, pure: no I/O, no clock, and chance only through `Chance`."""

    name: str
    creator: str  # the principal whose token `POST` returns: "banker", "organiser"
    undo: UndoPolicy

    def create(self, options: Mapping[str, Any]) -> S:
        """The state right after the room's `create` event; RuleError on bad options."""
        ...

    def decide(self, state: S, sender: Sender, command: Any, chance: Chance) -> Event:
        """Validate a command (typed by the game's schema) in protocol error order."""
        ...

    def evolve(self, state: S, event: Event, seq: int) -> S:
        """Apply an event decided earlier (or read from the log)."""
        ...

    def seating(self, event: Event) -> Seating:
        """Whose seat `event` opens or closes (join, kick…)."""
        ...

    def view(self, state: S, connected: Connected) -> dict[str, Any]:
        """The state as clients see it, without `code` and `seq`."""
        ...

    def player_ids(self, state: S) -> list[str]:
        """Seated players, in seating order (for presence)."""
        ...

    def finished(self, state: S) -> bool:
        """The game is over: the room is kept only for its retention time."""
        ...

    def report(self, state: S) -> Mapping[str, Any] | None:
        """What a room created by another room (its parent) tells the parent of itself.

        The room sends the parent `{"type": "report", "code": <its code>, **report}`
        whenever this changes (an undo included); None: nothing to tell."""
        ...


@runtime_checkable
class Followers(Protocol):
    """Rules of a room that makes rooms opened by its own tokens (a tournament's tables):
    a hand-over here is carried to them, so one room is the tokens' authority."""

    def followers(self, state: Any, principal: str | None) -> Sequence[str]:
        """The rooms where `principal`'s tokens (None: the host's) open a seat or a role."""
        ...


@runtime_checkable
class ViewChanges(Protocol):
    """Rules that also say what an event changed in the view (optional; app/games/
    rendered.py's `ViewParts` answers it from the fields of the state that moved)."""

    def view_changes(self, before: Any, after: Any, connected: Connected) -> dict[str, Any] | None:
        """The keys of `after`'s view that may differ from `before`'s, rendered, in the
        view's order; None: render the whole view (a key may come or go)."""
        ...

    def view_patch(self, before: Any, after: Any, connected: Connected) -> list[Any] | None:
        """The JSON Patch operations (app/games/patch.py) that turn `before`'s view into
        `after`'s, made from the two states; None: diff the whole views."""
        ...
