"""One room's authoritative record, applied one envelope at a time (no I/O, no asyncio).

The actor feeds it envelopes in arrival order and persists what it returns; the same
class restores a room from its snapshot and log after a restart or a takeover.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.bus.base import Frame
from app.rooms.eventlog import GENESIS, make_entry
from app.rooms.timeline import Timeline
from app.rules.base import Actor, Dice, Event, RuleError, Rules

Envelope = dict[str, Any]


@dataclass(slots=True)
class Outcome:
    """What one envelope did: the answer for its sender, new log entries, frames to publish."""

    reply: bytes | None = None
    entries: list[dict[str, Any]] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)


def ack(command_id: str | None, seq: int) -> bytes:
    return orjson.dumps({"type": "ack", "id": command_id, "seq": seq})


def refusal(command_id: str | None, code: str, message: str) -> bytes:
    return orjson.dumps({"type": "error", "id": command_id, "code": code, "message": message})


class Room:
    def __init__(
        self,
        code: str,
        timeline: Timeline[Any],
        *,
        seq: int,
        last_hash: str,
        tokens: dict[str, str],
        accepted: dict[str, OrderedDict[str, int]],
        presence: dict[str, dict[str, int]],
        created_at: int,
        updated_at: int,
        dedupe_limit: int,
    ) -> None:
        self.code = code
        self.timeline = timeline
        self.rules: Rules[Any] = timeline.rules
        self.seq = seq
        self.last_hash = last_hash
        self.tokens = tokens
        self.accepted = accepted
        self.presence = presence
        self.created_at = created_at
        self.updated_at = updated_at
        self.dedupe_limit = dedupe_limit
        self.view: dict[str, Any] = {}
        self._view_json = b""
        self.state_text = ""
        self._render()

    # -- construction ------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        code: str,
        rules: Rules[Any],
        options: Mapping[str, Any],
        banker_hash: str,
        now: int,
        dedupe_limit: int,
    ) -> tuple[Room, dict[str, Any]]:
        """A new room and its `create` entry (seq 1); raises RuleError on bad options."""
        data = {"game": rules.name, **options}
        timeline = Timeline(rules, data)
        entry = make_entry(GENESIS, 1, now, "create", "banker", data)
        room = cls(
            code,
            timeline,
            seq=1,
            last_hash=entry["hash"],
            tokens={banker_hash: "banker"},
            accepted={},
            presence={},
            created_at=now,
            updated_at=now,
            dedupe_limit=dedupe_limit,
        )
        return room, entry

    @classmethod
    def restore(
        cls,
        rules: Rules[Any],
        snapshot: Mapping[str, Any],
        entries: list[dict[str, Any]],
        dedupe_limit: int,
    ) -> Room:
        """Rebuild from the persisted snapshot and the log it belongs to."""
        timeline = Timeline.replay(rules, entries)
        return cls(
            snapshot["code"],
            timeline,
            seq=snapshot["seq"],
            last_hash=snapshot["hash"],
            tokens=dict(snapshot["tokens"]),
            accepted={p: OrderedDict(pairs) for p, pairs in snapshot["accepted"].items()},
            presence={p: dict(nodes) for p, nodes in snapshot["presence"].items()},
            created_at=snapshot["created_at"],
            updated_at=snapshot["updated_at"],
            dedupe_limit=dedupe_limit,
        )

    def snapshot(self) -> bytes:
        return orjson.dumps(
            {
                "code": self.code,
                "seq": self.seq,
                "hash": self.last_hash,
                "tokens": self.tokens,
                "accepted": self.accepted,  # {principal: {id: seq}}, oldest first
                "presence": self.presence,
                "created_at": self.created_at,
                "updated_at": self.updated_at,
                "state": orjson.Fragment(self._view_json),  # encoded once, in _render
            }
        )

    # -- reading ---------------------------------------------------------------------
    @property
    def status(self) -> str:
        return str(self.view["status"])

    def connected(self, player_id: str) -> bool:
        """Counts of zero are deleted, so any count left is a connection."""
        return bool(self.presence.get(player_id))

    def online(self) -> set[str]:
        return {pid for pid, nodes in self.presence.items() if nodes}

    def any_player_connected(self) -> bool:
        return any(self.presence.values())

    def state_frame(self) -> Frame:
        return Frame("state", self.seq, self.state_text)

    # -- applying --------------------------------------------------------------------
    def handle(self, envelope: Envelope, now: int, chance: Dice) -> Outcome:
        if envelope["k"] == "presence":
            return self._presence(envelope["node"], envelope["pid"], envelope["delta"], now)
        if envelope["k"] == "drop_node":  # a dead process's sockets (rooms/watcher.py)
            return self.drop_node(envelope["node"], now)
        return self._command(envelope, now, chance)

    def _command(self, envelope: Envelope, now: int, chance: Dice) -> Outcome:
        actor = Actor(envelope["role"], envelope.get("pid"))
        command: dict[str, Any] = envelope["cmd"]
        command_id: str | None = envelope.get("id")
        seen = self.accepted.get(actor.by)
        if command_id is not None and seen is not None and command_id in seen:
            return Outcome(reply=ack(command_id, seen[command_id]))
        try:
            event = self._decide(actor, command, chance)
        except RuleError as error:
            return Outcome(reply=refusal(command_id, error.code, error.message))

        self.seq += 1
        if event.type == "undo":
            self.timeline.undo(event.data["undone_seq"])
        else:
            self.timeline.apply(event, self.seq)
        entry = make_entry(self.last_hash, self.seq, now, event.type, actor.by, event.data)
        self.last_hash = entry["hash"]
        self.updated_at = now
        outcome = Outcome(reply=ack(command_id, self.seq), entries=[entry])
        if event.type == "join":
            self.tokens[envelope["th"]] = event.data["player_id"]
        elif event.type == "kick":
            self._forget(event.data["player_id"])
            outcome.frames.append(Frame("kick", self.seq, event.data["player_id"]))
        if command_id is not None:
            self._remember(actor.by, command_id)
        self._render()
        outcome.frames.insert(0, self.state_frame())
        return outcome

    def _decide(self, actor: Actor, command: Mapping[str, Any], chance: Dice) -> Event:
        if command["type"] != "undo":
            return self.rules.decide(self.timeline.state, actor, command, chance)
        if actor.role != "banker":
            raise RuleError("not_allowed", "Only the banker can undo.")
        undone = self.timeline.last_undoable()
        if undone is None:
            raise RuleError("nothing_to_undo", "There is no roll to take back.")
        return Event("undo", {"undone_seq": undone})

    def _remember(self, principal: str, command_id: str) -> None:
        ids = self.accepted.setdefault(principal, OrderedDict())
        ids[command_id] = self.seq
        while len(ids) > self.dedupe_limit:
            ids.popitem(last=False)

    def _forget(self, player_id: str) -> None:
        """A kicked player's token stops working and its presence is dropped."""
        self.tokens = {h: p for h, p in self.tokens.items() if p != player_id}
        self.presence.pop(player_id, None)
        self.accepted.pop(player_id, None)

    def _presence(self, node: str, player_id: str, delta: int, now: int) -> Outcome:
        if player_id not in self.rules.player_ids(self.timeline.state):
            return Outcome()
        before = self.online()
        nodes = self.presence.setdefault(player_id, {})
        nodes[node] = max(0, nodes.get(node, 0) + delta)
        if nodes[node] == 0:
            del nodes[node]
        return self._presence_outcome(before, now)

    def drop_node(self, node: str, now: int) -> Outcome:
        """Forget the connections of a process that died (their phones reconnect elsewhere)."""
        before = self.online()
        for nodes in self.presence.values():
            nodes.pop(node, None)
        return self._presence_outcome(before, now)

    def _presence_outcome(self, before: set[str], now: int) -> Outcome:
        """A `presence` frame when someone's connected flag changed; nothing otherwise."""
        if self.online() == before:
            return Outcome()
        self.updated_at = now
        self._render()
        return Outcome(frames=[Frame("presence", self.seq, self.presence_text())])

    # -- encoding (once per change) -----------------------------------------------------
    def presence_text(self) -> str:
        connected = {pid: self.connected(pid) for pid in self.rules.player_ids(self.timeline.state)}
        return orjson.dumps({"type": "presence", "connected": connected}).decode()

    def _render(self) -> None:
        view = {"code": self.code, **self.rules.view(self.timeline.state), "seq": self.seq}
        for player in view["players"]:
            player["connected"] = self.connected(player["id"])
        self.view = view
        self._view_json = orjson.dumps(view)
        self.state_text = '{"type":"state","state":' + self._view_json.decode() + "}"
