"""The Redis failover drill, many kills: the primary SIGKILLed mid-round `--kills` times.

    python -m bench.failover [--kills 10] [--rooms 2] [--min-replicas 2]

A primary, two replicas and three sentinels (`redis-server`, loopback, a temp dir), two
bankit processes on `redis+sentinel://…`, BANK games in play from real sockets
(tests/cluster/failover_drill.py). After each kill a replica is promoted and the killed
server comes back empty as a replica. Prints one row per kill (which server was promoted,
how long until every room had an answer to a command sent after the kill), then checks
every promise: each acknowledged command in the log exactly once, every send answered,
every hash chain whole. Exits 1 if one failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from tests.cluster.failover_drill import set_up, tear_down


async def main(kills: int, rooms: int, min_replicas: int) -> int:
    workdir = tempfile.mkdtemp(prefix="bankit-failover-")  # kept: the servers' logs
    print(f"logs in {workdir}")
    env = {"BANKIT_REDIS_MIN_REPLICAS": str(min_replicas)}
    drill = await set_up(Path(workdir), rooms=rooms, env=env)
    try:
        await drill.run(kills)
        failed = drill.check()
    finally:
        tear_down(drill)
    print(drill.table())
    print("\n".join(failed) or "every acked command logged once, every send answered, chains whole")
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--rooms", type=int, default=2)
    parser.add_argument("--min-replicas", type=int, default=2)
    options = parser.parse_args()
    sys.exit(asyncio.run(main(options.kills, options.rooms, options.min_replicas)))
