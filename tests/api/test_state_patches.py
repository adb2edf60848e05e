"""The states-as-patches extension (docs/protocol.md) over real sockets: a socket that
asks for patches rebuilds every state of a 20-round game from them, small ones; one
that does not ask gets whole states; a client whose patches went wrong asks for the
whole state (`sync`) and goes on from it."""

from __future__ import annotations

import copy
import json
import statistics
from typing import Any

from websockets.asyncio.client import connect

from tests.client import Client, Message, Table
from tests.conftest import ServerProcess

PLAYERS = 8


async def patched(server: ServerProcess, code: str, token: str | None = None) -> Client:
    query = "?patches=1" + (f"&token={token}" if token else "")
    return Client(await connect(f"{server.ws_url}/ws/rooms/{code}{query}", max_size=None))


def wire_bytes(message: Message) -> int:
    """The message's length as the server writes it (compact JSON, UTF-8)."""
    return len(json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode())


def apply(doc: Any, ops: list[list[Any]]) -> Any:
    """`ops` (RFC 6902 `add`, `remove`, `replace` as `[op, path, value]`) applied to a
    copy of `doc`, as the pages do (static/js/shell/patch.js); KeyError or IndexError
    when an operation does not fit."""
    doc = copy.deepcopy(doc)
    for kind, path, *value in ops:
        if path == "":
            doc = copy.deepcopy(value[0])
            continue
        *parents, last = [t.replace("~1", "/").replace("~0", "~") for t in path.split("/")[1:]]
        target = doc
        for token in parents:
            target = target[int(token)] if isinstance(target, list) else target[token]
        if isinstance(target, list):
            index = len(target) if last == "-" else int(last)
            if kind == "add":
                if index > len(target):
                    raise IndexError(path)
                target.insert(index, copy.deepcopy(value[0]))
            elif kind == "remove":
                del target[index]
            else:
                target[index] = copy.deepcopy(value[0])
        elif kind == "remove":
            del target[last]
        else:
            if kind == "replace" and last not in target:
                raise KeyError(path)
            target[last] = copy.deepcopy(value[0])
    return doc


def rebuilt(messages: list[Message]) -> list[Message]:
    """Every state a patch socket had, in order, from its welcome, states and patches."""
    states: list[Message] = []
    for message in messages:
        if message["type"] in ("welcome", "state"):
            states.append(message["state"])
        elif message["type"] == "patch":
            assert states and message["base"] == states[-1]["seq"], "a patch fits its base"
            state = apply(states[-1], message["ops"])
            assert state["seq"] == message["seq"]
            states.append(state)
    return states


async def play_a_game(table: Table, banker: Client, rounds: int) -> int:
    players = [table.join(f"P{n}") for n in range(1, PLAYERS + 1)]
    await banker.ok(type="start")
    seq = 0
    for round_ in range(rounds):
        for dice in ([1, 2], [2, 3], [4, 5]):
            await banker.ok(type="roll", dice=dice)
        for n in range(4):
            player = players[(round_ + n) % PLAYERS]
            await banker.ok(type="bank", player_id=player)
        seq = await banker.ok(type="roll", dice=[3, 4])  # the 7 ends the round
    return seq


async def test_a_patch_socket_rebuilds_every_state_of_a_game_from_small_patches(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url, rounds=20)
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    watcher = await patched(server, table.code)
    await watcher.wait_for(lambda m: m["type"] == "welcome")
    last = await play_a_game(table, banker, 20)
    await banker.state_at_least(last)
    await watcher.wait_for(lambda m: m.get("seq") == last or m.get("state", {}).get("seq") == last)

    # Welcomes aside (a welcome carries the latest presence at its seq), every state the
    # patch socket had is the state every other socket had at that seq.
    whole = {state["seq"]: state for state in banker.states()[1:]}
    mine = rebuilt(watcher.messages)
    assert mine[-1]["status"] == "finished" and mine[-1]["seq"] == last
    assert len(mine) == len(whole) + 1
    for state in mine[1:]:
        assert state == whole[state["seq"]], f"the state at seq {state['seq']} differs"
    assert not any(m["type"] == "patch" for m in banker.messages), "whole states unless asked"

    sent = [m for m in watcher.messages if m["type"] in ("state", "patch")]
    assert sum(m["type"] == "patch" for m in sent) >= len(sent) - 2, "patches, all but the first"
    median = statistics.median(wire_bytes(m) for m in sent)
    whole_median = statistics.median(wire_bytes(m) for m in banker.messages if m["type"] == "state")
    assert median < 400, f"the median state message is {median} bytes"
    assert whole_median > 4 * median, (median, whole_median)


async def test_a_client_whose_patches_went_wrong_gets_the_whole_state_and_goes_on(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url, rounds=3)
    table.join("Ann")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    watcher = await patched(server, table.code)
    await watcher.wait_for(lambda m: m["type"] == "welcome")
    await banker.ok(type="start")
    seq = await banker.ok(type="roll", dice=[1, 2])
    await watcher.wait_for(lambda m: m.get("seq") == seq)  # a patch, which we say we lost

    mark = len(watcher.messages)
    await watcher.send({"type": "sync"})
    synced = await watcher.wait_for(lambda m: m["type"] == "state", start=mark)
    assert synced["state"] == await banker.state_at_least(seq)

    # The next state comes whole (the server patches only from a state it published),
    # and the ones after it as patches again.
    seq = await banker.ok(type="roll", dice=[2, 2])
    after = watcher.messages.index(synced) + 1
    again = await watcher.wait_for(lambda m: m["type"] == "state", start=after)
    assert again["state"] == await banker.state_at_least(seq)
    seq = await banker.ok(type="roll", dice=[6, 2])
    patch = await watcher.wait_for(lambda m: m["type"] == "patch", start=mark)
    assert patch["base"] == again["state"]["seq"] and patch["seq"] == seq
    assert apply(again["state"], patch["ops"]) == await banker.state_at_least(seq)


async def test_patches_start_from_a_published_state_not_from_a_welcome(
    server: ServerProcess,
) -> None:
    """A welcome carries the room's latest record, whose presence may be newer than the
    last published state at the same seq: patching from it would keep a stale flag."""
    table = Table(server.base_url, rounds=3)
    table.join("Ann")
    _, ann_token = table.players["Ann"]
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    early = await patched(server, table.code)  # so the server keeps states to patch from
    await early.wait_for(lambda m: m["type"] == "welcome")
    await banker.ok(type="start")
    seq = await banker.ok(type="roll", dice=[1, 2])
    await early.wait_for(lambda m: m.get("seq") == seq)
    ann = await Client.connect(server.ws_url, table.code, ann_token)
    await banker.wait_for(lambda m: m["type"] == "presence" and any(m["connected"].values()))
    watcher = await patched(server, table.code)
    welcome = await watcher.wait_for(lambda m: m["type"] == "welcome")
    assert welcome["state"]["seq"] == seq and welcome["state"]["players"][0]["connected"]
    await ann.close()
    await watcher.wait_for(lambda m: m["type"] == "presence" and not any(m["connected"].values()))

    for dice in ([2, 3], [4, 5], [6, 6]):
        seq = await banker.ok(type="roll", dice=dice)
        await watcher.wait_for(
            lambda m, seq=seq: m.get("seq", m.get("state", {}).get("seq")) == seq
        )
    kinds = [m["type"] for m in watcher.messages if m["type"] in ("state", "patch")]
    assert kinds == ["state", "patch", "patch"], "whole once after the welcome, then patches"
    mine = rebuilt(watcher.messages)[-1]
    assert mine == await banker.state_at_least(seq)
    assert not mine["players"][0]["connected"]
