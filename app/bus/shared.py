"""What a backplane shared by several processes offers beyond the `Bus` Protocol.

The registry uses it when the bus has it (`RedisBus`; `MemoryBus` has no other
process to watch): heartbeats, so that a new owner can drop the presence counted by
a process that died, and lapsed leases, so that rooms whose owner died are adopted
by a process that has their sockets.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol, runtime_checkable


@runtime_checkable
class SharedBus(Protocol):
    node_id: str

    @property
    def up_for(self) -> float:
        """Seconds the backplane has been reachable without a break (0 while it is not)."""
        ...

    def keep_lease(self, code: str, epoch: int, lost: Callable[[str], None]) -> None:
        """Renew the room's lease until `stop_keeping`, with every other room's (one write
        per round, none for a room a commit just renewed); `lost(why)` once it is gone
        or a renewal failed, and the owner's wait for its inbox ends at once."""
        ...

    def stop_keeping(self, code: str, epoch: int) -> None:
        """Its owner stopped: no more renewals (the lease lapses unless released)."""
        ...

    async def heartbeat(self) -> None:
        """Say that this process is alive (for `node_ttl_seconds`)."""
        ...

    async def live_nodes(self, nodes: Collection[str]) -> set[str]:
        """Those of `nodes` whose process beat recently."""
        ...

    async def unowned(self, codes: Collection[str]) -> list[str]:
        """Those of `codes` that no process holds the lease of."""
        ...
