"""`python -m tests.cluster.dying_app --host H --port P`: `python -m app` that kills itself
with SIGKILL at one step of a `create_room` effect, named by `BANKIT_TEST_DIE_AT`:

- `before_create`: the source room's event is committed, its effect not begun;
- `after_create`: the new room is stored (seats and all), the source not yet told;
- `after_tell`: the source is told `spawned`, the effect not yet marked done.

It dies at the first such step it reaches; the next owner carries the effect out again.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from app.__main__ import main
from app.games.seam import Effect
from app.rooms.effects import Source
from app.rooms.registry import RoomRegistry
from app.rooms.spawning import Spawner

STEPS = ("before_create", "after_create", "after_tell")


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def install(step: str) -> None:
    """Patch the effect's steps so that this process dies at `step` (only when run)."""
    assert step in STEPS, step
    create_room, create, system = Spawner.create_room, RoomRegistry.create, Spawner._system

    async def dying_create_room(self: Spawner, source: Source, effect: Effect) -> None:
        if step == "before_create":
            die()
        await create_room(self, source, effect)

    async def dying_create(self: RoomRegistry, *args: Any, **kwargs: Any) -> dict[str, Any]:
        state = await create(self, *args, **kwargs)
        if step == "after_create" and kwargs.get("origin") is not None:
            die()
        return state

    async def dying_system(self: Spawner, code: str, command: Any, effect_id: str) -> None:
        await system(self, code, command, effect_id)
        if step == "after_tell" and command.get("type") == "spawned":
            die()

    Spawner.create_room = dying_create_room  # type: ignore[method-assign]
    RoomRegistry.create = dying_create  # type: ignore[method-assign]
    Spawner._system = dying_system  # type: ignore[method-assign]


if __name__ == "__main__":
    install(os.environ["BANKIT_TEST_DIE_AT"])
    main()
