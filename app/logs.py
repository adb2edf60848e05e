"""Logging for the whole process: one format, and no token ever written out."""

from __future__ import annotations

import logging
import re

_TOKEN = re.compile(r"(token=)[^&\s\"']+", re.IGNORECASE)


class RedactingFormatter(logging.Formatter):
    """Masks `token=...` wherever it appears, e.g. in a WebSocket request line."""

    def format(self, record: logging.LogRecord) -> str:
        return _TOKEN.sub(r"\1<redacted>", super().format(record))


def configure(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
