"""The event loop's lag as a bankit server's /metrics gives it (`bankit_event_loop_lag_seconds`,
a timer due every 0.25 s, measured for how late it ran): read it, take the part of a
window, and print it as one line, for bench/compare.py and bench/soak.py."""

from __future__ import annotations

import httpx

METRIC = "bankit_event_loop_lag_seconds_bucket"
Histogram = dict[float, float]  # upper bound (s) -> probes at most that late (cumulative)


def read(base_url: str) -> Histogram:
    """The cumulative buckets now ({} when the server has no such metric)."""
    try:
        return parse(httpx.get(f"{base_url}/metrics", timeout=5).text)
    except httpx.HTTPError:
        return {}


def parse(text: str) -> Histogram:
    """The loop lag's cumulative buckets in a /metrics text."""
    buckets: Histogram = {}
    for line in text.splitlines():
        if line.startswith(METRIC + "{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            buckets[float(bound)] = float(line.rsplit(" ", 1)[1])
    return buckets


def window(before: Histogram, after: Histogram) -> Histogram:
    return {bound: count - before.get(bound, 0.0) for bound, count in after.items()}


def quantile(histogram: Histogram, q: float) -> float:
    """The bucket bound that holds quantile `q` of the probes (s; inf past the last)."""
    total = histogram.get(float("inf"), 0.0)
    for bound in sorted(histogram):
        if total and histogram[bound] >= q * total:
            return bound
    return float("nan")


def line(histogram: Histogram) -> str:
    """`probes N: ≤1 ms 97.0 %, ≤2 ms 99.1 %, …` up to the bucket that holds them all."""
    total = histogram.get(float("inf"), 0.0)
    if not total:
        return "no probes"
    parts = []
    for bound in sorted(histogram):
        share = histogram[bound] / total
        label = "more" if bound == float("inf") else f"≤{bound * 1000:g} ms"
        parts.append(f"{label} {share:.1%}")
        if share >= 1.0:
            break
    return f"probes {total:.0f}: " + ", ".join(parts)
