"""The fan-out of a commit in one process (app/api/hub.py, `Hub.deliver`), over real
socket pairs: every socket of the room gets the state by the time the commit's call
returns (no later turn of the loop), and the sender gets its state and its answer in
one write, whatever its wire: one it writes to straight, one that compresses (every
frame through `Wire.write`) or one that is not reading (both queued, in order)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from app.api.connection import Connection
from app.api.framing import text_frame
from app.api.hub import Hub
from app.bus.base import Frame, Reply
from app.bus.memory import MemoryBus
from app.config import Settings
from app.games.registry import GameRegistry
from app.games.seam import Sender
from app.rooms import outgoing
from app.rooms.registry import RoomRegistry

CODE = "FANOUT"


class Ours(asyncio.Protocol):
    """Our end of a socket pair: reads nothing, knows when it is closed."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost.set_result(None)

    async def close(self) -> None:
        assert self.transport is not None
        self.transport.close()
        await self.lost


class Counted:
    """A real transport that keeps what each `write` brought (one `send` each)."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.transport.write(data)

    def is_closing(self) -> bool:
        return self.transport.is_closing()


class PairWire:
    """A `Wire` over one end of a socket pair, writing as the lean protocol does
    (app/api/socket_protocol.py): a built frame as it is, held while corked.
    `compressed`: as a permessage-deflate socket, every frame through `write` (no
    `out`); `paused`: the peer is not reading (`write` says not now)."""

    def __init__(self, transport: Counted, patches: bool, compressed: bool) -> None:
        self.transport = transport
        self.patches = patches
        self.compressed = compressed
        self.paused = False
        self._held: list[bytes] | None = None
        self.out: Any = None
        self._refresh()

    def _refresh(self) -> None:
        plain = not (self.compressed or self.paused or self._held is not None)
        self.out = self.transport if plain else None

    def write(self, text: str, frame: bytes | None) -> bool:
        if self.paused:
            return False
        data = frame if frame is not None else text_frame(text.encode())
        if self._held is None:
            self.transport.write(data)
        else:
            self._held.append(data)
        return True

    def cork(self) -> None:
        if self._held is None:
            self._held = []
            self._refresh()

    def uncork(self) -> None:
        held, self._held = self._held, None
        self._refresh()
        if held:
            self.transport.write(b"".join(held))

    def close(self, code: int, reason: str = "") -> None:
        self.transport.transport.close()

    def pause(self) -> None:
        self.paused = True
        self._refresh()

    def resume(self, conn: Connection) -> None:
        self.paused = False
        self._refresh()
        conn.flush()


class Phone:
    """A welcomed socket of the room: its connection, its wire and the peer's end."""

    def __init__(self, conn: Connection, wire: PairWire, ours: Ours, peer: socket.socket) -> None:
        self.conn, self.wire, self.ours, self.peer = conn, wire, ours, peer

    @property
    def writes(self) -> list[bytes]:
        return self.wire.transport.writes

    def received(self) -> list[dict[str, Any]]:
        """The messages already in the peer's socket buffer (read without waiting)."""
        data = b""
        while True:
            try:
                data += self.peer.recv(65536)
            except BlockingIOError:
                break
        messages, at = [], 0
        while at < len(data):
            size, at = data[at + 1], at + 2
            assert size < 126
            messages.append(orjson.loads(data[at : at + size]))
            at += size
        return messages


Room = tuple[Hub, MemoryBus, list[Phone]]


@pytest.fixture
async def room(tmp_path: Path) -> AsyncIterator[Room]:
    settings = Settings(data_dir=tmp_path)
    bus = MemoryBus()
    hub = Hub(bus, RoomRegistry(bus, settings, GameRegistry.load(settings)))
    await bus.start(hub.on_frame, hub.on_reply)
    await bus.create_room(CODE, b"s", b"e")
    phones: list[Phone] = []
    yield hub, bus, phones
    for each in phones:
        await each.ours.close()
        each.peer.close()
    await bus.close()


async def phone(room: Room, patches: bool = False, compressed: bool = False) -> Phone:
    """A socket welcomed at seq 1 (its welcome read already)."""
    hub, _, phones = room
    sock, peer = socket.socketpair()
    peer.setblocking(False)
    _, ours = await asyncio.get_running_loop().connect_accepted_socket(Ours, sock)
    assert ours.transport is not None
    wire = PairWire(Counted(ours.transport), patches, compressed)
    conn = Connection(wire, CODE, Sender("spectator"), queue_limit=8, rate=10, burst=10)
    await hub.add(conn)
    conn.last_seq = 1
    conn.start('{"type":"welcome"}')
    made = Phone(conn, wire, ours, peer)
    phones.append(made)
    assert made.received() == [{"type": "welcome"}]
    made.writes.clear()
    return made


def state(seq: int, ops: list[Any] | None = None) -> Frame:
    return Frame(outgoing.STATE, seq, outgoing.state_text(orjson.dumps({"seq": seq})), ops)


