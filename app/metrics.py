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
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

# Fan-out latency buckets in seconds: most of it is well under 10 ms.
FANOUT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# Stalls: anything over a few ms delays every socket of the process.
STALL_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# Seconds between two probes of the loop. A probe that lands between two commands wakes
# the loop: every 50 ms, with the checkpointer's poll every 0.2 s, they cost an idle
# 50-room server ~3 ms of CPU a second (docs/performance.md). Any stall longer than this
# is seen; shorter ones are sampled.
LAG_INTERVAL = 0.25


class _Applied(Collector):
    def __init__(self, read: Callable[[], int]) -> None:
        self.read = read

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "bankit_events_applied", "Room events applied by this process's actors."
        )
        family.add_metric([], float(self.read()))
        yield family


class _Counts:
    """One histogram's counts: a list index and an add per observation (prometheus'
    Histogram takes a lock and walks its buckets in Python, 20 times a second here)."""

    __slots__ = ("counts", "total")

    def __init__(self, size: int) -> None:
        self.counts = [0] * size
        self.total = 0.0


class _Stalls(Collector):
    """A histogram over STALL_BUCKETS, per label value, summed into buckets when scraped:
    the same text as prometheus_client's Histogram (without its `_created`)."""

    def __init__(self, name: str, documentation: str, label: str | None = None) -> None:
        self.name, self.documentation, self.label = name, documentation, label
        self.bounds = STALL_BUCKETS
        self.series: dict[str, _Counts] = {}

    def counts(self, value: str = "") -> _Counts:
        series = self.series.get(value)
        if series is None:
            series = self.series[value] = _Counts(len(self.bounds) + 1)
        return series

    def observe(self, series: _Counts, seconds: float) -> None:
        series.counts[bisect_left(self.bounds, seconds)] += 1  # `le`: the first bound ≥
        series.total += seconds

    def collect(self) -> Iterator[HistogramMetricFamily]:
        labels = [self.label] if self.label else None
        family = HistogramMetricFamily(self.name, self.documentation, labels=labels)
        names = [repr(bound) for bound in self.bounds] + ["+Inf"]  # as prometheus_client
        for value, series in sorted(self.series.items()):
            cumulative, buckets = 0, []
            for name, count in zip(names, series.counts, strict=True):
                cumulative += count
                buckets.append((name, float(cumulative)))
            family.add_metric([value] if labels else [], buckets, series.total)
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

        self.loop_lag = _Stalls(
            "bankit_event_loop_lag_seconds",
            f"How late the event loop ran a timer due every {LAG_INTERVAL} s (its stalls).",
        )
        self.gc_pause = _Stalls(
            "bankit_gc_pause_seconds",
            "Garbage collections, by generation, and how long each held the process.",
            "generation",
        )
        self.registry.register(self.loop_lag)
        self.registry.register(self.gc_pause)
        self._lags = self.loop_lag.counts()
        self._pauses = [self.gc_pause.counts(str(generation)) for generation in range(3)]
        self._probe: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._gc_started = 0.0

    def start_probes(self) -> None:
        """Start timing the loop and the collector (the lifespan's; `stop_probes` ends it)."""
        loop = self._loop = asyncio.get_running_loop()
        self._probe = loop.call_at(loop.time() + LAG_INTERVAL, self._probe_loop)
        gc.callbacks.append(self._on_gc)

    def stop_probes(self) -> None:
        if self._probe is not None:
            self._probe.cancel()
            self._probe = None
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def _probe_loop(self) -> None:
        """A timer callback, not a task: nothing to switch to, ~1 µs per probe."""
        loop, probe = self._loop, self._probe
        assert loop is not None and probe is not None
        due, now = probe.when(), loop.time()
        lag = now - due if now > due else 0.0
        self.loop_lag.observe(self._lags, lag)
        self._probe = loop.call_at(now + LAG_INTERVAL, self._probe_loop)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_pause.observe(
                self._pauses[info["generation"]], time.perf_counter() - self._gc_started
            )

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
