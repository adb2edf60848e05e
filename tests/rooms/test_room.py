"""The room record without a server: `Room.create/handle/snapshot/restore`.

Envelopes are fed the way the actor feeds them (in arrival order, one at a time);
everything here is synchronous and deterministic (the clock and the dice are given).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.bus.base import Frame
from app.games.bank.rules import BankRules
from app.rooms.envelope import CommandEnvelope
from app.rooms.eventlog import GENESIS, chain, verify
from app.rooms.room import Outcome, Room
from app.rooms.timeline import Timeline
from tests.bank_support import BANK, TOURNAMENT, handle, table_options

NOW = 1_700_000_000_000
BANKER_HASH = "b" * 64


def th(pid: str) -> str:
    """A stand-in for a player's token hash."""
    return f"token-hash-of-{pid}"


class Harness:
    """One room, its log as the actor would persist it, and helpers to send envelopes."""

    def __init__(
        self,
        *names: str,
        rounds: int = 3,
        roll_entry: str = "banker",
        dedupe_limit: int = 16,
    ) -> None:
        self.rules = BankRules()
        self.now = NOW
        self.room, entry = Room.create(
            "K7QF",
            BANK,
            {"rounds": rounds, "roll_entry": roll_entry},
            [BANKER_HASH],
            self.now,
            dedupe_limit,
        )
        self.dedupe_limit = dedupe_limit
        self.entries: list[dict[str, Any]] = [entry]
        for name in names:
            self.join(name)

    # -- sending ---------------------------------------------------------------------
    def send(self, envelope: dict[str, Any], chance: tuple[int, int] = (1, 2)) -> Outcome:
        self.now += 7
        outcome = handle(self.room, envelope, self.now, chance)
        self.entries.extend(outcome.entries)
        return outcome

    def cmd(
        self,
        command: dict[str, Any],
        role: str = "banker",
        pid: str | None = None,
        cid: str | None = None,
        chance: tuple[int, int] = (1, 2),
    ) -> Outcome:
        envelope = {
            "k": "cmd",
            "role": role,
            "pid": pid,
            "id": cid,
            "cmd": command,
            "node": "n1",
            "key": "k1",
        }
        return self.send(envelope, chance)

    def join(self, name: str, pid: str | None = None) -> Outcome:
        pid = pid or name.lower()
        return self.send(
            {
                "k": "cmd",
                "role": "player",
                "pid": pid,
                "th": th(pid),
                "cmd": {"type": "join", "player_id": pid, "name": name},
            }
        )

    def start(self) -> Outcome:
        return self.cmd({"type": "start"})

    def roll(self, a: int, b: int, cid: str | None = None) -> Outcome:
        return self.cmd({"type": "roll", "dice": [a, b]}, cid=cid)

    def bank(self, pid: str, cid: str | None = None, by_banker: bool = False) -> Outcome:
        if by_banker:
            return self.cmd({"type": "bank", "player_id": pid}, cid=cid)
        return self.cmd({"type": "bank"}, role="player", pid=pid, cid=cid)

    def undo(self, cid: str | None = None) -> Outcome:
        return self.cmd({"type": "undo"}, cid=cid)

    def presence(self, pid: str, delta: int, node: str = "n1") -> Outcome:
        return self.send({"k": "presence", "node": node, "pid": pid, "delta": delta})

    # -- reading ---------------------------------------------------------------------
    @property
    def view(self) -> dict[str, Any]:
        return self.room.view

    def scores(self) -> dict[str, int]:
        return {p["id"]: p["score"] for p in self.view["players"]}

    def restored(self) -> Room:
        """A fresh Room from the persisted snapshot and log (both through JSON bytes)."""
        snapshot = orjson.loads(self.room.snapshot())
        entries = [orjson.loads(orjson.dumps(e)) for e in self.entries]
        return Room.restore(BANK, snapshot, entries, self.dedupe_limit)


def reply(outcome: Outcome) -> dict[str, Any]:
    assert outcome.reply is not None
    return dict(orjson.loads(outcome.reply))


def playing(**options: Any) -> Harness:
    h = Harness("Ann", "Bob", "Cy", **options)
    h.start()
    return h


