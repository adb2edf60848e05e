"""Prometheus metrics of one process, owned by the app's lifespan (no global registry).

Gauges are read when scraped (connections, rooms owned); counters and the fan-out
histogram are fed by the bus and the registry through plain callbacks, so that
neither `bus/` nor `rooms/` imports prometheus. Two histograms say when the event
loop stalls, and why: how late a timer fires (`bankit_event_loop_lag_seconds`) and
how long each garbage collection holds the process (`bankit_gc_pause_seconds`).
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

# Fan-out latency buckets in seconds: most of it is well under 10 ms.
FANOUT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# Stalls: anything over a few ms delays every socket of the process.
STALL_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG_INTERVAL = 0.05  # seconds between two probes of the loop (20 a second, a few µs each)


class _Applied(Collector):
    def __init__(self, read: Callable[[], int]) -> None:
        self.read = read

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "bankit_events_applied", "Room events applied by this process's actors."
        )
        family.add_metric([], float(self.read()))
        yield family


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.redis_errors = Counter(
            "bankit_redis_errors",
            "Failed Redis calls and lost subscriptions.",
            registry=self.registry,
        )
        self.fanout = Histogram(
            "bankit_fanout_seconds",
            "From a room's commit to its frames reaching this process (Redis backplane).",
            buckets=FANOUT_BUCKETS,
            registry=self.registry,
        )
        self.connections = Gauge(
            "bankit_connections", "Open WebSockets on this process.", registry=self.registry
        )
        self.rooms_owned = Gauge(
            "bankit_rooms_owned", "Rooms whose actor runs in this process.", registry=self.registry
        )
        self.rooms_watched = Gauge(
            "bankit_rooms_with_sockets",
            "Rooms with sockets on this process.",
            registry=self.registry,
        )

        self.loop_lag = Histogram(
            "bankit_event_loop_lag_seconds",
            f"How late the event loop ran a timer due every {LAG_INTERVAL} s (its stalls).",
            buckets=STALL_BUCKETS,
            registry=self.registry,
        )
        self.gc_pause = Histogram(
            "bankit_gc_pause_seconds",
            "Garbage collections, by generation, and how long each held the process.",
            ["generation"],
            buckets=STALL_BUCKETS,
            registry=self.registry,
        )
        self._probe: asyncio.TimerHandle | None = None
        self._gc_started = 0.0

    def start_probes(self) -> None:
        """Start timing the loop and the collector (the lifespan's; `stop_probes` ends it)."""
        loop = asyncio.get_running_loop()
        self._probe = loop.call_later(LAG_INTERVAL, self._probe_loop, loop.time() + LAG_INTERVAL)
        gc.callbacks.append(self._on_gc)

    def stop_probes(self) -> None:
        if self._probe is not None:
            self._probe.cancel()
            self._probe = None
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def _probe_loop(self, due: float) -> None:
        """A timer callback, not a task: nothing to switch to, a few µs per probe."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.loop_lag.observe(max(0.0, now - due))
        self._probe = loop.call_later(LAG_INTERVAL, self._probe_loop, now + LAG_INTERVAL)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            pause = time.perf_counter() - self._gc_started
            self.gc_pause.labels(str(info["generation"])).observe(pause)

    def redis_error(self) -> None:
        self.redis_errors.inc()

    def fanout_seconds(self, seconds: float) -> None:
        self.fanout.observe(seconds)

    def watch(
        self,
        connections: Callable[[], int],
        rooms_owned: Callable[[], int],
        rooms_watched: Callable[[], int],
        applied: Callable[[], int],
    ) -> None:
        self.connections.set_function(lambda: float(connections()))
        self.rooms_owned.set_function(lambda: float(rooms_owned()))
        self.rooms_watched.set_function(lambda: float(rooms_watched()))
        self.registry.register(_Applied(applied))

    def render(self) -> bytes:
        return generate_latest(self.registry)
