"""The Redis backend: many processes share every room (docs/architecture-redis.md)."""

from app.bus.redis.bus import RedisBus

__all__ = ["RedisBus"]
