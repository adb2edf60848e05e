"""The floor of issue 31: the least a durable BANK! server does per action, for bench.compare.

    python -m bench.floor [--host 127.0.0.1] [--port 8000]

Not a product: a measuring stick in the same harness as bankit and the naive loop
(bench/naive.py), to say what CPU per action this machine allows at all. It has the
shape of issue 31's lean prototype: the socket read below ASGI (one short masked frame
unmasked in place, as app/api/socket_protocol.py does), the naive loop's rules on a
dict, orjson, each message encoded and framed once, one SQLite transaction per turn of
the loop for every room's events (WAL, `synchronous=NORMAL`, exclusive locking, 1 KiB
pages, a SHA-256 hash chain), nothing sent before the commit that holds it, and the
sender's patch and ack in one write. It leaves out what bankit's contracts ask for:
validation beyond the game's, rate limits, presence, idempotent ids, hashed tokens, an
exact patch (here: the top-level keys that changed, the seats that changed, the rounds
logged), snapshots, recovery from the log, other games. HTTP (create a room, seat
players) is the naive loop's.

With REDIS_URL set, the log is Redis's instead (bench.compare's `floor-redis`): one
pipelined write a turn on a socket of its own (RESP written and read here), each
room's events in a fenced script (its lease checked, the event added to the room's
stream, the patch published for other processes), the frames sent once its reply came;
with BANKIT_STORE=file (`floor-file`) it is an append-only file of its own, and with
BANKIT_STORE=memory (`floor-memory`) there is no log at all.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import os
import sqlite3
import tempfile
from collections import deque
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import orjson
import redis
import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import Protocol
from websockets.speedups import apply_mask

from app.__main__ import DrainingServer, loop_factory
from app.api.framing import text_frame
from bench.naive import UVICORN, Room, app, apply, rooms, set_connected

FIN_TEXT, MASKED = 0x81, 0x80
# The top-level keys an action may change; the patch carries those it did change, the
# seats whose score or banked flag changed, and the rounds logged by the action.
TOUCHED = ("status", "round", "roll_count", "bank", "turn", "last_roll", "winners")
SOCKETS: dict[str, list[FloorSocket]] = {}


Send = tuple[list["FloorSocket"], bytes, "FloorSocket", bytes]  # sockets, patch, sender, ack
Row = tuple[str, int, bytes, str]  # room, seq, hash, command


def send(sends: list[Send]) -> None:
    """The frames of stored events: the patch to each socket, the sender's with its ack."""
    for sockets, frame, sender, ack in sends:
        for socket in sockets:
            socket.transport.write(frame + ack if socket is sender else frame)


class Log:
    """Every room's events, hash-chained; what a turn of the loop appends is stored at
    the start of the next, in one write (`store`), and only then sent. This class
    stores nothing (`floor-memory`); the others below do."""

    def __init__(self) -> None:
        self.heads: dict[str, bytes] = {}  # each room's last hash
        self.rows: list[Row] = []
        self.sends: list[Send] = []
        self.loop = asyncio.get_running_loop()

    def append(self, code: str, seq: int, cmd: str, sending: Send) -> None:
        head = hashlib.sha256(self.heads.get(code, b"") + cmd.encode()).digest()
        self.heads[code] = head
        if not self.rows:
            self.loop.call_soon(self.flush)
        self.rows.append((code, seq, head, cmd))
        self.sends.append(sending)

    def flush(self) -> None:
        rows, sends, self.rows, self.sends = self.rows, self.sends, [], []
        self.store(rows)
        send(sends)

    def store(self, rows: list[Row]) -> None:
        """No log at all (`BANKIT_STORE=memory`)."""


class FileLog(Log):
    """An append-only file of its own (`BANKIT_STORE=file`: `floor-file`): one `write`
    a turn, in the page cache once it returns (what survives a killed process, as
    SQLite's `synchronous=NORMAL` does)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def store(self, rows: list[Row]) -> None:
        lines = (orjson.dumps((code, seq, head.hex(), cmd)) for code, seq, head, cmd in rows)
        os.write(self.fd, b"\n".join(lines) + b"\n")


class SqliteLog(Log):
    """One SQLite file, one transaction per turn."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        pragmas = (
            "page_size=1024",
            "journal_mode=WAL",
            "synchronous=NORMAL",
            "locking_mode=EXCLUSIVE",
        )
        for pragma in pragmas:
            self.db.execute(f"PRAGMA {pragma}")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS log (code TEXT, seq INTEGER, hash BLOB, cmd TEXT)"
        )

    def store(self, rows: list[Row]) -> None:
        self.db.execute("BEGIN")
        self.db.executemany("INSERT INTO log VALUES (?, ?, ?, ?)", rows)
        self.db.execute("COMMIT")


# A room's commit: its lease must still be this process's; the event joins its stream,
# the patch goes to the other processes' subscriptions.
COMMIT = b"""
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[2], '*', 'seq', ARGV[2], 'hash', ARGV[3], 'cmd', ARGV[4])
redis.call('PUBLISH', KEYS[3], ARGV[5])
return 1
"""


def resp(*args: bytes) -> bytes:
    return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)


