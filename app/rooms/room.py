"""One room's authoritative record, applied one envelope at a time (no I/O, no asyncio).

The actor feeds it envelopes in arrival order and persists what it returns; the same
class restores a room from its snapshot and log after a restart or a takeover. It
knows no game: the rules say who may undo, whose seat an event opens or closes, and
what the view looks like.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.bus.base import Frame
from app.games.registry import BadCommand, Game
from app.games.seam import (
    SYSTEM,
    Chance,
    Connected,
    Effect,
    Event,
    Followers,
    RuleError,
    Rules,
    Seating,
    Sender,
    Undo,
    ViewChanges,
)
from app.rooms import outgoing, succession
from app.rooms.chance import SECRET_CHANCE, FairDice, client_seed
from app.rooms.envelope import (
    CommandEnvelope,
    DropNodeEnvelope,
    EffectDoneEnvelope,
    Envelope,
    PresenceEnvelope,
)
from app.rooms.eventlog import GENESIS, make_entry
from app.rooms.policy import DEFAULT_POLICY, RoomPolicy
from app.rooms.rendering import Rendering, View
from app.rooms.succession import Succession
from app.rooms.timeline import Barred, Timeline

LOG_FULL = "This game's log is full: it takes no more moves. Start a new game."
REPORT = "report"  # the effect that tells the parent room this room's status (`_report`)


@dataclass(slots=True)
class Outcome:
    """What one envelope did: the sender's answer, log entries, frames, effects to run."""

    reply: bytes | None = None
    entries: list[dict[str, Any]] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)


