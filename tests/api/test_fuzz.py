"""Hostile input, fuzzed over a real socket: random and mutated protocol messages
from the banker, a player and a spectator of one real room. After each message the
server has answered it exactly once (carrying its `id` when the text was JSON with a
valid string id), the room changed only by an acknowledged command, the log chain
verifies, and the process is alive.

Each example is a message with what the test knows about it: its text, and the
JSON value that text stands for (None when it is not valid JSON, as `NaN` or a lone
surrogate is not). The texts are written here, token by token, so that they can be
valid but unusual: integers of hundreds of digits, `1e400`, nesting up to the frame
limit, duplicate keys (the last wins), whitespace of every kind JSON allows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx
from hypothesis import event, given, settings
from hypothesis import strategies as st

from app.rooms.eventlog import verify
from tests.client import OPEN, Client, Table
from tests.conftest import ServerProcess

FRAME_LIMIT = 4096  # the default `max_frame_bytes`: larger frames close the socket
MAX_ID = 64
COMMANDS = ("start", "roll", "bank", "undo", "kick", "ping")
CODES = {
    "bad_message",
    "not_allowed",
    "unknown_player",
    "not_started",
    "already_started",
    "not_in_lobby",
    "game_over",
    "round_over",
    "already_banked",
    "not_your_turn",
    "nothing_to_undo",
    "not_enough_players",
}
NOT_JSON = object()  # the value of a text that is not valid JSON


@dataclass(frozen=True)
class Message:
    text: str | bytes  # bytes: a binary frame
    value: Any  # what the text stands for; NOT_JSON when it is not (valid Unicode) JSON

    def expected_id(self) -> str | None:
        """The id the answer must carry: the sender's, when it is a valid string id."""
        if not isinstance(self.value, dict):
            return None
        raw = self.value.get("id")
        return raw if isinstance(raw, str) and len(raw) <= MAX_ID else None

    def is_valid_ping(self) -> bool:
        value = self.value
        return (
            isinstance(value, dict)
            and value.get("type") == "ping"
            and (value.get("id") is None or self.expected_id() is not None)
        )


# -- JSON text, written token by token ---------------------------------------------
Doc = tuple[str, Any]  # (text, value)
spaces = st.text(alphabet=" \t\n\r", max_size=2)
unicode = st.characters(exclude_categories=("Cs",))  # every code point but surrogates
names = st.text(unicode, max_size=12)  # empty, emoji, controls (escaped), RTL marks...


@st.composite
def strings(draw: st.DrawFn, pool: st.SearchStrategy[str] = names) -> Doc:
    text = draw(pool)
    return json.dumps(text, ensure_ascii=draw(st.booleans())), text


numbers: st.SearchStrategy[Doc] = st.one_of(
    st.integers(-(2**70), 2**70).map(lambda n: (str(n), n)),
    st.integers(10**100, 10**400).map(lambda n: (str(n), n)),  # hundreds of digits
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: (json.dumps(f), f)),
    st.sampled_from(
        [("1e400", float("inf")), ("-1e400", float("-inf")), ("1E+999", float("inf")), ("-0", 0)]
    ),
)
scalars: st.SearchStrategy[Doc] = st.one_of(
    st.just(("null", None)),
    st.sampled_from([("true", True), ("false", False)]),
    numbers,
    strings(),
)


@st.composite
def arrays(draw: st.DrawFn, items: st.SearchStrategy[Doc]) -> Doc:
    docs = draw(st.lists(items, max_size=4))
    gap = draw(spaces)
    text = "[" + gap + f"{gap},{gap}".join(t for t, _ in docs) + gap + "]"
    return text, [v for _, v in docs]


@st.composite
def objects(draw: st.DrawFn, pairs: st.SearchStrategy[list[tuple[Doc, Doc]]]) -> Doc:
    """An object from (key, value) pairs in order; a repeated key: the last one wins."""
    members = draw(pairs)
    gap = draw(spaces)
    text = (
        "{"
        + gap
        + f"{gap},{gap}".join(f"{k}{gap}:{gap}{v}" for (k, _), (v, _) in members)
        + gap
        + "}"
    )
    return text, {key: value for (_, key), (_, value) in members}


def documents() -> st.SearchStrategy[Doc]:
    return st.recursive(
        scalars,
        lambda inner: arrays(inner) | objects(st.lists(st.tuples(strings(), inner), max_size=4)),
        max_leaves=12,
    )


# -- protocol messages, whole and mutated --------------------------------------------
# Every example has a room of its own, so ids need not differ between examples (and
# must not depend on anything but the draws, or Hypothesis could not replay them).


