"""`python -m tests.games.group.dying_group --host H --port P`: `python -m app` that kills
itself with SIGKILL as a game tells its group its result (`BANKIT_TEST_DIE_AT`):

- `before_report`: the game's finishing event is committed with its report, not told;
- `after_report`: the group is told (and has committed it), the effect not marked done.

The next owner of the game carries the report out again; the group records it once."""

from __future__ import annotations

import asyncio
import os
import signal

from app.__main__ import main
from app.games.seam import Effect
from app.rooms.effects import Source
from app.rooms.spawning import Spawner

STEPS = ("before_report", "after_report")


def install(step: str) -> None:
    assert step in STEPS, step
    tell = Spawner.tell

    async def dying_tell(self: Spawner, source: Source, effect: Effect) -> None:
        result = effect.data.get("command", {}).get("result") is not None
        if result and step == "before_report":
            os.kill(os.getpid(), signal.SIGKILL)
        await tell(self, source, effect)
        if result and step == "after_report":
            for _ in range(500):  # bounded: the group commits it within milliseconds
                group = await self.registry.snapshot(effect.data["code"])
                if group is not None and group["state"]["games"][-1]["result"] is not None:
                    os.kill(os.getpid(), signal.SIGKILL)  # the group committed it: die now
                await asyncio.sleep(0.01)

    Spawner.tell = dying_tell  # type: ignore[method-assign]


if __name__ == "__main__":
    install(os.environ["BANKIT_TEST_DIE_AT"])
    main()