def message(frame: Frame) -> dict[str, Any]:
    return orjson.loads(frame.text)  # type: ignore[no-any-return]


async def commit(
    bus: MemoryBus, frames: list[Frame], replies: list[Reply], cursor: str = "1"
) -> None:
    epoch = await bus.claim(CODE) or bus._rooms[CODE].epoch
    assert await bus.commit(CODE, epoch, cursor, b"s", [b"e"], frames, replies)


def ack(conn: Connection, seq: int) -> Reply:
    return Reply("n", conn.key, outgoing.ack(f"c{seq}", seq))


async def test_the_sender_gets_its_state_and_answer_in_one_write_before_the_commit_returns(
    room: Room,
) -> None:
    hub, bus, _ = room
    sender, watcher = await phone(room), await phone(room)
    sender.conn.awaiting = 1
    frame = state(2)
    await commit(bus, [frame], [ack(sender.conn, 2)])
    whole = text_frame(frame.text.encode())
    assert sender.writes == [whole + text_frame(outgoing.ack("c2", 2))]
    assert watcher.writes == [whole]
    # on the sockets already, nothing held for a later turn of the loop
    assert sender.received() == [message(frame), {"type": "ack", "id": "c2", "seq": 2}]
    assert watcher.received() == [message(frame)]
    assert sender.conn.awaiting == 0 and not hub._corked


async def test_patch_sockets_get_the_patch_the_sender_with_its_answer(
    room: Room,
) -> None:
    _, bus, _ = room
    sender, watcher, whole = await phone(room, True), await phone(room, True), await phone(room)
    await commit(bus, [state(2)], [])  # the state the next patch applies to
    for each in (sender, watcher, whole):
        each.received()
        each.writes.clear()
    sender.conn.awaiting = 1
    await commit(bus, [state(3, [["replace", "/seq", 3]])], [ack(sender.conn, 3)], "2")
    patch = {"type": "patch", "seq": 3, "base": 2, "ops": [["replace", "/seq", 3]]}
    assert len(sender.writes) == 1
    assert sender.received() == [patch, {"type": "ack", "id": "c3", "seq": 3}]
    assert watcher.received() == [patch]
    assert whole.received() == [message(state(3))]


async def test_a_compressing_sender_gets_both_in_one_write_too(
    room: Room,
) -> None:
    hub, bus, _ = room
    sender = await phone(room, compressed=True)
    sender.conn.awaiting = 1
    await commit(bus, [state(2)], [ack(sender.conn, 2)])
    assert len(sender.writes) == 1
    assert sender.received() == [message(state(2)), {"type": "ack", "id": "c2", "seq": 2}]
    assert not hub._corked


async def test_a_sender_that_is_not_reading_gets_its_state_then_its_answer_when_it_reads(
    room: Room,
) -> None:
    _, bus, _ = room
    sender, watcher = await phone(room), await phone(room)
    sender.wire.pause()
    sender.conn.awaiting = 1
    await commit(bus, [state(2)], [ack(sender.conn, 2)])
    await commit(bus, [state(3)], [], "2")  # the newer state replaces the queued one
    assert sender.writes == [] and sender.conn.awaiting == 0
    assert watcher.received() == [message(state(2)), message(state(3))]
    sender.wire.resume(sender.conn)
    assert sender.received() == [message(state(3)), {"type": "ack", "id": "c2", "seq": 2}]


async def test_a_commit_of_several_commands_answers_each_sender_in_one_write(
    room: Room,
) -> None:
    hub, bus, _ = room
    sender, other, watcher = await phone(room), await phone(room), await phone(room)
    sender.conn.awaiting = other.conn.awaiting = 1
    await commit(bus, [state(2), state(3)], [ack(sender.conn, 2), ack(other.conn, 3)])
    two, three = message(state(2)), message(state(3))
    assert len(sender.writes) == len(other.writes) == 1
    assert sender.received() == [two, three, {"type": "ack", "id": "c2", "seq": 2}]
    assert other.received() == [two, three, {"type": "ack", "id": "c3", "seq": 3}]
    assert watcher.received() == [two, three]
    assert not hub._corked


async def test_frames_and_answers_that_come_apart_still_leave_in_one_write(
    room: Room,
) -> None:
    """A backplane of several processes (Redis) hands frames and answers over apart:
    a socket that waits for an answer holds its frames until it comes."""
    hub, _, _ = room
    sender, watcher = await phone(room), await phone(room)
    sender.conn.awaiting = 1
    hub.on_frame(CODE, state(2))
    assert sender.writes == [] and watcher.received() == [message(state(2))]
    reply = ack(sender.conn, 2)
    hub.on_reply(reply.key, reply.payload)
    assert len(sender.writes) == 1
    assert sender.received() == [message(state(2)), {"type": "ack", "id": "c2", "seq": 2}]
