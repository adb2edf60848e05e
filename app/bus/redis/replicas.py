"""Acks that survive a promotion: a commit is answered only once enough replicas have it.

Redis replicates asynchronously: a primary killed right after a write can lose it when
a replica is promoted. So, with `min_replicas` > 0, every write an answer depends on is
followed by `WAIT <min_replicas> <ms>` on the same connection (WAIT counts that
connection's writes, and replication is one ordered stream, so it covers everything
written before it):
- a commit is stored by COMMIT_HELD (fenced like COMMIT, publishing nothing); if WAIT
  confirms it, its frames and answers go out (`published`); if not, REVERT takes it
  back (its commands too) while the lease is still ours, and its senders are answered
  `unavailable`: nothing was applied, retry with the same id;
- a claim is confirmed the same way, which also confirms the record the new owner is
  about to restore (a previous owner's last commit, which it never answered).
The old primary, cut off from its replicas, can therefore write nothing that gets
acknowledged (WAIT times out); with `min-replicas-to-write` it refuses the writes too.
`wanted` None: 1 behind Sentinel, else 1 when the primary has a replica at the first
connection, 0 when it has none (one plain Redis: nothing changes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

from app.bus.base import Reply
from app.bus.redis.mux import Multiplexer
from app.bus.redis.wire import node_channel

UNAVAILABLE = "The replicas did not confirm this command in time; nothing was applied. Retry."


def unavailable(payload: bytes) -> bytes:
    """The answer to a command whose commit was taken back (the protocol's `error`)."""
    try:
        command_id = orjson.loads(payload).get("id")
    except (orjson.JSONDecodeError, AttributeError):
        command_id = None
    return orjson.dumps(
        {"type": "error", "id": command_id, "code": "unavailable", "message": UNAVAILABLE}
    )


def _answer(reply: Reply, payload: bytes) -> tuple[str, str, bytes]:
    """The PUBLISH of an answer to its sender's node channel (what COMMIT publishes)."""
    return ("PUBLISH", node_channel(reply.node), b"R" + reply.key.encode() + b"\n" + payload)


def _send(mux: Multiplexer, *command: Any) -> None:
    """Posted with the next write, not awaited: a failure is the lost connection's, whose
    callers all fail with it (and the answers' recovery path covers what it took)."""
    future = mux.post(*command)
    if future is not None:
        future.add_done_callback(lambda done: done.cancelled() or done.exception())


class Replicas:
    def __init__(
        self,
        wanted: int | None,
        wait_seconds: float,
        sentinel: bool,
        on_move: Callable[[], None],
    ) -> None:
        self.wanted = wanted
        self.wait_ms = max(1, int(wait_seconds * 1000))
        self._sentinel = sentinel
        self._on_move = on_move  # the primary changed: the subscriber follows
        self.address: tuple[str, int] | None = None
        # Each owned room's stored record and cursor, for a revert (None: not read yet).
        self.before: dict[str, tuple[bytes, str | None]] = {}
        self.restoring: set[str] = set()  # claimed: its next snapshot read is its record

    @property
    def needed(self) -> int:
        return self.wanted or 0

    async def on_connect(self, connection: Any) -> None:
        """Each new connection: a primary only (never a demoted one), and how many
        replicas a write must reach when the setting left it to us."""
        await connection.send_command("ROLE")
        role = await connection.read_response(disable_decoding=True)
        if not role or role[0] != b"master":
            raise RedisConnectionError("connected to a replica, not the primary")
        if self.wanted is None:
            self.wanted = 1 if self._sentinel or role[2] else 0
        address = (connection.host, connection.port)
        if self.address is not None and address != self.address:
            self._on_move()
        self.address = address

    async def written(
        self, mux: Multiplexer, body: str, keys: list[Any], args: list[Any]
    ) -> tuple[Any, bool]:
        """Run a script, then WAIT: its reply and whether enough replicas confirmed it."""
        sha = mux.sha(body)
        for _ in range(2):
            reply, acked = await mux.pipeline(
                ("EVALSHA", sha, len(keys), *keys, *args), ("WAIT", self.needed, self.wait_ms)
            )
            for result in (reply, acked):
                if isinstance(result, BaseException) and not isinstance(result, NoScriptError):
                    raise result
            if not isinstance(reply, NoScriptError):
                return reply, int(acked) >= self.needed
            await mux.execute("SCRIPT", "LOAD", body)
        raise RedisConnectionError("the script could not be loaded")

    def published(
        self,
        mux: Multiplexer,
        room: tuple[str, str, str],
        message: bytes,
        replies: Sequence[Reply],
        ttl_ms: int,
        kept: int,
    ) -> None:
        """A confirmed commit's frames and answers, in order, with the next write (what
        COMMIT does inside its script; an answer lost here is in no stream, and comes
        from the same-id re-submit: app/api/pending.py)."""
        tail, frames, answers = room
        if message:
            _send(mux, "SET", tail, message, "PX", ttl_ms)
            _send(mux, "PUBLISH", frames, message)
        for reply in replies:
            _send(
                mux,
                "XADD",
                answers,
                "MAXLEN",
                "~",
                kept,
                "*",
                "n",
                reply.node,
                "k",
                reply.key,
                "p",
                reply.payload,
            )
            _send(mux, *_answer(reply, reply.payload))
        if replies:
            _send(mux, "PEXPIRE", answers, ttl_ms)

    @staticmethod
    async def refused(mux: Multiplexer, replies: Sequence[Reply]) -> None:
        """The senders of a commit taken back are answered `unavailable`."""
        answers = [_answer(reply, unavailable(reply.payload)) for reply in replies]
        if answers:
            await mux.pipeline(*answers)