# ============================================================================ create
def test_the_create_event_is_seq_one_and_starts_the_hash_chain() -> None:
    h = Harness(rounds=10, roll_entry="roller")
    (entry,) = h.entries
    assert entry["seq"] == 1
    assert entry["type"] == "create"
    assert entry["by"] == "banker"
    assert entry["at"] == NOW
    assert entry["data"] == {"game": "bank", "rounds": 10, "roll_entry": "roller"}
    assert entry["hash"] == chain(GENESIS, entry)
    assert h.room.seq == 1
    assert h.view["seq"] == 1
    assert h.view["code"] == "K7QF"
    assert h.view["status"] == "lobby"
    assert orjson.loads(h.room.snapshot())["tokens"] == {BANKER_HASH: "banker"}


def test_bad_options_are_refused_at_create() -> None:
    from app.games.seam import RuleError

    with pytest.raises(RuleError) as info:
        Room.create("K7QF", BANK, {"rounds": 0}, [BANKER_HASH], NOW, 8)
    assert info.value.code == "bad_rounds"


# ============================================================================ seq
def test_seq_increments_by_one_on_each_applied_event() -> None:
    h = Harness()
    seqs = []
    steps = [
        lambda: h.join("Ann"),
        lambda: h.join("Bob"),
        h.start,
        lambda: h.roll(2, 3),
        lambda: h.bank("ann"),
        lambda: h.roll(6, 6),
        h.undo,
    ]
    for step in steps:
        outcome = step()
        seqs.append(reply(outcome)["seq"])
        assert [e["seq"] for e in outcome.entries] == [h.room.seq]
        assert outcome.frames[0] == Frame("state", h.room.seq, h.room.state_text)
    assert seqs == [2, 3, 4, 5, 6, 7, 8]
    assert [e["seq"] for e in h.entries] == list(range(1, 9))
    assert [e["type"] for e in h.entries] == [
        "create",
        "join",
        "join",
        "start",
        "roll",
        "bank",
        "roll",
        "undo",
    ]
    assert h.view["seq"] == 8
    assert verify(h.entries)


def test_seq_does_not_move_on_refusals_retries_or_presence() -> None:
    h = playing()
    h.roll(2, 3, cid="r1")
    seq = h.room.seq
    h.cmd({"type": "roll", "dice": [1, 1]}, role="player", pid="bob")  # not_allowed
    h.roll(2, 3, cid="r1")  # retry
    h.presence("ann", 1)
    h.presence("ann", -1)
    assert h.room.seq == seq
    assert h.view["seq"] == seq
    assert h.entries[-1]["seq"] == seq


def test_the_state_frame_carries_the_view_once_encoded() -> None:
    h = playing()
    outcome = h.roll(4, 4)
    (frame,) = outcome.frames
    assert frame.kind == "state"
    assert frame.seq == h.room.seq
    message = orjson.loads(frame.text)
    assert message == {"type": "state", "state": h.view}
    state = message["state"]
    assert state["code"] == "K7QF"
    assert state["seq"] == h.room.seq
    assert state["bank"] == 8
    assert state["last_roll"] == {"dice": [4, 4], "total": 8, "by": "ann", "seq": h.room.seq}
    assert [p["connected"] for p in state["players"]] == [False, False, False]


def test_acks_answer_with_the_commands_id_and_seq() -> None:
    h = playing()
    assert reply(h.roll(2, 3, cid="abc")) == {"type": "ack", "id": "abc", "seq": h.room.seq}
    assert reply(h.roll(2, 3)) == {"type": "ack", "id": None, "seq": h.room.seq}


# ==================================================================== refusals change nothing
def _live_after_bob_banked() -> Harness:
    h = playing()
    h.roll(2, 3)
    h.bank("bob")
    return h


def _finished_by_seven() -> Harness:
    h = Harness("Ann", "Bob", rounds=1)
    h.start()
    for dice in [(2, 3), (4, 2), (6, 5), (3, 4)]:
        h.roll(*dice)
    assert h.view["status"] == "finished"
    return h


