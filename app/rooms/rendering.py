"""A state's view, its JSON and its `state` message, each made once, when first read.

A room makes each state's patch from the two states (the rules' `view_patch`) and
sends it to the sockets that asked for patches (the pages do): its whole view is
rendered only when something reads it (a socket that takes whole states, a welcome,
a `sync`, another process over Redis, the snapshot), from the parts the events since
the last view rendered changed (the rules' `view_changes`). See app/rooms/room.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from app.games.rendered import Kept
from app.rooms import outgoing

View = dict[str, Any]


def encode_view(view: dict[str, Any]) -> bytes:
    """`orjson.dumps(view)`, where each `Kept` list at the view's top level (a rendering
    that never changes) is encoded once and its bytes spliced into every later text."""
    kept = {}
    for key, value in view.items():
        if type(value) is Kept:
            if value.encoded is None:
                value.encoded = orjson.Fragment(orjson.dumps(value))
            kept[key] = value.encoded
    return orjson.dumps({**view, **kept} if kept else view)


class Rendering:
    """One state's view (`make` renders it), read any number of times, made once."""

    __slots__ = ("_json", "_make", "_text", "_view")

    def __init__(self, view: View | None = None, make: Callable[[], View] | None = None) -> None:
        self._view = view
        self._make = make
        self._json: bytes | None = None
        self._text: str | None = None

    @property
    def made(self) -> bool:
        return self._view is not None

    @property
    def view(self) -> View:
        if self._view is None:
            assert self._make is not None
            self._view, self._make = self._make(), None
        return self._view

    @property
    def json(self) -> bytes:
        if self._json is None:
            self._json = encode_view(self.view)
        return self._json

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = outgoing.state_text(self.json)
        return self._text
