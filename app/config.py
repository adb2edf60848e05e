"""Every setting of the server, read from the environment in one place."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Defaults run one process locally with no Redis; each field is `BANKIT_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="BANKIT_", extra="ignore")

    redis_url: str | None = Field(
        default=None,
        validation_alias="REDIS_URL",
        description="Redis backplane; unset = one process, rooms in `store`.",
    )
    redis_cluster: bool = Field(
        False, description="REDIS_URL is a Redis Cluster node (or use `redis+cluster://`)."
    )
    # One process (no REDIS_URL): where its rooms live. See docs/storage.md.
    store: Literal["sqlite", "memory"] = Field(
        "sqlite", description="`sqlite`: rooms survive a restart; `memory`: they do not."
    )
    data_dir: Path = Field(Path("data"), description="Holds bankit.sqlite3 (created if missing).")
    sqlite_synchronous: Literal["NORMAL", "FULL"] = Field(
        "NORMAL", description="NORMAL survives a process crash; FULL also a power cut."
    )
    games: str = Field(
        "app.games.bank,app.games.bunco,app.games.tournament",
        description="Modules of the games this server hosts, comma-separated (app/games/).",
    )
    max_rooms: int = Field(10_000, ge=1, description="Live rooms one process holds.")
    max_connections: int = Field(10_000, ge=1, description="WebSockets one process accepts.")
    max_players: int = Field(50, ge=1, le=500, description="Players in one room.")
    max_frame_bytes: int = Field(4096, ge=256, description="Largest WebSocket frame accepted.")
    # A person taps a few times a second; a scripted client that awaits each answer
    # sends in bursts. Only a flood (hundreds unanswered) meets the limit.
    rate_per_second: float = Field(100.0, gt=0, description="Messages per second per connection.")
    rate_burst: int = Field(200, ge=1, description="Messages a connection may send at once.")
    flood_limit: int = Field(
        100, ge=1, description="Refused messages in a row before closing 1008."
    )
    send_queue: int = Field(
        512, ge=4, description="Unsent non-state messages per connection (> burst + flood)."
    )
    room_idle_seconds: float = Field(3 * 3600, gt=0, description="Unfinished room freed after.")
    finished_room_seconds: float = Field(1800, gt=0, description="Finished room kept viewable.")
    room_evict_seconds: float = Field(
        120, gt=0, description="One process: a room with no player leaves memory (not disk)."
    )
    reap_interval_seconds: float = Field(30, gt=0, description="How often idle rooms are swept.")
    dedupe_ids: int = Field(256, ge=1, description="Command ids remembered per token.")
    ws_ping_seconds: float = Field(20, gt=0, description="Protocol ping interval (dead peers).")
    ws_compression: bool = Field(False, description="permessage-deflate (costs CPU and latency).")
    log_level: str = Field("info", description="Log level of the server.")
    log_format: str = Field(
        "text", description="`text`, or `json`: one object a line, with `room`."
    )
    # Several processes (REDIS_URL set): ownership, takeover and Redis's memory of a room.
    lease_seconds: float = Field(1.5, gt=0, description="Room ownership lease; renewed at a third.")
    watch_seconds: float = Field(0.25, gt=0, description="How often lapsed leases are looked for.")
    node_ttl_seconds: float = Field(5.0, gt=0, description="A process silent this long is dead.")
    room_ttl_seconds: float = Field(
        6 * 3600, gt=0, description="Redis forgets a room this long after its last event."
    )