class Room:
    def __init__(
        self,
        code: str,
        game: Game,
        timeline: Timeline[Any],
        *,
        seq: int,
        last_hash: str,
        tokens: dict[str, str],
        accepted: dict[str, OrderedDict[str, int]],
        presence: dict[str, dict[str, int]],
        effects: dict[str, Effect],
        created_at: int,
        updated_at: int,
        dedupe_limit: int,
        origin: str | None = None,
        parent: str | None = None,
        roles: Succession | None = None,
        fair: FairDice | None = None,
        policy: RoomPolicy = DEFAULT_POLICY,
    ) -> None:
        self.code = code
        self.policy = policy
        self.fair = fair  # the committed dice of a room that draws (docs/fair-dice.md)
        self.game = game
        self.timeline = timeline
        self.rules: Rules[Any] = game.rules
        self.seq = seq
        self.last_hash = last_hash
        self.tokens = tokens  # token hash -> principal: the creator's role, or a player id
        self.accepted = accepted
        self.presence = presence
        self.effects = effects  # not yet carried out, by id (kept in the snapshot)
        self.roles = roles or Succession()  # the host role's offer and votes (hand-over)
        self.origin = origin  # the effect that created this room, if one did
        self.parent = parent  # the room that created it, which hears its reports
        self._reported = self.rules.report(timeline.state) if parent else None
        self.created_at = created_at
        self.updated_at = updated_at
        self.dedupe_limit = dedupe_limit
        rules = self.rules  # do they say what an event changed in the view?
        self._parts = rules if isinstance(rules, ViewChanges) else None
        self._framed = False  # the current view is the view of the last state frame
        self._rendering = Rendering({})  # the current view, rendered when read
        self._rendered: tuple[View, Any] = ({}, None)  # the last view rendered, its state
        self._ops: list[Any] | None = None  # the patch from the last state frame's view
        self._handover: dict[str, Any] | None = None
        self._online: frozenset[str] | None = None
        self._nodes: frozenset[str] | None = None
        self._handover_of: tuple[Succession, bool, list[str]] | None = None  # its inputs
        self._render()

    # -- construction ------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        code: str,
        game: Game,
        options: Mapping[str, Any],
        creator_hashes: Sequence[str],
        now: int,
        dedupe_limit: int,
        origin: str | None = None,
        parent: str | None = None,
        policy: RoomPolicy = DEFAULT_POLICY,
    ) -> tuple[Room, dict[str, Any]]:
        """A new room and its `create` entry (seq 1); raises RuleError on bad options.

        `creator_hashes`: the tokens of its creator's principal (a banker, an organiser)."""
        data = {"game": game.name, **options}
        fair = FairDice.new() if game.draws(data) else None
        commit = {"dice_commit": fair.commit} if fair is not None else {}
        timeline = Timeline(game.rules, {**data, **commit})
        entry = make_entry(GENESIS, 1, now, "create", game.rules.creator, data, commit)
        room = cls(
            code,
            game,
            timeline,
            seq=1,
            last_hash=entry["hash"],
            tokens={token_hash: game.rules.creator for token_hash in creator_hashes},
            accepted={},
            presence={},
            effects={},
            created_at=now,
            updated_at=now,
            dedupe_limit=dedupe_limit,
            origin=origin,
            parent=parent,
            fair=fair,
            policy=policy,
        )
        return room, entry

    @classmethod
    def restore(
        cls,
        game: Game,
        snapshot: Mapping[str, Any],
        entries: list[dict[str, Any]],
        dedupe_limit: int,
        notes: Sequence[Mapping[str, Any]] = (),
        policy: RoomPolicy = DEFAULT_POLICY,
    ) -> Room:
        """Rebuild from the persisted snapshot and the log it belongs to; `notes`: one per
        entry logged after the snapshot (the last ones), see `_catch_up`."""
        timeline = Timeline.replay(game.rules, entries)
        roles = _restored_roles(game.rules, timeline.state, snapshot, entries)
        effects = {
            e["id"]: Effect(e["kind"], e["id"], e["data"]) for e in snapshot.get("effects", [])
        }
        room = cls(
            snapshot["code"],
            game,
            timeline,
            seq=snapshot["seq"],
            last_hash=snapshot["hash"],
            tokens=dict(snapshot["tokens"]),
            accepted={p: OrderedDict(pairs) for p, pairs in snapshot["accepted"].items()},
            presence={p: dict(nodes) for p, nodes in snapshot["presence"].items()},
            effects=effects,
            created_at=snapshot["created_at"],
            updated_at=snapshot["updated_at"],
            dedupe_limit=dedupe_limit,
            origin=snapshot.get("origin"),
            parent=snapshot.get("parent"),
            roles=roles,
            fair=FairDice.from_record(snapshot.get("fair")),
            policy=policy,
        )
        if notes:
            for entry, note in zip(entries[len(entries) - len(notes) :], notes, strict=True):
                room._catch_up(entry, note)
            room._render()
        return room

    def _catch_up(self, entry: Mapping[str, Any], note: Mapping[str, Any]) -> None:
        """Redo what an event logged after the snapshot did beside the game state (the
        timeline replays the whole log): as `_command` did, from the entry and its note
        (the command id, the tokens when they changed, the effects it stored)."""
        self.seq, self.last_hash = entry["seq"], entry["hash"]
        self.updated_at = max(self.updated_at, entry["at"])
        for player_id in self.rules.seating(Event(entry["type"], entry["data"])).unseated:
            self._forget(player_id)
        if "tokens" in note:  # the whole map, as notes written before the change were
            self.tokens = dict(note["tokens"])
        for token_hash in note.get("tokens_del", ()):
            self.tokens.pop(token_hash, None)
        self.tokens.update(note.get("tokens_set", {}))
        for e in note.get("effects", ()):
            self._store(Effect(e["kind"], e["id"], e["data"]))
        if note.get("id") is not None:
            self._remember(entry["by"], note["id"])
        if self.fair is not None:
            self.fair.catch_up(entry.get("fair", {}), note.get("fair_seed"))

    def snapshot(self, with_view: bool = True) -> bytes:
        """The room's record; without its view (`with_view` False) where nobody reads it
        from the store: `restore` rebuilds the state from the log, never from the view."""
        record: dict[str, Any] = {
            "code": self.code,
            "game": self.game.name,
            "creator": self.rules.creator,
            "seq": self.seq,
            "hash": self.last_hash,
            "tokens": self.tokens,
            "accepted": self.accepted,  # {principal: {id: seq}}, oldest first
            "presence": self.presence,
            "connected": self.connected_map(),
            "host_connected": self.connected(self.rules.creator),
            "roles": self.roles.record(),
            "effects": [
                {"kind": e.kind, "id": e.id, "data": e.data} for e in self.effects.values()
            ],
            "origin": self.origin,
            "parent": self.parent,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "finished": self.finished,  # the reaper's, for rooms it keeps on disk only
        }
        if self.fair is not None:
            record["fair"] = self.fair.record()  # the secret seed: never served
        if with_view:
            record["state"] = orjson.Fragment(self.view_json)  # encoded once
        return orjson.dumps(record)

    # -- reading ---------------------------------------------------------------------
    @property
    def view(self) -> View:
        """The room's view now (rendered when first read)."""
        return self._rendering.view

    @property
    def rendering(self) -> Rendering:
        """The view now, its JSON and its `state` message, each made when first read."""
        return self._rendering

    @property
    def view_json(self) -> bytes:
        """The view, encoded (the `state` of a record and of a frame)."""
        return self._rendering.json

    @property
    def state_text(self) -> str:
        return self._rendering.text

    @property
    def finished(self) -> bool:
        return self.rules.finished(self.timeline.state)

    def connected(self, player_id: str) -> bool:
        return _connected(player_id, self.online(), self.roles.holder, self.rules.creator)

    def _connected_now(self) -> Connected:
        """`connected` as it answers now, whatever comes later."""
        online, holder, creator = self.online(), self.roles.holder, self.rules.creator
        return lambda player_id: _connected(player_id, online, holder, creator)

    def connected_map(self) -> dict[str, bool]:
        return {pid: self.connected(pid) for pid in self.rules.player_ids(self.timeline.state)}

    def online(self) -> frozenset[str]:
        """Who has a socket here now (kept until presence changes: `_moved_presence`)."""
        if self._online is None:
            self._online = frozenset(pid for pid, nodes in self.presence.items() if nodes)
        return self._online

    def nodes(self) -> frozenset[str]:
        """The processes where a player's or the host's phone has a socket here (kept
        until presence changes)."""
        if self._nodes is None:
            self._nodes = frozenset(node for counts in self.presence.values() for node in counts)
        return self._nodes

    def _moved_presence(self) -> None:
        self._online = self._nodes = None

    def any_player_connected(self) -> bool:
        return any(self.presence.values())

    def state_frame(self) -> Frame:
        self._framed = True
        return Frame(outgoing.STATE, self.seq, self._rendering, self._ops)

    # -- applying --------------------------------------------------------------------
    def handle(self, envelope: Envelope, now: int, chance: Chance | None = None) -> Outcome:
        """`chance`: what a test scripts; None: the room's fair dice (or the OS's CSPRNG)."""
        match envelope:
            case CommandEnvelope():
                return self._command(envelope, now, chance)
            case PresenceEnvelope(node=node, pid=pid, delta=delta):
                return self._presence(node, pid, delta, now)
            case DropNodeEnvelope(node=node):
                return self.drop_node(node, now)
            case EffectDoneEnvelope(effect=effect_id):
                self.effects.pop(effect_id, None)
                return Outcome()
        raise TypeError(f"not an envelope: {envelope!r}")

    def _command(self, envelope: CommandEnvelope, now: int, chance: Chance | None) -> Outcome:
        sender = Sender(envelope.role, envelope.pid)
        command_id = envelope.id
        if envelope.auth is not None and self.tokens.get(envelope.auth) != sender.by:
            message = "This token no longer holds that role or seat (it was handed over)."
            return Outcome(reply=outgoing.refusal(command_id, "bad_token", message))
        if envelope.server and succession.command_type(envelope.cmd) is not None:
            return self._succession(envelope, sender, now)
        if self.seq >= self.policy.max_log_events:
            return Outcome(reply=outgoing.refusal(command_id, "log_full", LOG_FULL))
        try:  # a socket's text is read here, once: only the server may send its own commands
            read = self.game.internal if envelope.server else self.game.parse
            command = read(envelope.cmd)
        except BadCommand as bad:
            return Outcome(reply=outgoing.refusal(command_id, "bad_message", bad.message))
        seen = self.accepted.get(sender.by)
        if command_id is not None and seen is not None and command_id in seen:
            return Outcome(reply=outgoing.ack(command_id, seen[command_id]))
        fair = self.fair if chance is None else None
        if fair is not None:
            fair.begin()
        try:
            event = self._decide(sender, command, chance or fair or SECRET_CHANCE)
        except RuleError as error:
            if fair is not None:
                fair.cancel()
            return Outcome(reply=outgoing.refusal(command_id, error.code, error.message))

        seq = self.seq + 1  # raised only once the event applied: a failure leaves no gap
        seating = self.rules.seating(event)
        extra: dict[str, Any] = {}
        after = None  # the state after the event, when the fair dice evolved it already
        if fair is not None and event.type != "undo":
            extra, after = self._fair_extra(fair, envelope, seating, event, seq)
        before = self.timeline.state
        if event.type == "undo":
            self.timeline.undo(event.data["undone_seq"])
        elif extra:  # the rules read what the fair dice add as a replay of the log does
            logged = Event(event.type, {**event.data, **extra}, event.effects)
            self.timeline.apply(logged, seq, after)
        else:
            self.timeline.apply(event, seq, after)
        self.seq = seq
        entry = make_entry(self.last_hash, seq, now, event.type, sender.by, event.data, extra)
        self.last_hash = entry["hash"]
        self.updated_at = now
        outcome = Outcome(reply=outgoing.ack(command_id, seq), entries=[entry])
        if envelope.th is not None:
            for player_id in seating.seated:
                self.tokens[envelope.th] = player_id
        for player_id in seating.unseated:
            self._forget(player_id)
            outcome.frames.append(Frame(outgoing.KICK, seq, player_id))
        for effect in (*event.effects, *self._report()):
            stored = Effect(effect.kind, f"{self.code}.{seq}.{effect.id}", effect.data)
            self._store(stored)
            outcome.effects.append(stored)
        if command_id is not None:
            self._remember(sender.by, command_id)
        self._render(before)
        outcome.frames.insert(0, self.state_frame())
        return outcome

    def _fair_extra(
        self, fair: FairDice, envelope: CommandEnvelope, seating: Seating, event: Event, seq: int
    ) -> tuple[dict[str, Any], Any]:
        """What the fair dice log beside the event's data: its draws, the seed a joining
        phone sent, the seed revealed when it ends the game (docs/fair-dice.md); and the
        state after the event, evolved to see whether it ends the game (None: evolve it
        again, with the reveal). The rules read no other extra: the same state follows."""
        extra: dict[str, Any] = {}
        drawn = fair.take_drawn()
        if drawn:
            extra["drawn"] = drawn
        if envelope.server and seating.seated:
            seed = client_seed(orjson.loads(envelope.cmd))
            if seed is not None:
                fair.clients.append(seed)
                extra["client_seed"] = seed
        state = self.timeline.state
        if self.rules.finished(state):
            return extra, None
        after = self.rules.evolve(state, event, seq)
        if self.rules.finished(after):
            extra["dice_reveal"] = fair.reveal()
            return extra, None
        return extra, after

    def _succession(self, envelope: CommandEnvelope, sender: Sender, now: int) -> Outcome:
        """A hand-over command (app/rooms/succession.py): logged, then the tokens rebound;
        the rooms whose tokens follow this room's are told to rebind them too."""
        host, seated = self.rules.creator, self.rules.player_ids(self.timeline.state)
        command: dict[str, Any] = orjson.loads(envelope.cmd)
        seen = self.accepted.get(sender.by)
        if envelope.id is not None and seen is not None and envelope.id in seen:
            return Outcome(reply=outgoing.ack(envelope.id, seen[envelope.id]))
        revocation = command["type"] == "rebind" and bool(command.get("revoke"))
        if self.seq >= self.policy.max_log_events and not revocation:
            return Outcome(reply=outgoing.refusal(envelope.id, "log_full", LOG_FULL))
        revoked: list[str] = []
        event: Event | None
        try:
            if command["type"] == "rebind":
                event, revoked = self._rebind_command(sender, command)
            else:
                wait = self.policy.host_away_ms
                event = succession.decide(
                    self.roles, host, seated, sender, command, envelope.th, now, wait
                )
        except RuleError as error:
            return Outcome(reply=outgoing.refusal(envelope.id, error.code, error.message))
        if event is None:  # a rebind of tokens that open nothing here
            return Outcome(reply=outgoing.ack(envelope.id, self.seq))
        self.seq += 1
        entry = make_entry(self.last_hash, self.seq, now, event.type, sender.by, event.data)
        self.last_hash = entry["hash"]
        self.updated_at = now
        self.roles = self.roles.evolve(event.type, event.data, host)
        outcome = Outcome(reply=outgoing.ack(envelope.id, self.seq), entries=[entry])
        if event.type == "hand_over" and envelope.th is not None:
            revoked = self._rebind(event.data["principal"], envelope.th)
            self._tell_followers(event.data["principal"], revoked, envelope.th, outcome)
        if revoked:
            outcome.frames.append(Frame(outgoing.REVOKE, self.seq, " ".join(revoked)))
        if envelope.id is not None:
            self._remember(sender.by, envelope.id)
        self._render(self.timeline.state)
        outcome.frames.insert(0, self.state_frame())
        return outcome

    def _rebind(self, principal: str, token_hash: str) -> list[str]:
        """`principal` is held by `token_hash` alone from now on; the hashes it had are
        returned (their sockets close: app/api/hub.py)."""
        revoked = sorted(h for h, p in self.tokens.items() if p == principal)
        for old in revoked:
            del self.tokens[old]
        self.tokens[token_hash] = principal
        return revoked

    def _rebind_command(
        self, sender: Sender, command: Mapping[str, Any]
    ) -> tuple[Event | None, list[str]]:
        """The server's `rebind`: `revoke` these hashes and give their principal (or,
        `host`, the host's role) to `token`; with `keep`, the host's role is held by
        `keep` and `token` alone. The event, and the hashes revoked."""
        if sender.role != SYSTEM:
            raise RuleError("not_allowed", "Only the server rebinds tokens.")
        revoke, keep = set(command.get("revoke", ())), command.get("keep")
        principal: str | None = self.rules.creator
        if not command.get("host"):
            held = {self.tokens[h] for h in revoke if h in self.tokens}
            principal = held.pop() if len(held) == 1 else None
        seated = self.rules.player_ids(self.timeline.state)
        if principal is None or principal not in (self.rules.creator, *seated):
            return None, []
        revoked = sorted(
            h
            for h, p in self.tokens.items()
            if h in revoke or (keep is not None and p == principal and h not in keep)
        )
        for old in revoked:
            del self.tokens[old]
        for new in (*(keep or ()), command["token"]):
            self.tokens[new] = principal
        return Event("hand_over", {"principal": principal, "how": command["how"]}), revoked

    def _tell_followers(
        self, principal: str, revoked: list[str], token_hash: str, outcome: Outcome
    ) -> None:
        """The rooms this room made (a tournament's tables) rebind the same tokens."""
        if not revoked or not isinstance(self.rules, Followers):
            return
        host = principal == self.rules.creator
        command = {"type": "rebind", "how": "parent", "host": host, "revoke": revoked}
        for code in self.rules.followers(self.timeline.state, None if host else principal):
            data = {"code": code, "command": {**command, "token": token_hash}}
            effect = Effect("tell", f"{self.code}.{self.seq}.rebind.{code}", data)
            self._store(effect)
            outcome.effects.append(effect)

    def _decide(self, sender: Sender, command: Any, chance: Chance) -> Event:
        if not isinstance(command, Undo):
            return self.rules.decide(self.timeline.state, sender, command, chance)
        policy = self.rules.undo
        if sender.role not in policy.roles:
            raise RuleError("not_allowed", policy.not_allowed)
        try:
            undone = self.timeline.last_undoable()
        except Barred:
            raise RuleError(*policy.barred) from None
        if undone is None:
            raise RuleError("nothing_to_undo", policy.nothing_left)
        return Event("undo", {"undone_seq": undone})

    def _report(self) -> tuple[Effect, ...]:
        """Tell the parent room when what it hears of this room changed (undo too)."""
        if self.parent is None:
            return ()
        report = self.rules.report(self.timeline.state)
        if report is None or report == self._reported:
            return ()
        self._reported = report
        command = {"type": "report", "code": self.code, **report}
        return (Effect("tell", REPORT, {"code": self.parent, "command": command}),)

    def _store(self, effect: Effect) -> None:
        """Keep an effect until it is done. A report replaces any older one still to
        be told (its tell failed): a report is the room's whole status, and an older
        one told after it, by the next owner, would set the parent back."""
        if effect.id.endswith("." + REPORT):
            for stale in [i for i in self.effects if i.endswith("." + REPORT)]:
                del self.effects[stale]
        self.effects[effect.id] = effect

    def _remember(self, principal: str, command_id: str) -> None:
        ids = self.accepted.setdefault(principal, OrderedDict())
        ids[command_id] = self.seq
        while len(ids) > self.dedupe_limit:
            ids.popitem(last=False)

    def _forget(self, player_id: str) -> None:
        """An unseated player's token stops working and its presence is dropped."""
        self.tokens = {h: p for h, p in self.tokens.items() if p != player_id}
        self.roles = self.roles.unseat(player_id)
        self.presence.pop(player_id, None)
        self._moved_presence()
        self.accepted.pop(player_id, None)

    def _presence(self, node: str, player_id: str, delta: int, now: int) -> Outcome:
        """A player's sockets, or the host's (its `player_id` is the role: "banker")."""
        seated = self.rules.player_ids(self.timeline.state)
        if player_id not in seated and player_id != self.rules.creator:
            return Outcome()
        before = self.online()
        self._moved_presence()
        nodes = self.presence.setdefault(player_id, {})
        nodes[node] = max(0, nodes.get(node, 0) + delta)
        if nodes[node] == 0:
            del nodes[node]
        return self._presence_outcome(before, now)

    def drop_node(self, node: str, now: int) -> Outcome:
        """Forget the connections of a process that died (their phones reconnect elsewhere)."""
        before = self.online()
        self._moved_presence()
        for nodes in self.presence.values():
            nodes.pop(node, None)
        return self._presence_outcome(before, now)

    def _presence_outcome(self, before: frozenset[str], now: int) -> Outcome:
        """A `presence` frame when someone's connected flag changed; nothing otherwise.
        The host's leaving and coming back open and close the table's choice."""
        online, host = self.online(), self.rules.creator
        if online == before:
            return Outcome()
        seated = self.rules.player_ids(self.timeline.state)
        self.roles = self.roles.saw(online.intersection(seated))
        if host in before and host not in online:
            self.roles = self.roles.host_left(now, seated)
        elif host in online and host not in before:
            self.roles = self.roles.host_back()
        self.updated_at = now
        self._render()
        return Outcome(frames=[Frame(outgoing.PRESENCE, self.seq, self.presence_text())])

    # -- encoding (once per change) -----------------------------------------------------
    def presence_text(self) -> str:
        host = self.connected(self.rules.creator)
        return outgoing.presence_text(self.connected_map(), host, self._handover)

    def _render(self, before: Any = None) -> None:
        """`before`: the game's state before the event rendered now. When the rules make
        patches and the current view is the last state frame's, the next frame's patch
        is made from the two states (`view_patch`) and the view is rendered only when
        read, from the parts changed since the last view rendered (`view_changes`);
        otherwise the whole view is rendered now (the hub diffs it)."""
        state, parts = self.timeline.state, self._parts
        handover = self._handover_view(state)
        ops = None
        if before is not None and self._framed and parts is not None:
            ops = parts.view_patch(before, state, self.connected)
        if ops is None:
            view = self._whole_view(state, self.connected, handover, self.seq)
            self._rendering = Rendering(view)
            self._rendered = (view, state)
        else:
            if handover is not self._handover and handover != self._handover:
                ops.append(["replace", "/handover", handover])
            ops.append(["replace", "/seq", self.seq])
            self._rendering = self._later(state, handover)
        self._ops = ops
        self._handover = handover
        self._framed = False

    def _handover_view(self, state: Any) -> dict[str, Any]:
        """The state's `handover` (app/rooms/succession.py), made again only when the
        roles, the seats or the host's phone changed."""
        seated = self.rules.player_ids(state)
        key = (self.roles, self.connected(self.rules.creator), seated)
        if self._handover is None or key != self._handover_of:
            self._handover_of = key
            return self.roles.view(seated, key[1], self.policy.host_away_ms)
        return self._handover

    def _whole_view(
        self, state: Any, connected: Connected, handover: dict[str, Any], seq: int
    ) -> View:
        rendered = self.rules.view(state, connected)
        return {"code": self.code, **rendered, "handover": handover, "seq": seq}

    def _later(self, state: Any, handover: dict[str, Any]) -> Rendering:
        """The view of `state`, rendered when read: the last view rendered with the parts
        changed since laid over it, and the phones connected as they are now."""
        base, rendered_state, seq, parts = *self._rendered, self.seq, self._parts
        assert parts is not None
        connected = self._connected_now()

        def make() -> View:
            changed = parts.view_changes(rendered_state, state, connected)
            if changed is None:
                view = self._whole_view(state, connected, handover, seq)
            else:
                view = {**base, **changed, "handover": handover, "seq": seq}
            if self._rendering is rendering:
                self._rendered = (view, state)
            return view

        rendering = Rendering(make=make)
        return rendering


def _connected(player_id: str, online: frozenset[str], holder: str | None, host: str) -> bool:
    """A phone of the player's is here; a player who took the host's role plays on from
    the host's phone, so its seat is online with it."""
    return player_id in online or (player_id == holder and host in online)


def _restored_roles(
    rules: Rules[Any], state: Any, snapshot: Mapping[str, Any], entries: list[dict[str, Any]]
) -> Succession:
    """The snapshot's roles and the role events logged after it; a snapshot of before
    the roles were kept: every role event, and a host away since the snapshot's time
    (any seat then elects: who had a phone was not kept)."""
    record = snapshot.get("roles")
    roles = Succession.from_record(record) if record is not None else Succession()
    for entry in entries:
        after = record is None or entry["seq"] > snapshot["seq"]
        if entry["type"] in succession.EVENTS and after:
            roles = roles.evolve(entry["type"], entry["data"], rules.creator)
    if record is None and not snapshot["presence"].get(rules.creator):
        seated = rules.player_ids(state)
        roles = roles.saw(seated).host_left(snapshot["updated_at"], seated)
    return roles