REFUSALS: list[tuple[str, Any, dict[str, Any], str]] = [
    (
        "player roll in banker mode",
        _live_after_bob_banked,
        {"role": "player", "pid": "ann", "cmd": {"type": "roll", "dice": [3, 4]}},
        "not_allowed",
    ),
    (
        "spectator bank",
        _live_after_bob_banked,
        {"role": "spectator", "pid": None, "cmd": {"type": "bank", "player_id": "ann"}},
        "not_allowed",
    ),
    (
        "player undo",
        _live_after_bob_banked,
        {"role": "player", "pid": "ann", "cmd": {"type": "undo"}},
        "not_allowed",
    ),
    (
        "spectator undo",
        _live_after_bob_banked,
        {"role": "spectator", "pid": None, "cmd": {"type": "undo"}},
        "not_allowed",
    ),
    (
        "player kick",
        lambda: Harness("Ann", "Bob"),
        {"role": "player", "pid": "ann", "cmd": {"type": "kick", "player_id": "bob"}},
        "not_allowed",
    ),
    (
        "bank twice",
        _live_after_bob_banked,
        {"role": "player", "pid": "bob", "cmd": {"type": "bank"}},
        "already_banked",
    ),
    (
        "banker banks for an unknown player",
        _live_after_bob_banked,
        {"role": "banker", "pid": None, "cmd": {"type": "bank", "player_id": "zed"}},
        "unknown_player",
    ),
    (
        "start after start",
        _live_after_bob_banked,
        {"role": "banker", "pid": None, "cmd": {"type": "start"}},
        "already_started",
    ),
    (
        "kick after start",
        _live_after_bob_banked,
        {"role": "banker", "pid": None, "cmd": {"type": "kick", "player_id": "cy"}},
        "not_in_lobby",
    ),
    (
        "join after start",
        _live_after_bob_banked,
        {
            "role": "player",
            "pid": "dee",
            "th": th("dee"),
            "cmd": {"type": "join", "player_id": "dee", "name": "Dee"},
        },
        "not_in_lobby",
    ),
    (
        "join with a taken name",
        lambda: Harness("Ann"),
        {
            "role": "player",
            "pid": "ann2",
            "th": th("ann2"),
            "cmd": {"type": "join", "player_id": "ann2", "name": " ANN "},
        },
        "name_taken",
    ),
    (
        "join with an empty name",
        lambda: Harness("Ann"),
        {
            "role": "player",
            "pid": "x",
            "th": th("x"),
            "cmd": {"type": "join", "player_id": "x", "name": "  "},
        },
        "bad_name",
    ),
    (
        "roll in the lobby",
        lambda: Harness("Ann"),
        {"role": "banker", "pid": None, "cmd": {"type": "roll", "dice": [1, 2]}},
        "not_started",
    ),
    (
        "undo in the lobby",
        lambda: Harness("Ann"),
        {"role": "banker", "pid": None, "cmd": {"type": "undo"}},
        "nothing_to_undo",
    ),
    (
        "undo before the first roll",
        playing,
        {"role": "banker", "pid": None, "cmd": {"type": "undo"}},
        "nothing_to_undo",
    ),
    (
        "start with nobody",
        lambda: Harness(),
        {"role": "banker", "pid": None, "cmd": {"type": "start"}},
        "not_enough_players",
    ),
    (
        "bank after the 7 that ended the last round",
        _finished_by_seven,
        {"role": "player", "pid": "bob", "cmd": {"type": "bank"}},
        "round_over",
    ),
    (
        "roll after the end",
        _finished_by_seven,
        {"role": "banker", "pid": None, "cmd": {"type": "roll", "dice": [1, 2]}},
        "game_over",
    ),
    (
        "bank before the round's first roll",
        playing,
        {"role": "player", "pid": "cy", "cmd": {"type": "bank"}},
        "round_over",
    ),
    (
        "unknown command type",
        playing,
        {"role": "banker", "pid": None, "cmd": {"type": "reset"}},
        "bad_message",
    ),
]


@pytest.mark.parametrize(
    ("setup", "envelope", "code"),
    [case[1:] for case in REFUSALS],
    ids=[case[0] for case in REFUSALS],
)
@pytest.mark.parametrize("cid", [None, "c-1"])
def test_a_refused_command_changes_nothing(
    setup: Any, envelope: dict[str, Any], code: str, cid: str | None
) -> None:
    h = setup()
    before = h.room.snapshot()
    before_text = h.room.state_text
    log_length = len(h.entries)
    outcome = h.send({"k": "cmd", "id": cid, "node": "n1", "key": "k1", **envelope})
    answer = reply(outcome)
    assert answer["type"] == "error"
    assert answer["code"] == code
    assert answer["id"] == cid
    assert answer["message"]
    assert outcome.entries == []
    assert outcome.frames == []
    assert h.room.snapshot() == before
    assert h.room.state_text == before_text
    assert len(h.entries) == log_length


