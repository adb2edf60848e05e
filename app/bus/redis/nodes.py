"""Which processes are alive and which rooms' leases lapsed, read in bulk for the watcher.

Each process SETs `bankit:node:{<node>}:alive` with a TTL (its heartbeat); a room whose
`lease` key is gone has no owner. Both are read with MGET, 500 keys at a time (on Redis
Cluster the router splits each MGET by slot: app/bus/redis/cluster.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any

from app.bus.redis.wire import key, node_channel

Many = Callable[[list[tuple[Any, ...]]], Awaitable[list[Any]]]


def alive_key(node: str) -> str:
    return node_channel(node) + ":alive"


async def mget(many: Many, keys: list[str]) -> list[Any]:
    """Values of many keys, 500 per MGET, pipelined."""
    chunks = [keys[at : at + 500] for at in range(0, len(keys), 500)]
    replies = await many([("MGET", *chunk) for chunk in chunks])
    return [value for reply in replies for value in reply]


async def live(many: Many, nodes: Collection[str]) -> set[str]:
    """Those of `nodes` whose process beat recently."""
    ordered = list(nodes)
    found = await mget(many, [alive_key(node) for node in ordered]) if ordered else []
    return {node for node, hit in zip(ordered, found, strict=True) if hit is not None}


async def lapsed(many: Many, codes: Collection[str]) -> list[str]:
    """Those of `codes` whose lease has lapsed (their owner may be dead)."""
    ordered = list(codes)
    found = await mget(many, [key(code, "lease") for code in ordered]) if ordered else []
    return [code for code, held in zip(ordered, found, strict=True) if held is None]
