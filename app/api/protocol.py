"""Pydantic models of the wire protocol (../shared/PROTOCOL.md), parsed strictly.

`"3"`, `3.0` and `true` are not dice: every model is strict. Unknown fields are
ignored so that newer clients can add some.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from app.api import jsontext
from app.rules.bank import MAX_NAME

MAX_ID = 64
Die = Annotated[int, Field(ge=1, le=6)]


class _Command(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    id: Annotated[str, Field(max_length=MAX_ID)] | None = None


class Start(_Command):
    type: Literal["start"]


class Roll(_Command):
    type: Literal["roll"]
    dice: Annotated[list[Die], Field(min_length=2, max_length=2)] | None = None


class Bank(_Command):
    type: Literal["bank"]
    player_id: str | None = None


class Undo(_Command):
    type: Literal["undo"]


class Kick(_Command):
    type: Literal["kick"]
    player_id: str


class Ping(_Command):
    type: Literal["ping"]


Command = Annotated[Start | Roll | Bank | Undo | Kick | Ping, Field(discriminator="type")]
_commands: TypeAdapter[Start | Roll | Bank | Undo | Kick | Ping] = TypeAdapter(Command)


class BadMessage(Exception):
    """`bad_message`, with the sender's `id` when that id itself was valid."""

    def __init__(self, message: str, command_id: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.command_id = command_id


def parse_command(text: str) -> Start | Roll | Bank | Undo | Kick | Ping:
    try:
        raw: Any = jsontext.loads(text)
    except jsontext.NotJSON:
        raise BadMessage("Not JSON (or not valid Unicode).", None) from None
    if not isinstance(raw, dict):
        raise BadMessage("A message is a JSON object with a type.", None)
    raw_id = raw.get("id")
    command_id = raw_id if isinstance(raw_id, str) and len(raw_id) <= MAX_ID else None
    try:
        return _commands.validate_python(raw)
    except ValidationError as error:
        raise BadMessage(_describe(error), command_id) from None


def _describe(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"] if part not in _TAGS)
    if first["type"] == "union_tag_invalid":
        return "Unknown message type: use start, roll, bank, undo, kick or ping."
    if first["type"] == "union_tag_not_found":
        return "A message needs a type."
    return f"{where}: {first['msg']}" if where else str(first["msg"])


_TAGS = {"start", "roll", "bank", "undo", "kick", "ping"}


# -- HTTP bodies ---------------------------------------------------------------------
class CreateRoom(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    game: Literal["bank"] = "bank"
    rounds: Annotated[int, Field(ge=1, le=100)] = 20
    roll_entry: Literal["banker", "roller", "virtual"] = "banker"


class JoinRoom(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    name: Annotated[str, Field(max_length=MAX_NAME * 8)]


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
