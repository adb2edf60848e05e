"""`/metrics` says when the event loop stalls: its lag and the collector's pauses."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx

from tests.conftest import start_server


def sample(text: str, name: str) -> float:
    match = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    assert match is not None, f"{name} is not exported"
    return float(match.group(1))


def test_the_event_loop_lag_is_a_histogram_fed_while_the_server_runs(
    tmp_path: Path,
) -> None:
    server = start_server(tmp_path)
    try:
        first = httpx.get(f"{server.base_url}/metrics", timeout=5).text
        assert "# TYPE bankit_event_loop_lag_seconds histogram" in first
        assert "# TYPE bankit_gc_pause_seconds histogram" in first
        before = sample(first, "bankit_event_loop_lag_seconds_count")
        deadline = time.monotonic() + 20
        while True:  # probes run 20 times a second, on a loaded machine maybe fewer
            text = httpx.get(f"{server.base_url}/metrics", timeout=5).text
            if sample(text, "bankit_event_loop_lag_seconds_count") >= before + 5:
                break
            assert time.monotonic() < deadline, "the loop was never probed"
            time.sleep(0.1)
        inf = sample(text, r'bankit_event_loop_lag_seconds_bucket\{le="\+Inf"\}')
        assert inf == sample(text, "bankit_event_loop_lag_seconds_count")
    finally:
        server.kill()
