"""Redis that fails over: the primary SIGKILLed mid-round, again and again, under two
bankit processes behind three sentinels (tests/cluster/failover_drill.py)."""

from __future__ import annotations

from pathlib import Path

from tests.cluster.failover_drill import BETWEEN, set_up, tear_down

KILLS = 3  # `python -m bench.failover --kills 10` runs more
RESUME_LIMIT = 10.0


async def test_a_promoted_replica_loses_no_acknowledged_command(tmp_path: Path) -> None:
    drill = await set_up(tmp_path)
    try:
        await drill.run(KILLS)
        print("\n" + drill.table())
        assert drill.check() == []
        assert len(drill.promotions) == KILLS
        assert all(old != new for old, new in drill.promotions)
        assert max(drill.resumed) < RESUME_LIMIT, drill.resumed
        for room in drill.rooms:
            assert len(room.acked) >= BETWEEN * KILLS, "play went on between the kills"
    finally:
        tear_down(drill)
