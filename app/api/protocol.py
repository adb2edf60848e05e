"""What every game's wire protocol shares (../shared/PROTOCOL.md), parsed strictly.

A socket message is a JSON object with a `type` and an optional `id`; `ping` and
`undo` are every game's, the rest is the game's own (`app/games/`). `"3"`, `3.0`
and `true` are not dice: every model is strict. Unknown fields are ignored so that
newer clients can add some.
"""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from app.api import jsontext
from app.games.names import MAX_NAME

MAX_ID = 64


class BadMessage(Exception):
    """`bad_message`, with the sender's `id` when that id itself was valid."""

    def __init__(self, message: str, command_id: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.command_id = command_id


class Message(NamedTuple):
    """A socket message's `type` and `id`, read before the game reads the rest (a tuple:
    made at a third of a frozen dataclass's cost, once per message)."""

    type: str
    id: str | None


def read_message(text: str) -> Message:
    """The message's `type` and a valid `id`, or BadMessage."""
    try:
        raw: Any = jsontext.loads(text)
    except jsontext.NotJSON:
        raise BadMessage("Not JSON (or not valid Unicode).", None) from None
    if not isinstance(raw, dict):
        raise BadMessage("A message is a JSON object with a type.", None)
    raw_id = raw.get("id")
    valid_id = raw_id is None or (isinstance(raw_id, str) and len(raw_id) <= MAX_ID)
    command_id = raw_id if valid_id else None
    kind = raw.get("type")
    if not valid_id:
        raise BadMessage(f"id: a string of at most {MAX_ID} characters, or null.", None)
    if not isinstance(kind, str):
        raise BadMessage("A message needs a type.", command_id)
    return Message(kind, command_id)


# -- HTTP bodies ---------------------------------------------------------------------
class JoinRoom(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    name: Annotated[str, Field(max_length=MAX_NAME * 8)]
    phone: bool = True  # False: the banker seats someone who plays without a phone
    # extension: a phone's share of the room's fair dice (docs/fair-dice.md)
    client_seed: Annotated[str, Field(pattern=r"^[0-9a-f]{16,64}$")] | None = None


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


class RoomCreated(BaseModel):
    code: str
    banker_token: str
    state: dict[str, Any]


class PlayerJoined(BaseModel):
    player_id: str
    token: str
    state: dict[str, Any]


class RoomState(BaseModel):
    state: dict[str, Any]


class RoomLog(BaseModel):
    events: list[dict[str, Any]]
    next_after: int | None = None  # extension: the next page's `after` (GET .../log)
