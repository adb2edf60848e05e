"""Every send is answered exactly once, whatever breaks: pub/sub, Redis, a room's owner.

Clients on sockets that stay open keep sending commands with ids and re-send the
unanswered ones with the same id, as a phone does, while the test kills the room
owner (kill -9), Redis's pub/sub connections, and then Redis itself (AOF). Then each
send has had exactly one answer, and the log holds each acknowledged id's event once,
at the seq its acks carry.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.client import Client, Message, Table
from tests.cluster.conftest import Cluster, poll, verify_chain

RESEND_AFTER = 1.5  # a client re-sends an unanswered command this long after sending it
ID_LIMIT = 60.0  # one id must be settled (acked, or refused other than `unavailable`) by then
ROOMS = 3


@dataclass
class Sender:
    """One socket's loop: a fresh id per command, re-sent with the same id until settled."""

    name: str
    client: Client
    command: Callable[[], dict[str, Any]]
    sent: Counter[str] = field(default_factory=Counter)
    settled: int = 0

    async def run(self, stop: asyncio.Event) -> None:
        number = 0
        while not stop.is_set():
            number += 1
            await self.settle(f"{self.name}-{number}")
            self.settled += 1
            await asyncio.sleep(0.05)  # pacing: a few commands a second, like a table

    async def settle(self, command_id: str) -> None:
        deadline = time.monotonic() + ID_LIMIT
        while True:
            assert time.monotonic() < deadline, f"{command_id} never settled"
            mark = len(self.client.messages)
            self.sent[command_id] += 1
            await self.client.send({**self.command(), "id": command_id})
            try:
                answer = await self.client.wait_for(
                    lambda m: is_answer(m) and m["id"] == command_id, RESEND_AFTER, start=mark
                )
            except TimeoutError:
                continue  # unanswered: re-send with the same id
            if answer["type"] == "ack" or answer["code"] != "unavailable":
                return
            await asyncio.sleep(0.2)  # pacing the retry the error asks for

    def answers(self) -> Counter[str]:
        mine = (m["id"] for m in self.client.messages if is_answer(m))
        return Counter(i for i in mine if i.startswith(self.name + "-"))

    def acked(self) -> dict[str, set[int]]:
        seqs: dict[str, set[int]] = {}
        for message in self.client.messages:
            if message.get("type") == "ack" and message.get("id") in self.sent:
                seqs.setdefault(message["id"], set()).add(message["seq"])
        return seqs


def is_answer(message: Message) -> bool:
    return message.get("type") in ("ack", "error") and message.get("id") is not None


async def progress(senders: list[Sender], more: int, what: str, timeout: float = 30) -> None:
    """Every socket settles `more` further commands (bounded): play goes on everywhere."""
    goal = {sender.name: sender.settled + more for sender in senders}
    deadline = time.monotonic() + timeout
    while any(sender.settled < goal[sender.name] for sender in senders):
        assert time.monotonic() < deadline, f"no progress {what}"
        await asyncio.sleep(0.05)


def ready(cluster: Cluster, index: int) -> int:
    return httpx.get(f"{cluster.servers[index].base_url}/readyz", timeout=3).status_code


async def test_every_send_gets_exactly_one_answer_through_every_fault(
    make_cluster: Callable[..., Cluster],
) -> None:
    cluster = make_cluster(3, aof=True)
    owner, first, second = cluster.servers
    tables, senders = [], []
    for index in range(ROOMS):  # every room owned by `owner`; every socket elsewhere
        table = Table(owner.base_url, rounds=100)
        table.join("Ann")
        table.join("Bob")  # never banks: the rounds never end, rolls are always accepted
        near, far = (first, second) if index % 2 == 0 else (second, first)
        banker = await Client.connect(near.ws_url, table.code, table.banker_token)
        ann = await Client.connect(far.ws_url, table.code, table.players["Ann"][1])
        await banker.ok(type="start")
        tables.append(table)
        senders.append(Sender(f"banker{index}", banker, lambda: {"type": "roll", "dice": [2, 3]}))
        senders.append(Sender(f"ann{index}", ann, lambda: {"type": "bank"}))
    assert cluster.owners() == [0]
    stop = asyncio.Event()
    loops = [asyncio.create_task(sender.run(stop)) for sender in senders]
    try:
        await progress(senders, 3, "before the faults")

        owner.kill()  # (c) kill -9 of every room's owner, mid-play
        await progress(senders, 5, "after the owner's kill -9")
        for _ in range(2):  # (a) every pub/sub connection dropped
            cluster.redis.command("CLIENT", "KILL", "TYPE", "pubsub")
            await progress(senders, 5, "after the pub/sub connections were killed")
        cluster.redis.kill()  # (b) Redis restarts (AOF, fsync always)
        poll(lambda: ready(cluster, 1) == 503, 10, "the outage to be noticed")
        cluster.redis.start()
        await progress(senders, 5, "after Redis restarted")
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*loops), ID_LIMIT + 10)

    for sender in senders:  # each send its own answer: none lost ...
        await until_answered(sender)
    await asyncio.sleep(RESEND_AFTER)  # a doubled answer would have arrived by now
    for sender in senders:  # ... and none doubled; the sockets stayed open throughout
        assert sender.answers() == sender.sent, sender.name
        assert not sender.client.closed.is_set(), sender.name
    resent = sum(n - 1 for sender in senders for n in sender.sent.values())
    print(f"\n{sum(s.settled for s in senders)} commands, {resent} re-sends, all answered once")

    for index, table in enumerate(tables):
        table.base_url = first.base_url
        events = table.log()
        verify_chain(events)
        for sender, kind in ((senders[2 * index], "roll"), (senders[2 * index + 1], "bank")):
            acked = sender.acked()
            assert all(len(seqs) == 1 for seqs in acked.values()), "one seq per id"
            seqs = [seq for (seq,) in acked.values()]
            logged = [event["seq"] for event in events if event["type"] == kind]
            assert sorted(seqs) == logged, f"{sender.name}: each acked id's event once"