@st.composite
def ids(draw: st.DrawFn) -> Doc | None:
    """Mostly fresh ids; also unicode, empty, 64 and 65 characters, and not strings."""
    kind = draw(st.sampled_from(["fresh", "fresh", "text", "edge", "wrong", "none"]))
    if kind == "fresh":
        fresh = "f-" + draw(st.text(unicode, max_size=4))
        return json.dumps(fresh, ensure_ascii=draw(st.booleans())), fresh
    if kind == "text":
        return draw(strings(st.text(unicode, max_size=MAX_ID)))
    if kind == "edge":
        size = draw(st.sampled_from([0, MAX_ID, MAX_ID + 1]))
        edge = "é" * size
        return json.dumps(edge), edge
    if kind == "wrong":
        return draw(
            st.one_of(numbers, st.just(("null", None)), arrays(scalars), objects(st.just([])))
        )
    return None


def commands(player_ids: list[str]) -> st.SearchStrategy[Doc]:
    """Objects that look like commands: a known or unknown type, plausible fields,
    fields of the wrong kind, extra fields, duplicates, nulls."""
    types = st.sampled_from(COMMANDS).map(lambda t: (json.dumps(t), t)) | st.one_of(
        strings(), scalars
    )
    dice = st.one_of(
        arrays(st.integers(1, 6).map(lambda n: (str(n), n))),
        arrays(numbers),
        arrays(scalars),
        scalars,
    )
    player = st.sampled_from(player_ids).map(lambda p: (json.dumps(p), p)) | scalars
    extra = st.tuples(strings(st.sampled_from(["x", "seq", "token", "", "ü"])), documents())

    @st.composite
    def build(draw: st.DrawFn) -> Doc:
        members: list[tuple[Doc, Doc]] = [(('"type"', "type"), draw(types))]
        command_id = draw(ids())
        if command_id is not None:
            members.append((('"id"', "id"), command_id))
        if draw(st.booleans()):
            members.append((('"dice"', "dice"), draw(dice)))
        if draw(st.booleans()):
            members.append((('"player_id"', "player_id"), draw(player)))
        members += draw(st.lists(extra, max_size=2))
        order = draw(st.permutations(members))
        duplicate = draw(st.integers(0, 9))  # a duplicate key before the one that counts
        if duplicate == 0:
            order = [(('"type"', "type"), draw(types)), *order]
        elif duplicate == 1:
            order = [(('"id"', "id"), draw(numbers | strings())), *order]
        return draw(objects(st.just(order)))

    return build()


@st.composite
def wellformed(draw: st.DrawFn, player_ids: list[str]) -> Doc:
    """A command as a client would send it (if not always at the right moment)."""
    kind = draw(st.sampled_from(COMMANDS))
    members: list[tuple[Doc, Doc]] = [(('"type"', "type"), (json.dumps(kind), kind))]
    command_id = draw(st.one_of(st.none(), st.text(unicode, max_size=MAX_ID)))
    if command_id is not None:
        members.append((('"id"', "id"), (json.dumps(command_id), command_id)))
    if kind == "roll" and draw(st.booleans()):
        dice = draw(st.lists(st.integers(1, 6), min_size=2, max_size=2))
        members.append((('"dice"', "dice"), (json.dumps(dice), dice)))
    if kind in ("bank", "kick") and draw(st.booleans()):
        player = draw(st.sampled_from(player_ids))
        members.append((('"player_id"', "player_id"), (json.dumps(player), player)))
    return draw(objects(st.permutations(members)))