def test_a_refused_id_is_not_remembered_so_a_later_good_command_may_use_it() -> None:
    h = playing()
    refused = reply(h.bank("ann", cid="x"))
    assert refused["code"] == "round_over"
    h.roll(2, 3)
    applied = reply(h.bank("ann", cid="x"))
    assert applied["type"] == "ack"
    assert h.scores()["ann"] == 5


# ============================================================================ retries
def test_a_retried_id_gets_the_original_seq_and_is_not_applied_twice() -> None:
    h = playing()
    first = reply(h.roll(2, 3, cid="r1"))
    h.roll(4, 2)
    snapshot = h.room.snapshot()
    again = h.roll(2, 3, cid="r1")
    assert reply(again) == first == {"type": "ack", "id": "r1", "seq": first["seq"]}
    assert again.entries == []
    assert again.frames == []
    assert h.room.snapshot() == snapshot
    assert h.view["roll_count"] == 2
    assert h.view["bank"] == 11


def test_a_retried_bank_is_acked_again_not_refused_as_already_banked() -> None:
    h = playing()
    h.roll(2, 3)
    first = reply(h.bank("bob", cid="b1"))
    h.roll(6, 6)
    again = reply(h.bank("bob", cid="b1"))
    assert again == first
    assert h.scores()["bob"] == 5


def test_a_retry_is_answered_even_after_the_game_ended() -> None:
    h = Harness("Ann", rounds=1)
    h.start()
    h.roll(2, 3)
    first = reply(h.bank("ann", cid="last"))
    assert h.view["status"] == "finished"
    assert reply(h.bank("ann", cid="last")) == first


def test_the_same_id_from_a_different_principal_is_applied() -> None:
    h = playing()
    h.roll(2, 3)
    ann = reply(h.bank("ann", cid="same"))
    bob = reply(h.bank("bob", cid="same"))
    banker = reply(h.roll(1, 2, cid="same"))
    assert ann["type"] == bob["type"] == banker["type"] == "ack"
    assert ann["seq"] < bob["seq"] < banker["seq"]
    assert h.scores() == {"ann": 5, "bob": 5, "cy": 0}
    assert h.view["bank"] == 8


def test_the_banker_banking_for_a_player_is_the_bankers_id_not_the_players() -> None:
    h = playing()
    h.roll(2, 3)
    reply(h.bank("ann", cid="q", by_banker=True))
    h.roll(2, 2)
    reply(h.bank("bob", cid="q"))  # Bob's own "q" is another principal's id
    assert h.scores() == {"ann": 5, "bob": 9, "cy": 0}
    again = reply(h.bank("cy", cid="q", by_banker=True))  # the banker's "q" again: a retry
    assert again["seq"] == h.entries[6]["seq"]
    assert h.scores()["cy"] == 0


def test_commands_without_an_id_are_never_deduplicated() -> None:
    h = playing()
    h.roll(2, 3)
    h.roll(2, 3)
    assert h.view["roll_count"] == 2


def test_the_room_remembers_the_latest_ids_up_to_its_limit() -> None:
    h = Harness("Ann", dedupe_limit=3)
    h.start()
    seqs = {cid: reply(h.roll(1, 2, cid=cid))["seq"] for cid in ("a", "b", "c", "d")}
    count = h.view["roll_count"]
    for cid in ("b", "c", "d"):
        assert reply(h.roll(1, 2, cid=cid))["seq"] == seqs[cid]
    assert h.view["roll_count"] == count
    assert orjson.loads(h.room.snapshot())["accepted"] == {
        "banker": {"b": seqs["b"], "c": seqs["c"], "d": seqs["d"]}
    }


def test_retries_are_still_recognised_after_a_restore() -> None:
    h = playing()
    first = reply(h.roll(2, 3, cid="r1"))
    room = h.restored()
    again = handle(
        room,
        {
            "k": "cmd",
            "role": "banker",
            "pid": None,
            "id": "r1",
            "cmd": {"type": "roll", "dice": [2, 3]},
            "node": "n",
            "key": "k",
        },
        NOW + 10_000,
        (1, 1),
    )
    assert again.reply is not None and orjson.loads(again.reply) == first
    assert again.entries == []
    assert room.view["roll_count"] == 1


