"""Logging for the whole process: text or JSON lines, and no token ever written out.

At debug level the WebSocket library prints request lines with their query string,
and uvicorn's access log prints every request's (a socket's `?token=…`), so `token=…`
is masked in every line whatever its source: by our formatters, and by a filter on
uvicorn's and websockets' own loggers, which `create_app` installs under any server
(plain `uvicorn app.main:app` formats lines with its own handlers). JSON lines carry the room
code as a field: from `extra={"room": code}` or, for the many lines written as
`"room %s: …"`, from their first argument.
"""

from __future__ import annotations

import logging
import re
import time

import orjson

_TOKEN = re.compile(r"(token=)[^&\s\"']+", re.IGNORECASE)


def redact(text: str) -> str:
    return _TOKEN.sub(r"\1<redacted>", text)


class RedactTokens(logging.Filter):
    """Masks tokens in a record's message and arguments before any handler sees it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


SERVER_LOGGERS = ("uvicorn", "uvicorn.access", "uvicorn.error", "websockets", "websockets.server")


def redact_server_logs() -> None:
    """Put the filter on the servers' loggers (a logger's filters do not reach its
    children's records, so each is named) and on every handler of the root."""
    for logger in (*map(logging.getLogger, SERVER_LOGGERS), logging.getLogger()):
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
        for handler in logger.handlers:
            if not any(isinstance(f, RedactTokens) for f in handler.filters):
                handler.addFilter(RedactTokens())


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        room = getattr(record, "room", None)
        if room is None and isinstance(record.msg, str) and record.msg.startswith("room %s"):
            room = record.args[0] if isinstance(record.args, tuple) and record.args else None
        if room is not None:
            line["room"] = str(room)
        if record.exc_info:
            line["exc"] = redact(self.formatException(record.exc_info))
        return orjson.dumps(line).decode()


def configure(level: str, fmt: str = "text") -> None:
    """Route every logger (uvicorn's too) through one handler on the root."""
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    redact_server_logs()
