"""The app factory: the one place that picks concrete classes and wires them."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api import errors, handover, http, pages, scoresheets, ws
from app.api import metrics as metrics_route
from app.api.edge import Edge
from app.api.hub import Hub
from app.api.limits import AddressLimits
from app.api.services import Services
from app.api.shares import FairShares
from app.bus.base import Bus
from app.config import Settings
from app.games.registry import GameRegistry
from app.logs import redact_server_logs
from app.metrics import Metrics
from app.rooms.registry import RoomRegistry
from app.rooms.spawning import Spawner


def make_bus(settings: Settings, metrics: Metrics | None = None) -> Bus:
    """Redis (imported lazily) when REDIS_URL is set; else one process, on disk or in memory."""
    if settings.redis_url:
        from app.bus.redis.bus import RedisBus

        return RedisBus(
            settings.redis_url,
            lease_seconds=settings.lease_seconds,
            room_ttl_seconds=settings.room_ttl_seconds,
            node_ttl_seconds=settings.node_ttl_seconds,
            cluster=settings.redis_cluster,
            min_replicas=settings.redis_min_replicas,
            replica_wait_seconds=settings.redis_replica_wait_seconds,
            on_error=metrics.redis_error if metrics else None,
            on_fanout=metrics.fanout_seconds if metrics else None,
        )
    if settings.store == "memory":
        from app.bus.memory import MemoryBus

        return MemoryBus()
    from app.bus.sqlite.bus import SqliteBus, file_of

    return SqliteBus(file_of(settings.data_dir), settings.sqlite_synchronous)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    games = GameRegistry.load(settings)
    redact_server_logs()  # whatever server runs this app: no token in its access log

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        metrics = Metrics()
        bus = make_bus(settings, metrics)
        registry = RoomRegistry(bus, settings, games)
        Spawner(registry)  # rooms may create rooms and tell each other (app/rooms/spawning.py)
        hub = Hub(bus, registry)
        registry.interest = hub.rooms.keys  # rooms with sockets here: adopted if their owner dies
        metrics.watch(
            connections=lambda: hub.connections,
            rooms_owned=lambda: len(registry.actors),
            rooms_watched=lambda: len(hub.rooms),
            applied=lambda: (
                registry.applied_retired + sum(actor.applied for actor in registry.actors.values())
            ),
        )
        app.state.metrics = metrics
        await bus.start(hub.on_frame, hub.on_reply)
        await registry.start()
        limits = AddressLimits(settings, registry.exists, getattr(bus, "tally", None))
        app.state.services = Services(settings, games, bus, registry, hub, limits)
        gc.collect()
        gc.freeze()  # start-up objects never need scanning again: shorter GC pauses
        metrics.start_probes()
        try:
            yield
        finally:
            metrics.stop_probes()
            await hub.drain()
            await registry.close()
            await bus.close()

    app = FastAPI(
        title="bankit",
        summary="Real-time table dice games played from phones.",
        version="1",
        lifespan=lifespan,
        # the API's own pages only where BANKIT_API_DOCS says so (`make run` does)
        docs_url="/docs" if settings.api_docs else None,
        redoc_url="/redoc" if settings.api_docs else None,
        openapi_url="/openapi.json" if settings.api_docs else None,
    )
    app.add_middleware(FairShares)  # per-address shares of the API (app/api/shares.py)
    app.add_middleware(Edge, max_body_bytes=settings.max_body_bytes)  # outermost: every answer
    errors.install(app)
    app.include_router(http.router)
    app.include_router(handover.router)
    for game in games:  # what a game adds goes with it when BANKIT_GAMES leaves it out
        if game.routes is not None:
            app.include_router(game.routes)
    app.include_router(http.health)
    app.include_router(scoresheets.router)
    app.include_router(ws.router)
    app.include_router(metrics_route.router)
    app.include_router(pages.router)
    pages.mount_static(app)
    return app
