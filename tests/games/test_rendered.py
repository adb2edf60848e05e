"""`ViewParts`: a view's parts, and what an event changed in them, from the fields that moved."""

from __future__ import annotations

from dataclasses import dataclass

from app.games.rendered import FieldPart, ViewParts
from app.games.seam import changed


@dataclass(frozen=True)
class Toy:
    score: int = 0
    last: tuple[int, int] | None = None
    names: tuple[str, ...] = ()
    mode: str = "plain"


def everyone(_: str) -> bool:
    return True


PARTS: ViewParts[Toy] = ViewParts(
    {
        "game": ((), lambda s, c: "toy"),
        "score": FieldPart("score"),
        "last": FieldPart("last", lambda last: None if last is None else list(last)),
        "names": (("names",), lambda s, c: list(s.names)),
        "busy": (("score", "names"), lambda s, c: s.score > 0 and bool(s.names)),
    },
    lambda s: {"mode": s.mode} if s.mode != "plain" else {},
    ("mode",),
    whole=("busy",),
)


def test_field_parts_render_their_field_as_it_is_or_shown() -> None:
    toy = Toy(3, (1, 2), ("ann",))
    assert PARTS.view(toy, everyone) == {
        "game": "toy",
        "score": 3,
        "last": [1, 2],
        "names": ["ann"],
        "busy": True,
    }


def test_a_patch_and_the_changes_name_only_the_parts_whose_fields_moved() -> None:
    before = Toy(3, (1, 2), ("ann",))
    after = changed(before, last=(4, 4), names=("ann", "bob"))
    assert PARTS.patch(before, after, everyone) == [
        ["replace", "/last", [4, 4]],
        ["add", "/names/-", "bob"],
    ]
    changes = PARTS.changes(before, after, everyone)
    assert changes == {"last": [4, 4], "names": ["ann", "bob"], "busy": True}  # reads names


def test_a_field_that_is_another_object_of_the_same_value_patches_nothing() -> None:
    before = Toy(1000, (1, 2))
    after = changed(before, score=int("1000"), last=tuple([1, 2]))  # equal, not the same
    assert after.score is not before.score and after.last is not before.last
    assert PARTS.patch(before, after, everyone) == []
    changes = PARTS.changes(before, after, everyone)
    assert changes == {"score": 1000, "last": [1, 2], "busy": False}


def test_a_moved_tail_field_asks_for_the_whole_view() -> None:
    before = Toy()
    after = changed(before, mode="loud", score=1)
    assert PARTS.patch(before, after, everyone) is None
    assert PARTS.changes(before, after, everyone) is None
    assert PARTS.patch(after, after, everyone) == []
