"""Every setting of the server, read from the environment in one place."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, NonNegativeInt, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Defaults run one process locally with no Redis; each field is `BANKIT_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="BANKIT_", extra="ignore")

    redis_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("REDIS_URL", "BANKIT_REDIS_URL"),
        description=(
            "Redis backplane; unset = one process, rooms in `store`. `redis://`, "
            "`redis+cluster://h:p,h:p`, or `redis+sentinel://h:26379,h:26379/<service>`."
        ),
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
        "app.games.bank,app.games.bunco,app.games.tournament,app.games.group,app.games.member",
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
    group_idle_seconds: float = Field(
        400 * 86400, gt=0, description="A group (and its member cards) freed after, idle."
    )
    room_evict_seconds: float = Field(
        120, gt=0, description="One process: a room with no player leaves memory (not disk)."
    )
    reap_interval_seconds: float = Field(30, gt=0, description="How often idle rooms are swept.")
    dedupe_ids: int = Field(256, ge=1, description="Command ids remembered per token.")
    ws_ping_seconds: float = Field(20, gt=0, description="Protocol ping interval (dead peers).")
    ws_compression: bool = Field(False, description="permessage-deflate (costs CPU and latency).")
    # Young and middle collections tiny and often. A room's new state replaces its old
    # one, so allocations minus frees (the trigger) grow far slower than what a young
    # collection walks: at (2,000, 5) 4 ms young and 15-25 ms middle pauses at 750 rooms,
    # at (250, 1) 0.1 and 0.4 ms, and less GC CPU in all (docs/performance.md). Full
    # collections stay hours apart under load.
    gc_thresholds: tuple[NonNegativeInt, NonNegativeInt, NonNegativeInt] = Field(
        (250, 1, 200_000),
        description="The collector's: gen0 allocations, gen0 runs per gen1, gen1 per full.",
    )
    log_level: str = Field("info", description="Log level of the server.")
    log_format: str = Field(
        "text", description="`text`, or `json`: one object a line, with `room`."
    )
    # Several processes (REDIS_URL set): ownership, takeover and Redis's memory of a room.
    lease_seconds: float = Field(1.5, gt=0, description="Room ownership lease; renewed at a third.")
    watch_seconds: float = Field(0.25, gt=0, description="How often lapsed leases are looked for.")
    node_ttl_seconds: float = Field(5.0, gt=0, description="A process silent this long is dead.")
    room_ttl_seconds: float = Field(
        6 * 3600,
        gt=0,
        description="Redis forgets a room this long after its last event "
        "(or its game's keep time: a group's).",
    )
    redis_min_replicas: NonNegativeInt | None = Field(
        None,
        description=(
            "Replicas a commit must reach (WAIT) before it is answered; unset: 1 behind "
            "Sentinel or when the primary has a replica, else 0 (docs/architecture-redis.md)."
        ),
    )
    redis_replica_wait_seconds: float = Field(
        0.5, gt=0, description="How long a commit waits for its replicas; then `unavailable`."
    )

    # -- The edge: what one client may use, and what the server accepts from anyone --------
    # (docs/security.md). A client is its socket's peer address (X-Forwarded-For counts only
    # from the proxies in uvicorn's FORWARDED_ALLOW_IPS); IPv6 by its /64. The defaults let
    # a venue whose phones all share one NAT address play untouched: a 24-player Bunco
    # night, a 10-table bar (tests/api/test_venue_one_address.py).
    exempt_addresses: str = Field(
        "127.0.0.1,::1", description="Addresses no share applies to: the host itself."
    )
    spectators_per_address: int = Field(
        60, ge=1, description="Token-less (spectator) sockets one address holds."
    )
    spectators_per_room: int = Field(100, ge=1, description="Token-less sockets on one room.")
    seat_reserve: float = Field(
        0.25, ge=0, lt=1, description="Share of max_connections only token holders may use."
    )
    sockets_per_address: int = Field(
        1000, ge=1, description="Room sockets (with or without a token) one address holds."
    )
    room_creates_per_minute: float = Field(
        20, gt=0, description="Rooms one address creates a minute (after the burst)."
    )
    room_create_burst: int = Field(30, ge=1, description="Rooms one address creates at once.")
    rooms_per_address: int = Field(
        40, ge=1, description="Live rooms (not yet freed) one address has created."
    )
    joins_per_minute: float = Field(
        60, gt=0, description="Seats one address takes a minute (after the burst)."
    )
    join_burst: int = Field(100, ge=1, description="Seats one address takes at once.")
    seats_per_address_in_room: int = Field(
        32, ge=1, description="Seats of one room one address may take through joins."
    )
    unknown_codes_per_minute: float = Field(
        20, gt=0, description="Unknown room codes one address may try a minute (then 429)."
    )
    unknown_code_burst: int = Field(
        30, ge=1, description="Unknown room codes one address may try at once."
    )
    max_body_bytes: int = Field(
        16_384, ge=1024, description="Largest request body (413 beyond, before it is read)."
    )
    request_seconds: float = Field(
        10, gt=0, description="A connection's request headers and body must arrive within."
    )
    max_open_connections: int = Field(
        12_000, ge=1, description="Open TCP connections (HTTP and sockets); 503 beyond."
    )
    connections_per_address: int = Field(
        1500, ge=1, description="Open TCP connections from one address (closed beyond)."
    )
    allowed_origins: str = Field(
        "", description="Other origins whose pages may open sockets, comma-separated."
    )
    public_url: str | None = Field(
        None, description="The address join links and QR codes carry (https://host[:port])."
    )
    allowed_hosts: str = Field(
        "", description="Host names links may carry without public_url (IPs always may)."
    )
    max_stored_rooms: int = Field(
        100_000, ge=1, description="Rooms kept on disk or in Redis (503 server_full beyond)."
    )
    max_log_events: int = Field(
        20_000, ge=100, description="Events in one room's log; then it takes no more."
    )
    log_page: int = Field(5_000, ge=1, description="Largest page of GET .../log.")
    host_away_seconds: float = Field(
        120, gt=0, description="The host's phone away this long: the table may choose a new one."
    )
    api_docs: bool = Field(False, description="Serve /docs, /redoc and /openapi.json.")
    metrics_token: str | None = Field(
        None, description="/metrics needs `Bearer <this>`; unset: loopback clients only."
    )

    @model_validator(mode="after")
    def _replica_wait_inside_lease(self) -> Settings:
        # A commit the replicas did not confirm is taken back while its lease still holds.
        if self.redis_url and self.redis_replica_wait_seconds >= self.lease_seconds / 2:
            raise ValueError("redis_replica_wait_seconds must be under half of lease_seconds")
        return self
