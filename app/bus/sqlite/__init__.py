"""The SQLite backend: one process keeps its rooms in one file (docs/storage.md)."""

from app.bus.sqlite.bus import SqliteBus, file_of

__all__ = ["SqliteBus", "file_of"]