async def until_answered(sender: Sender, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while sender.answers() != sender.sent:
        missing = {i: n for i, n in sender.sent.items() if sender.answers()[i] < n}
        assert time.monotonic() < deadline, f"{sender.name}: unanswered sends {missing}"
        await asyncio.sleep(0.05)


async def test_each_duplicate_send_of_one_id_on_one_socket_gets_its_own_answer(
    make_cluster,
) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(2)
    owner, other = cluster.servers
    table = Table(owner.base_url, rounds=10)
    table.join("Ann")
    banker = await Client.connect(other.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    mark = len(banker.messages)
    for _ in range(3):  # at once: the second and third arrive before the first is answered
        await banker.send({"type": "roll", "dice": [2, 3], "id": "same"})
    await banker.wait_for(lambda m: len(answers_to(banker, "same", mark)) == 3)
    answers = answers_to(banker, "same", mark)
    assert [a["type"] for a in answers] == ["ack"] * 3
    assert len({a["seq"] for a in answers}) == 1, "applied once, acked three times"
    await asyncio.sleep(RESEND_AFTER)  # a fourth answer would have come by now
    assert len(answers_to(banker, "same", mark)) == 3
    assert [e["seq"] for e in table.log() if e["type"] == "roll"] == [answers[0]["seq"]]


def answers_to(client: Client, command_id: str, start: int) -> list[Message]:
    return [m for m in client.messages[start:] if is_answer(m) and m["id"] == command_id]


async def test_a_command_lost_from_the_inbox_is_submitted_again_and_answered_once(
    make_cluster,
) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(2)
    stalled, other = cluster.servers
    table = Table(stalled.base_url, rounds=10)
    table.join("Ann")
    banker = await Client.connect(other.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    inbox = f"bankit:{{{table.code}}}:cmds"
    cluster.stop(0)  # the owner stalls: the command waits in the inbox ...
    try:
        mark = len(banker.messages)
        started = time.monotonic()
        await banker.send({"type": "roll", "dice": [4, 4], "id": "lost"})
        queued = lambda: int(cluster.redis.command("XLEN", inbox)[1:]) == 2  # noqa: E731
        poll(queued, 5, "the command queued after the last one applied (the stream keeps it)")
        cluster.redis.command("DEL", inbox)  # ... and is lost (as on a failover to a stale replica)
        answer = await banker.wait_for(lambda m: is_answer(m) and m["id"] == "lost", 15, mark)
    finally:
        cluster.resume(0)
    assert answer["type"] == "ack", answer
    print(f"\nthe lost command was answered after {time.monotonic() - started:.2f} s")
    assert "submitting it again" in other.log()
    table.base_url = other.base_url
    rolls = [e for e in table.log() if e["type"] == "roll"]
    assert [(e["seq"], e["data"]["dice"]) for e in rolls] == [(answer["seq"], [4, 4])]
    await asyncio.sleep(RESEND_AFTER)
    assert len(answers_to(banker, "lost", mark)) == 1, "answered once"


async def test_an_answer_lost_everywhere_is_found_in_the_rooms_accepted_ids(
    make_cluster: Callable[..., Cluster],
) -> None:
    cluster = make_cluster(2, BANKIT_LEASE_SECONDS="10")  # no takeover while stopped
    owner, sender = cluster.servers
    table = Table(owner.base_url, rounds=10)
    table.join("Ann")
    banker = await Client.connect(sender.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    answers = f"bankit:{{{table.code}}}:answers"
    kept = lambda: int(cluster.redis.command("XLEN", answers)[1:])  # noqa: E731
    before = kept()  # the join's answer and the start's
    cluster.stop(0)  # the owner stalls, so the roll waits ...
    mark = len(banker.messages)
    await banker.send({"type": "roll", "dice": [4, 4], "id": "found"})
    queued = lambda: int(cluster.redis.command("XLEN", f"bankit:{{{table.code}}}:cmds")[1:]) == 2  # noqa: E731
    poll(queued, 5, "the roll queued")
    cluster.stop(1)  # ... the sender stalls, and loses its pub/sub connection
    cluster.redis.command("CLIENT", "KILL", "TYPE", "pubsub")
    cluster.resume(0)  # the owner commits: the answer is published to nobody ...
    poll(lambda: kept() == before + 1, 5, "the roll's answer kept")
    cluster.redis.command("DEL", answers)  # ... and its durable copy is gone (trimmed)
    cluster.resume(1)
    resumed = time.monotonic()
    answer = await banker.wait_for(lambda m: is_answer(m) and m["id"] == "found", 10, mark)
    assert answer["type"] == "ack", answer
    assert time.monotonic() - resumed < 4, "found before any re-submission (5 s)"
    assert "answered from the accepted ids" in sender.log()
    rolls = [e for e in table.log() if e["type"] == "roll"]
    assert [(e["seq"], e["data"]["dice"]) for e in rolls] == [(answer["seq"], [4, 4])]
    await asyncio.sleep(RESEND_AFTER)
    assert len(answers_to(banker, "found", mark)) == 1, "answered once"