# ============================================================================ undo
def test_undo_is_logged_as_an_event_and_history_is_never_rewritten() -> None:
    h = playing()
    h.roll(2, 3)
    roll_seq = h.room.seq
    h.bank("ann")
    before = [dict(e) for e in h.entries]
    outcome = h.undo()
    (entry,) = outcome.entries
    assert entry["type"] == "undo"
    assert entry["by"] == "banker"
    assert entry["data"] == {"undone_seq": roll_seq}
    assert h.entries[: len(before)] == before
    assert verify(h.entries)


def test_undo_returns_the_room_to_the_view_before_the_roll() -> None:
    h = playing()
    h.roll(2, 3)
    h.bank("cy")
    view_before = {k: v for k, v in h.view.items() if k != "seq"}
    h.roll(5, 5)
    h.bank("ann")
    h.undo()
    assert {k: v for k, v in h.view.items() if k != "seq"} == view_before
    assert h.view["seq"] == h.room.seq


def test_undo_across_a_rounds_end_reopens_that_round() -> None:
    h = playing()
    for dice in [(2, 3), (4, 2), (6, 5)]:
        h.roll(*dice)
    h.bank("bob")
    view_before = {k: v for k, v in h.view.items() if k != "seq"}
    h.roll(3, 4)
    assert h.view["round"] == 2
    assert h.view["rounds_log"][0]["ended_by"] == "seven"
    h.undo()
    assert {k: v for k, v in h.view.items() if k != "seq"} == view_before
    assert h.view["round"] == 1
    assert h.view["rounds_log"] == []
    assert reply(h.bank("ann"))["type"] == "ack"
    assert h.scores() == {"ann": 22, "bob": 22, "cy": 0}


def test_undo_across_an_all_banked_round_end_gives_the_banks_back() -> None:
    h = playing()
    h.roll(2, 3)
    h.bank("ann")
    view_before = {k: v for k, v in h.view.items() if k != "seq"}
    h.roll(4, 4)
    h.bank("bob")
    h.bank("cy")
    assert h.view["round"] == 2
    h.undo()
    assert {k: v for k, v in h.view.items() if k != "seq"} == view_before
    assert h.scores() == {"ann": 5, "bob": 0, "cy": 0}


def test_undo_after_the_game_finished_resumes_the_last_round() -> None:
    h = _finished_by_seven()
    assert h.view["winners"] == ["ann", "bob"]
    h.undo()
    assert h.view["status"] == "playing"
    assert h.view["round"] == 1
    assert h.view["roll_count"] == 3
    assert h.view["bank"] == 22
    assert h.view["winners"] == []
    assert reply(h.bank("bob"))["type"] == "ack"
    h.roll(3, 4)
    assert h.view["status"] == "finished"
    assert h.view["winners"] == ["bob"]


def test_undo_after_the_game_finished_with_everyone_banked() -> None:
    h = Harness("Ann", "Bob", rounds=1)
    h.start()
    h.roll(2, 3)
    h.bank("ann")
    h.bank("bob")
    assert h.view["status"] == "finished"
    h.undo()
    assert h.view["status"] == "playing"
    assert h.view["roll_count"] == 0
    assert h.scores() == {"ann": 0, "bob": 0}


def test_undo_repeatedly_walks_back_roll_by_roll_until_nothing_is_left() -> None:
    h = playing()
    views = []
    for dice in [(2, 3), (4, 2), (6, 5), (3, 4), (1, 1)]:
        views.append({k: v for k, v in h.view.items() if k != "seq"})
        h.roll(*dice)
    for view in reversed(views):
        assert reply(h.undo())["type"] == "ack"
        assert {k: v for k, v in h.view.items() if k != "seq"} == view
    assert reply(h.undo())["code"] == "nothing_to_undo"


def test_an_undo_can_be_retried_safely() -> None:
    h = playing()
    h.roll(2, 3)
    h.roll(4, 2)
    first = reply(h.undo(cid="u1"))
    again = reply(h.undo(cid="u1"))
    assert again == first
    assert h.view["roll_count"] == 1


def test_undo_of_a_virtual_roll_takes_it_back() -> None:
    h = Harness("Ann", "Bob", roll_entry="virtual")
    h.start()
    h.cmd({"type": "roll"}, role="player", pid="ann", chance=(6, 6))
    assert h.entries[-1]["data"] == {"dice": [6, 6], "player_id": "ann"}
    assert h.entries[-1]["by"] == "ann"
    h.undo()
    assert h.view["roll_count"] == 0
    assert h.view["turn"] == "ann"