@st.composite
def deep(draw: st.DrawFn) -> Doc:
    """Nesting up to the frame limit, inside a command with an id, or alone."""
    if draw(st.booleans()):
        depth = draw(st.integers(1, FRAME_LIMIT // 2))
        return "[" * depth + "]" * depth, ["a list, not an object"]
    command_id = "deep-roll"
    head = '{"type": "roll", "id": "' + command_id + '", "dice": '
    depth = draw(st.integers(1, (FRAME_LIMIT - len(head) - 1) // 2))
    inner: Any = []
    for _ in range(depth - 1):
        inner = [inner]
    return head + "[" * depth + "]" * depth + "}", {"type": "roll", "id": command_id, "dice": inner}


@st.composite
def broken(draw: st.DrawFn) -> Message:
    """Not JSON, or not valid Unicode: no answer may carry an id."""
    command_id = "bad-json"
    good = '{"type": "bank", "id": "' + command_id + '"'
    text = draw(
        st.sampled_from(
            [
                good + ', "x": NaN}',
                good + ', "x": Infinity}',
                good + ', "x": -Infinity}',
                good + ', "x": "\\ud800"}',  # an escaped lone surrogate
                good + ', "x": "\\udc00\\ud800"}',  # a pair the wrong way round
                '{"type": "bank", "id": "\\udfff"}',
                good + ",}",
                good,
                good + ', "x": [1,]}',
                good + ", 'x': 1}",
                good + ', "x": 01}',
                good + ', "x": "\x01"}',  # a raw control character
                good + ', "x": True}',
                "\u00a0" + good + "}",  # not JSON whitespace
                "",
                "NaN",
            ]
        )
    )
    return Message(text, NOT_JSON)


def messages(player_ids: list[str]) -> st.SearchStrategy[Message]:
    docs = st.one_of(
        wellformed(player_ids), wellformed(player_ids), commands(player_ids), documents(), deep()
    )
    json_messages = docs.map(lambda doc: Message(*doc))
    binary = st.binary(max_size=16).map(lambda b: Message(b, NOT_JSON))
    return st.one_of(json_messages, json_messages, broken(), binary).filter(fits)


def fits(message: Message) -> bool:
    text = message.text
    return len(text if isinstance(text, bytes) else text.encode()) <= FRAME_LIMIT


# -- the room under fire -------------------------------------------------------------
@dataclass(frozen=True)
class Setup:
    """How far the room's game got before the message: drawn, so failures replay."""

    rounds: int
    roll_entry: str
    started: bool
    rolls: list[tuple[int, int]]
    ann_banks: bool


setups = st.builds(
    Setup,
    rounds=st.integers(1, 3),
    roll_entry=st.sampled_from(["banker", "roller", "virtual"]),
    started=st.booleans(),
    rolls=st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), max_size=6),
    ann_banks=st.booleans(),
)


@dataclass
class Room:
    code: str
    http: httpx.AsyncClient
    clients: dict[str, Client]
    player_ids: list[str]

    async def state(self) -> dict[str, Any]:
        response = await self.http.get(f"/api/rooms/{self.code}")
        assert response.status_code == 200
        state: dict[str, Any] = response.json()["state"]
        for player in state["players"]:
            del player["connected"]  # presence is not a room event
        return state

    async def log(self) -> list[dict[str, Any]]:
        response = await self.http.get(f"/api/rooms/{self.code}/log")
        assert response.status_code == 200
        events: list[dict[str, Any]] = response.json()["events"]
        return events

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()
            OPEN.remove(client)


async def open_room(server: ServerProcess, http: httpx.AsyncClient, setup: Setup) -> Room:
    """Ann has a phone; Bob has none (so the banker may kick him without closing a socket)."""
    table = Table(server.base_url, rounds=setup.rounds, roll_entry=setup.roll_entry)
    ann, bob = table.join("Ann"), table.join("Bob")
    clients = {
        "banker": await Client.connect(server.ws_url, table.code, table.banker_token),
        "player": await Client.connect(server.ws_url, table.code, table.players["Ann"][1]),
        "spectator": await Client.connect(server.ws_url, table.code),
    }
    room = Room(table.code, http, clients, [ann, bob])
    if setup.started:
        await clients["banker"].ok(type="start")
        for roll_number, dice in enumerate(setup.rolls):
            await clients["banker"].command(type="roll", dice=list(dice))  # game_over is fine
            if setup.ann_banks and roll_number == 0:
                await clients["player"].command(type="bank")
    return room


ANSWERS = ("ack", "error", "pong")


@settings(max_examples=150, deadline=None)  # ~15 s alone; a busy machine doubles it
@given(
    setup=setups,
    role=st.sampled_from(["banker", "player", "spectator"]),
    data=st.data(),
)
async def test_any_message_from_any_role_is_answered_once_and_changes_only_what_it_may(
    server: ServerProcess, setup: Setup, role: str, data: st.DataObject
) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=5) as http:
        room = await open_room(server, http, setup)
        try:
            message = data.draw(messages(room.player_ids[1:] + ["nobody", ""]), label="message")
            await send_and_check(room, room.clients[role], role, message)
        finally:
            await room.close()


async def send_and_check(room: Room, client: Client, role: str, message: Message) -> None:
    before = await room.state()
    mark = len(client.messages)

    await client.ws.send(message.text)
    answer = await client.wait_for(lambda m: m.get("type") in ANSWERS, start=mark)
    fence = await client.command(type="ping")  # everything about the message came before it
    answers = [m for m in client.messages[mark:] if m.get("type") in ANSWERS]
    assert answers[-1] is fence and answers[:-1] == [answer], f"not exactly one answer: {answers}"

    event(f"{role}: {answer['type']} {answer.get('code', '')}".strip())
    assert answer.get("id") == message.expected_id(), answer
    if message.is_valid_ping():
        assert answer["type"] == "pong"
    else:
        assert answer["type"] in ("ack", "error"), answer
    if answer["type"] == "error":
        assert answer["code"] in CODES and answer["message"], answer
    value = message.value
    if not isinstance(value, dict) or value.get("type") not in COMMANDS:
        assert answer["type"] == "error" and answer["code"] == "bad_message", answer
    if role == "spectator":
        assert answer["type"] != "ack", answer

    after = await room.state()
    if answer["type"] == "ack":  # a new event, or a retried id answered with its old seq
        assert after == before or after["seq"] == before["seq"] + 1 == answer["seq"]
        assert answer["seq"] <= after["seq"]
    else:
        assert after == before, "an error or a pong changed the room"
    events = await room.log()
    assert verify(events) and events[-1]["seq"] == after["seq"]
    assert (await room.http.get("/healthz")).status_code == 200
    assert not any(c.closed.is_set() for c in room.clients.values()), "a socket was closed"
