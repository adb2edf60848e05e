"""Prometheus metrics of one process, owned by the app's lifespan (no global registry).

Gauges are read when scraped (connections, rooms owned); counters and the fan-out
histogram are fed by the bus and the registry through plain callbacks, so that
neither `bus/` nor `rooms/` imports prometheus.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

# Fan-out latency buckets in seconds: most of it is well under 10 ms.
FANOUT_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


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