def test_fair_dice_look_ahead_is_the_state_kept_so_an_event_is_evolved_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A room with fair dice evolves each event to see whether it ends the game (then the
    seed is revealed with it) and keeps that state; the event that ends the game is
    evolved again, with the reveal its entry logs. A restore replays to the same view."""
    h = Harness("Ann", "Bob", rounds=1, roll_entry="virtual")
    assert h.room.fair is not None
    evolved: list[str] = []
    evolve = BankRules.evolve

    def counted(self: BankRules, state: Any, event: Any, seq: int) -> Any:
        evolved.append(event.type)
        return evolve(self, state, event, seq)

    monkeypatch.setattr(BankRules, "evolve", counted)

    def send(command: dict[str, Any], role: str = "banker", pid: str | None = None) -> None:
        h.now += 7
        envelope = CommandEnvelope(role, pid, None, orjson.dumps(command).decode(), "n1", "k1")
        h.entries.extend(h.room.handle(envelope, h.now).entries)  # no chance: the fair dice

    send({"type": "start"})
    send({"type": "roll"}, "player", "ann")
    send({"type": "bank"}, "player", "ann")
    assert evolved == ["start", "roll", "bank"]
    assert "drawn" in h.entries[-2]["fair"]
    assert all("dice_reveal" not in e.get("fair", {}) for e in h.entries)
    send({"type": "bank"}, "player", "bob")
    assert evolved == ["start", "roll", "bank", "bank", "bank"]
    assert h.view["status"] == "finished"
    assert "dice_reveal" in h.entries[-1]["fair"]
    assert h.restored().view == h.view


# ============================================================================ kick
def test_kick_drops_the_token_and_emits_a_kick_frame() -> None:
    h = Harness("Ann", "Bob")
    h.presence("bob", 1)
    tokens = orjson.loads(h.room.snapshot())["tokens"]
    assert tokens == {BANKER_HASH: "banker", th("ann"): "ann", th("bob"): "bob"}
    outcome = h.cmd({"type": "kick", "player_id": "bob"}, cid="k1")
    assert reply(outcome) == {"type": "ack", "id": "k1", "seq": h.room.seq}
    assert outcome.frames == [
        Frame("state", h.room.seq, h.room.state_text),
        Frame("kick", h.room.seq, "bob"),
    ]
    assert outcome.entries[0]["type"] == "kick"
    assert outcome.entries[0]["data"] == {"player_id": "bob"}
    snapshot = orjson.loads(h.room.snapshot())
    assert snapshot["tokens"] == {BANKER_HASH: "banker", th("ann"): "ann"}
    assert "bob" not in snapshot["presence"]
    assert [p["id"] for p in h.view["players"]] == ["ann"]


def test_a_kicked_players_name_is_free_and_its_presence_is_ignored() -> None:
    h = Harness("Ann", "Bob")
    h.cmd({"type": "kick", "player_id": "bob"})
    assert h.presence("bob", 1) == Outcome()
    assert reply(h.join("BOB", pid="bob2"))["type"] == "ack"
    assert [p["name"] for p in h.view["players"]] == ["Ann", "BOB"]


# ============================================================================ presence
def test_presence_frames_only_when_a_players_connected_flag_changes() -> None:
    h = Harness("Ann", "Bob")
    seq = h.room.seq
    first = h.presence("ann", 1)
    assert first.entries == []
    assert first.reply is None
    (frame,) = first.frames
    assert frame.kind == "presence"
    assert frame.seq == seq
    assert orjson.loads(frame.text) == {
        "type": "presence",
        "connected": {"ann": True, "bob": False},
        "host_connected": False,
        "handover": h.view["handover"],
    }
    assert [p["connected"] for p in h.view["players"]] == [True, False]
    assert h.presence("ann", 1) == Outcome()  # a second phone
    assert h.presence("ann", 1, node="n2") == Outcome()  # a third, on another process
    assert h.presence("ann", -1) == Outcome()
    assert h.presence("ann", -1) == Outcome()
    last = h.presence("ann", -1, node="n2")
    (frame,) = last.frames
    assert orjson.loads(frame.text)["connected"] == {"ann": False, "bob": False}
    assert [p["connected"] for p in h.view["players"]] == [False, False]
    assert h.room.seq == seq
    assert len(h.entries) == seq


def test_the_hosts_presence_is_counted_by_its_role() -> None:
    h = Harness("Ann")
    (frame,) = h.presence("banker", 1).frames
    assert orjson.loads(frame.text)["host_connected"] is True
    assert h.view["handover"]["host_connected"] is True
    assert orjson.loads(h.room.snapshot())["host_connected"] is True
    (frame,) = h.presence("banker", -1).frames
    assert orjson.loads(frame.text) == {
        "type": "presence",
        "connected": {"ann": False},
        "host_connected": False,
        "handover": {**h.view["handover"], "host_connected": False, "electors": []},
    }
    assert h.presence("organiser", 1) == Outcome()  # not this room's host


def test_a_disconnect_without_a_connect_changes_nothing() -> None:
    h = Harness("Ann")
    state_text = h.room.state_text
    assert h.presence("ann", -1) == Outcome()
    assert h.room.state_text == state_text
    assert not h.room.connected("ann")
    assert h.presence("ann", 1).frames  # the count did not go below zero


def test_presence_of_someone_not_seated_is_ignored() -> None:
    h = Harness("Ann")
    snapshot = h.room.snapshot()
    assert h.presence("ghost", 1) == Outcome()
    assert h.room.snapshot() == snapshot


def test_the_next_state_shows_who_is_connected() -> None:
    h = Harness("Ann", "Bob")
    h.presence("bob", 1)
    outcome = h.start()
    state = orjson.loads(outcome.frames[0].text)["state"]
    assert {p["id"]: p["connected"] for p in state["players"]} == {"ann": False, "bob": True}


def test_dropping_a_dead_process_disconnects_only_its_phones() -> None:
    h = Harness("Ann", "Bob")
    h.presence("ann", 1, node="n1")
    h.presence("bob", 1, node="n1")
    h.presence("bob", 1, node="n2")
    outcome = h.room.drop_node("n1", NOW + 99)
    (frame,) = outcome.frames
    assert orjson.loads(frame.text)["connected"] == {"ann": False, "bob": True}
    assert h.room.drop_node("n1", NOW + 100) == Outcome()


# ==================================================================== snapshot and restore
def _scripted_room() -> Harness:
    h = Harness("Ann", "Bob", "Cy", rounds=3)
    h.presence("bob", 1)
    h.start()
    h.roll(2, 3, cid="r1")
    h.bank("ann", cid="a1")
    h.roll(6, 6)
    h.roll(3, 4)
    h.roll(4, 4)
    h.bank("cy")
    h.undo()
    h.roll(1, 2)
    h.roll(3, 4)  # roll 5: the 7 ends round 1
    h.roll(5, 5)
    return h


def _future(room: Room) -> list[Outcome]:
    envelopes: list[dict[str, Any]] = [
        {
            "k": "cmd",
            "role": "banker",
            "pid": None,
            "id": "r1",
            "cmd": {"type": "roll", "dice": [2, 3]},
        },  # a retry from before the restore
        {"k": "cmd", "role": "player", "pid": "ann", "id": "a1", "cmd": {"type": "bank"}},
        {"k": "cmd", "role": "player", "pid": "bob", "id": "b9", "cmd": {"type": "bank"}},
        {"k": "cmd", "role": "player", "pid": "bob", "id": "b9", "cmd": {"type": "bank"}},
        {"k": "presence", "node": "n1", "pid": "bob", "delta": -1},
        {"k": "presence", "node": "n2", "pid": "cy", "delta": 1},
        {"k": "cmd", "role": "banker", "pid": None, "id": None, "cmd": {"type": "undo"}},
        {"k": "cmd", "role": "banker", "pid": None, "id": None, "cmd": {"type": "roll"}},
        {
            "k": "cmd",
            "role": "banker",
            "pid": None,
            "id": None,
            "cmd": {"type": "roll", "dice": [6, 5]},
        },
        {
            "k": "cmd",
            "role": "banker",
            "pid": None,
            "id": None,
            "cmd": {"type": "bank", "player_id": "cy"},
        },
        {
            "k": "cmd",
            "role": "banker",
            "pid": None,
            "id": None,
            "cmd": {"type": "roll", "dice": [4, 3]},
        },
    ]
    outcomes = []
    for i, envelope in enumerate(envelopes):
        outcomes.append(handle(room, envelope, NOW + 50_000 + i, (2, 2)))
    return outcomes


def test_restore_from_the_snapshot_and_log_gives_the_same_room() -> None:
    h = _scripted_room()
    room = h.restored()
    assert room.view == h.room.view
    assert room.state_text == h.room.state_text
    assert room.snapshot() == h.room.snapshot()
    assert room.timeline.state == h.room.timeline.state
    assert room.timeline.effective == h.room.timeline.effective


def test_a_restored_room_behaves_exactly_like_the_original() -> None:
    h = _scripted_room()
    room = h.restored()
    assert _future(room) == _future(h.room)
    assert room.snapshot() == h.room.snapshot()


def test_replaying_the_log_gives_the_same_state_as_the_live_room() -> None:
    h = _scripted_room()
    replayed = Timeline.replay(BankRules(), h.entries)
    assert replayed.state == h.room.timeline.state
    assert verify(h.entries)


def test_each_log_entry_names_who_sent_it_and_what_replays_it() -> None:
    h = Harness("Ann", "Bob")
    h.start()
    h.roll(2, 3)
    h.bank("ann")
    h.bank("bob", by_banker=True)
    h.roll(1, 1)
    h.undo()
    h2 = Harness("Cy", "Dee")
    h2.cmd({"type": "kick", "player_id": "dee"})
    got = [(e["type"], e["by"], e["data"]) for e in h.entries[1:] + h2.entries[3:]]
    assert got == [
        ("join", "ann", {"player_id": "ann", "name": "Ann"}),
        ("join", "bob", {"player_id": "bob", "name": "Bob"}),
        ("start", "banker", {}),
        ("roll", "banker", {"dice": [2, 3], "player_id": "ann"}),
        ("bank", "ann", {"player_id": "ann", "amount": 5}),
        ("bank", "banker", {"player_id": "bob", "amount": 5, "by_banker": True}),
        ("roll", "banker", {"dice": [1, 1], "player_id": "bob"}),
        ("undo", "banker", {"undone_seq": 8}),
        ("kick", "banker", {"player_id": "dee"}),
    ]


def test_the_log_never_holds_a_token() -> None:
    h = _scripted_room()
    text = orjson.dumps(h.entries).decode()
    assert BANKER_HASH not in text
    for pid in ("ann", "bob", "cy"):
        assert th(pid) not in text


def test_updated_at_moves_only_when_something_changed() -> None:
    h = playing()
    at = orjson.loads(h.room.snapshot())["updated_at"]
    h.cmd({"type": "bank"}, role="player", pid="ann")  # round_over
    assert orjson.loads(h.room.snapshot())["updated_at"] == at
    h.roll(1, 2)
    assert orjson.loads(h.room.snapshot())["updated_at"] == h.now


def test_a_restore_from_notes_keeps_only_the_newest_report_still_to_tell() -> None:
    """A journaled room's catch-up stores its notes' effects as the live room did: a
    newer report replaces one whose tell never happened (app/rooms/room.py `_store`)."""
    options = table_options()
    room, entry = Room.create("T1AB", BANK, options, [BANKER_HASH], NOW, 16, parent=TOURNAMENT)
    entries, notes = [entry], []

    def banker(command: dict[str, Any], at: int) -> None:
        envelope = {"k": "cmd", "role": "banker", "pid": None, "cmd": command}
        outcome = handle(room, {**envelope, "node": "n1", "key": "k1"}, NOW + at, (1, 2))
        assert outcome.entries, outcome.reply
        entries.extend(outcome.entries)
        stored = [{"kind": e.kind, "id": e.id, "data": e.data} for e in outcome.effects]
        notes.append({"effects": stored} if stored else {})

    banker({"type": "start"}, 1)
    snapshot = orjson.loads(room.snapshot())  # the playing report not yet told
    assert [e["data"]["command"]["status"] for e in snapshot["effects"]] == ["playing"]
    notes.clear()
    for at, dice in enumerate(([6, 4], [6, 4], [6, 4], [3, 4]), start=2):
        banker({"type": "roll", "dice": dice}, at)

    pending = [e.data["command"]["status"] for e in room.effects.values()]
    assert pending == ["finished"]
    restored = Room.restore(BANK, snapshot, entries, 16, notes)
    assert restored.effects == room.effects
