"""What a room enforces itself, from the server's settings (app/config.py)."""

from __future__ import annotations

from dataclasses import dataclass

from app.config import Settings


@dataclass(frozen=True, slots=True)
class RoomPolicy:
    max_log_events: int = 20_000  # BANKIT_MAX_LOG_EVENTS: then only a revocation is logged
    host_away_ms: int = 120_000  # BANKIT_HOST_AWAY_SECONDS: then the table may choose a host

    @classmethod
    def of(cls, settings: Settings) -> RoomPolicy:
        return cls(settings.max_log_events, round(settings.host_away_seconds * 1000))


DEFAULT_POLICY = RoomPolicy()