class RedisLog(Log, asyncio.Protocol):
    """Redis: one pipelined write a turn; every reply here is one line (`+OK`, `:1`)."""

    def __init__(self, url: str) -> None:
        Log.__init__(self)
        parts = urlparse(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 6379
        self.sha = redis.Redis.from_url(url).script_load(COMMIT).encode()
        self.node = os.urandom(8).hex().encode()
        self.leased: set[str] = set()
        self.waiting: deque[tuple[int, list[Send]]] = deque()  # replies due, then sends
        self.lines: list[bytes] = []
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    async def connect(self) -> None:
        await self.loop.create_connection(lambda: self, self.host, self.port)

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def flush(self) -> None:
        """The frames go out once Redis replied (`data_received`), not here."""
        rows, sends, self.rows, self.sends = self.rows, self.sends, [], []
        out, replies = [], 0
        for (code, seq, head, cmd), (_, patch, _, _) in zip(rows, sends):
            room = code.encode()
            if code not in self.leased:
                self.leased.add(code)
                out.append(resp(b"SET", b"lease:" + room, self.node, b"NX"))
                replies += 1
            keys = (b"lease:" + room, b"log:" + room, b"room:" + room)
            args = (self.node, b"%d" % seq, head, cmd.encode(), patch)
            out.append(resp(b"EVALSHA", self.sha, b"3", *keys, *args))
            replies += 1
        self.waiting.append((replies, sends))
        assert self.transport is not None
        self.transport.write(b"".join(out))

    def data_received(self, data: bytes) -> None:
        *lines, self.buffer = (self.buffer + data).split(b"\r\n")
        self.lines += lines
        while self.waiting and len(self.lines) >= self.waiting[0][0]:
            replies, sends = self.waiting.popleft()
            answers, self.lines = self.lines[:replies], self.lines[replies:]
            if any(line.startswith((b"-", b":0")) for line in answers):
                raise RuntimeError(f"a commit failed: {answers}")  # nothing is sent
            send(sends)


LOG: Log | None = None


class FloorSocket(WebSocketsSansIOProtocol):
    room: Room | None = None
    code = ""
    who: str | None = None

    def handle_connect(self, event: Any) -> None:
        path, _, query = event.path.partition("?")
        if not path.startswith("/ws/rooms/") or path[10:] not in rooms:
            super().handle_connect(event)
            return
        self.handshake_initiated = self.handshake_complete = True
        self.code, room = path[10:], rooms[path[10:]]
        params = dict(part.partition("=")[::2] for part in query.split("&") if part)
        token = params.get("token", "")
        self.who = "banker" if token == room.banker_token else room.players.get(token)
        self.conn.send_response(self.conn.accept(event))
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.conn.parser = Protocol.parse(self.conn)
        next(self.conn.parser)
        self.start_keepalive()
        self.room = room
        set_connected(room, self.who, True)
        SOCKETS.setdefault(self.code, []).append(self)
        self.transport.write(text_frame(orjson.dumps({"type": "welcome", "state": room.state})))

    def data_received(self, data: bytes) -> None:
        size = len(data)
        if (
            self.room is not None
            and size > 6
            and data[0] == FIN_TEXT
            and (data[1] ^ MASKED) == size - 6 < 126
            and self.conn.current_size is None
        ):
            self.command(apply_mask(data[6:], data[2:6]).decode())
            return
        super().data_received(data)

    def send_receive_event_to_app(self) -> None:
        if self.room is None:
            super().send_receive_event_to_app()
            return
        data, self.frames = b"".join(self.frames), []
        self.command(data.decode())

    def command(self, text: str) -> None:
        room, message = self.room, orjson.loads(text)
        if self.who is None or room is None or LOG is None:
            return  # spectators only read
        state = room.state
        before = [state[key] for key in TOUCHED]
        seats = [(p["score"], p["banked"]) for p in state["players"]]
        logged = len(state["rounds_log"])
        refused = apply(room, self.who, message)
        if refused is not None:
            error = {"type": "error", "id": message.get("id"), "message": refused}
            self.transport.write(text_frame(orjson.dumps(error)))
            return
        seq = state["seq"]
        changes: dict[str, Any] = {
            key: state[key] for key, old in zip(TOUCHED, before) if state[key] != old
        }
        changes["seats"] = {
            str(n): p
            for n, (p, seat) in enumerate(zip(state["players"], seats))
            if (p["score"], p["banked"]) != seat
        }
        if len(state["rounds_log"]) > logged:
            changes["rounds_log"] = state["rounds_log"][logged:]
        frame = text_frame(orjson.dumps({"type": "patch", "seq": seq, "set": changes}))
        ack = text_frame(orjson.dumps({"type": "ack", "id": message.get("id"), "seq": seq}))
        LOG.append(self.code, seq, text, (SOCKETS[self.code], frame, self, ack))

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.room is not None:
            SOCKETS[self.code].remove(self)
            set_connected(self.room, self.who, False)
            self.room = None


async def serve(config: uvicorn.Config, data: Path) -> None:
    global LOG
    url = os.environ.get("REDIS_URL")
    if url:
        LOG = RedisLog(url)
        await LOG.connect()
    elif os.environ.get("BANKIT_STORE") == "memory":
        LOG = Log()
    elif os.environ.get("BANKIT_STORE") == "file":
        LOG = FileLog(data / "floor.log")
    else:
        LOG = SqliteLog(data / "floor.sqlite")
    await DrainingServer(config, app).serve()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.floor", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    data = Path(os.environ.get("BANKIT_DATA_DIR") or tempfile.mkdtemp(prefix="floor-"))
    data.mkdir(parents=True, exist_ok=True)
    gc.set_threshold(250, 1, 200_000)  # bankit's (app/config.py)
    config = uvicorn.Config(app, host=args.host, port=args.port, ws=FloorSocket, **UVICORN)
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(serve(config, data))


if __name__ == "__main__":
    main()
