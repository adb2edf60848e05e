"""One Redis connection shared by every caller, with automatic pipelining.

redis-py's pool gives each call a connection of its own and a write, a wait and a
read of its own: about 60-100 µs of CPU per call. On the hot path of a busy process
(submit, read, commit, answer: four calls per room event, many rooms at once) that is
most of the cost of the backplane. Here calls made in the same turn of the event loop
are written together, in one `writelines`, and their replies read back in order by one
reader task: a few µs per call under load. It still uses redis-py for everything but
the plumbing: its `Connection` (URL, auth, database, RESP2 parser); commands are packed
by hiredis's `pack_command` (the same bytes as redis-py's for str, bytes, int and float
arguments, at a fifteenth of its CPU; anything else goes through redis-py's).

A broken connection fails every pending call with `ConnectionError`; the next call
opens a new connection. Calls time out on their own (`timeout`), and a reply that
arrives for a call that timed out is dropped in order, so replies never shift.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import math
from collections.abc import Awaitable, Callable
from typing import Any

from hiredis import pack_command
from redis.asyncio import ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


class Multiplexer:
    def __init__(
        self,
        pool: ConnectionPool,
        timeout: float,
        on_connect: Callable[[Any], Awaitable[None]] | None = None,
    ) -> None:
        self._pool = pool
        self._on_connect = on_connect  # runs on each new connection before any call
        self._timeout = timeout
        self._connection: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self._outgoing: list[bytes] = []
        self._flush_scheduled = False
        self._connecting = asyncio.Lock()
        self._shas: dict[str, str] = {}

    async def close(self) -> None:
        await self._drop(RedisConnectionError("closed"))

    async def execute(self, *args: Any) -> Any:
        connection = self._connection or await self._connect()
        future = self._queue(connection, args)
        try:
            async with asyncio.timeout(self._timeout):
                return await future
        except TimeoutError:
            raise RedisTimeoutError(f"no reply within {self._timeout} s") from None
        finally:
            if not future.done():
                future.cancel()  # its reply, when it comes, is dropped in order

    async def pipeline(self, *commands: tuple[Any, ...]) -> list[Any]:
        """Several commands written together on ONE connection (a `WAIT` after a script
        counts that script's writes only there): each reply, or its exception."""
        connection = self._connection or await self._connect()
        futures = [self._queue(connection, command) for command in commands]
        try:
            async with asyncio.timeout(self._timeout):
                return list(await asyncio.gather(*futures, return_exceptions=True))
        except TimeoutError:
            raise RedisTimeoutError(f"no reply within {self._timeout} s") from None
        finally:
            for future in futures:
                if not future.done():
                    future.cancel()

    def _queue(self, connection: Any, command: tuple[Any, ...]) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        try:  # hiredis's C packer: ~15x faster than redis-py's per-argument encoding
            self._outgoing.append(pack_command(command))
        except TypeError:  # what it does not take: redis-py's says why (bool: DataError)
            self._outgoing.extend(connection.pack_command(*command))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush, connection)
        return future

    def post(self, *args: Any) -> asyncio.Future[Any] | None:
        """Send without waiting for the reply (Redis Cluster's publishes after a script),
        in the same write as whatever else goes out this turn; None when not connected.
        The reply's future, for whoever wants to know whether it failed."""
        connection = self._connection
        if connection is None:
            return None
        return self._queue(connection, args)

    def sha(self, body: str) -> str:
        sha = self._shas.get(body)
        if sha is None:
            sha = self._shas[body] = hashlib.sha1(body.encode()).hexdigest()
        return sha

    async def reset(self, reason: str) -> None:
        """Drop the connection (its calls fail): the next call connects again, behind
        Sentinel to whichever primary it names now."""
        await self._drop(RedisConnectionError(reason))

    async def script(self, body: str, keys: list[Any], args: list[Any]) -> Any:
        """EVALSHA, loading the script once if the server does not know it (after a restart)."""
        sha = self.sha(body)
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            pass
        await self.execute("SCRIPT", "LOAD", body)  # NOSCRIPT: it did not run; run it now
        return await self.execute("EVALSHA", sha, len(keys), *keys, *args)

    async def scripts(self, body: str, calls: list[tuple[list[Any], list[Any]]]) -> list[Any]:
        """The same script once per (keys, args), written together on one connection:
        each reply, or its exception (NOSCRIPT: loaded, and those calls run again)."""
        sha = self.sha(body)
        commands = [("EVALSHA", sha, len(keys), *keys, *args) for keys, args in calls]
        replies = await self.pipeline(*commands)
        again = [n for n, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if again:
            await self.execute("SCRIPT", "LOAD", body)
            for n, reply in zip(again, await self.pipeline(*(commands[n] for n in again))):
                replies[n] = reply
        return replies

    # -- plumbing ----------------------------------------------------------------------
    async def _connect(self) -> Any:
        async with self._connecting:
            if self._connection is not None:
                return self._connection
            kwargs = {**self._pool.connection_kwargs, "socket_timeout": None}
            connection = self._pool.connection_class(**kwargs)
            try:
                async with asyncio.timeout(self._timeout):
                    await connection.connect()  # type: ignore[no-untyped-call]
                    if self._on_connect is not None:
                        await self._on_connect(connection)
            except TimeoutError:
                raise RedisTimeoutError("connect timed out") from None
            except BaseException:
                with contextlib.suppress(Exception):
                    await connection.disconnect(nowait=True)
                raise
            self._connection = connection
            self._reader = asyncio.create_task(self._read(connection), name="redis-mux-reader")
            return connection

    def _flush(self, connection: Any) -> None:
        self._flush_scheduled = False
        chunks, self._outgoing = self._outgoing, []
        if connection is not self._connection or connection._writer is None:
            return  # dropped meanwhile: its callers were failed
        try:
            connection._writer.writelines(chunks)
        except (RuntimeError, OSError) as error:  # closed under us: fail its callers now
            asyncio.get_running_loop().create_task(self._drop(error, connection))

    async def _read(self, connection: Any) -> None:
        try:
            while True:
                try:
                    reply: Any = await connection.read_response(
                        disable_decoding=True, timeout=math.inf, disconnect_on_error=False
                    )
                except ResponseError as error:
                    reply = error
                future = self._waiting.popleft()
                if future.done():
                    continue  # its caller timed out: drop the reply, keep the order
                if isinstance(reply, ResponseError):
                    future.set_exception(reply)
                else:
                    future.set_result(reply)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - a broken connection fails its callers
            asyncio.get_running_loop().create_task(self._drop(error, connection))

    async def _drop(self, error: BaseException, connection: Any = None) -> None:
        if connection is not None and connection is not self._connection:
            return
        connection, self._connection = self._connection, None
        reader, self._reader = self._reader, None
        waiting, self._waiting = self._waiting, collections.deque()
        self._outgoing = []
        failure = (
            error if isinstance(error, RedisConnectionError) else RedisConnectionError(str(error))
        )
        for future in waiting:
            if not future.done():
                future.set_exception(failure)
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.disconnect(nowait=True)
