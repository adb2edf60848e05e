"""Every message the server writes to a socket, encoded here and nowhere else."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

# The kinds of frame a room publishes (app/api/hub.py reads them; the bus does not):
STATE = "state"  # a `state` message's text
PRESENCE = "presence"  # a `presence` message's text
KICK = "kick"  # the id of a player whose sockets close with 4401
REVOKE = "revoke"  # token hashes (space-separated) that were handed over: their sockets close


def ack(command_id: str | None, seq: int) -> bytes:
    return orjson.dumps({"type": "ack", "id": command_id, "seq": seq})


def refusal(command_id: str | None, code: str, message: str) -> bytes:
    return orjson.dumps({"type": "error", "id": command_id, "code": code, "message": message})


def error_text(code: str, message: str, command_id: str | None = None) -> str:
    return refusal(command_id, code, message).decode()


def pong(command_id: str | None) -> str:
    return orjson.dumps({"type": "pong", "id": command_id}).decode()


def welcome(role: str, player_id: str | None, state: Any) -> str:
    """`state` is the snapshot's state, already decoded (or an orjson.Fragment)."""
    you = {"role": role, "player_id": player_id}
    return orjson.dumps({"type": "welcome", "you": you, "state": state}).decode()


def state_text(view_json: bytes) -> str:
    """A `state` message around a view that is already encoded (once per change)."""
    return '{"type":"state","state":' + view_json.decode() + "}"


def presence_text(connected: Mapping[str, bool], host_connected: bool, handover: Any = None) -> str:
    """`host_connected` (an extension): the banker's or organiser's phone is here;
    `handover` (an extension): the state's, which the host's leaving or return changes."""
    message = {"type": "presence", "connected": connected, "host_connected": host_connected}
    if handover is not None:
        message["handover"] = handover
    return orjson.dumps(message).decode()
