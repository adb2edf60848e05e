"""Structured logs: one JSON object a line, the room code as a field, never a token."""

from __future__ import annotations

import json
import logging

from app.logs import JsonFormatter


def line(message: str, *args: object, **extra: object) -> dict[str, object]:
    record = logging.LogRecord("bankit.actor", logging.WARNING, __file__, 1, message, args, None)
    record.__dict__.update(extra)
    return json.loads(JsonFormatter().format(record))  # type: ignore[no-any-return]


def test_a_room_line_carries_the_room_code() -> None:
    logged = line("room %s: lease lost, stepping down", "K7QF")
    assert logged["room"] == "K7QF" and logged["level"] == "warning"
    assert logged["msg"] == "room K7QF: lease lost, stepping down"
    assert line("adopted", room="ZZ9Z")["room"] == "ZZ9Z"
    assert "room" not in line("server started")


def test_a_token_in_a_line_is_masked() -> None:
    logged = line("GET /ws/rooms/K7QF?token=%s", "s3cr3t-t0ken")
    assert "s3cr3t-t0ken" not in json.dumps(logged)
    assert "token=<redacted>" in str(logged["msg"])
