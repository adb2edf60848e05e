"""Invariants of BANK! over random command sequences (hypothesis).

A random game: 1-4 players, 1-4 rounds, any roll-entry mode; then up to 60 random
commands sent to a `Room` as the actor would: rolls (random dice, from the banker
or a random player, with or without dice; or only a total, 2 to 12, of which 2 and
12 are refused), BANKs from random players (for themselves, or by the banker on
their behalf), the banker's unbanks, undos, and now and then a retried command id.
Each step records the state before and after, so that every property is checked at
every step.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.games.bank.rules import BankRules, BankState
from app.games.seam import RuleError
from app.games.seam import Sender as Actor
from app.rooms.eventlog import GENESIS, chain, verify
from app.rooms.room import Room
from app.rooms.timeline import Timeline
from tests.bank_support import BANK, decide, handle, view

NOW = 1_700_000_000_000
PIDS = ("p0", "p1", "p2", "p3")
RULES = BankRules()

FAST = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
command_ids = st.sampled_from([None] * 10 + ["c1", "c2"])

KINDS = ["roll"] * 8 + ["bank"] * 5 + ["unbank"] * 3 + ["undo", "player_roll", "bare_roll", "total"]
action = st.tuples(
    st.sampled_from(KINDS),
    dice,
    st.integers(0, 3),  # which player (for banks and player rolls)
    st.booleans(),  # a bank sent by the banker on the player's behalf
    command_ids,
)

games = st.fixed_dictionaries(
    {
        "players": st.integers(1, 4),
        "rounds": st.integers(1, 4),
        "roll_entry": st.sampled_from(["banker", "banker", "roller", "virtual"]),
        "actions": st.lists(action, min_size=10, max_size=60),
    }
)


@dataclass
class Step:
    action: tuple[Any, ...]
    before: BankState
    after: BankState
    view_before: dict[str, Any]
    view_after: dict[str, Any]
    snapshot_before: bytes
    snapshot_after: bytes
    reply: dict[str, Any]
    entries: list[dict[str, Any]]

    @property
    def applied(self) -> bool:
        return bool(self.entries)

    @property
    def event(self) -> dict[str, Any] | None:
        return self.entries[0] if self.entries else None


@dataclass
class Played:
    room: Room
    entries: list[dict[str, Any]]
    steps: list[Step]
    states_by_seq: dict[int, BankState]  # the state right after each event


def envelope_for(act: tuple[Any, ...], players: int) -> dict[str, Any]:
    """`roll`: the banker types the dice (valid in every mode); `player_roll`: a player
    sends the dice (or, in virtual mode, taps ROLL); `bare_roll`: the banker sends no dice
    (the server rolls in virtual mode, else bad_message)."""
    kind, (a, b), who, by_banker, cid = act
    pid = PIDS[who % players]
    banker: dict[str, Any] = {"k": "cmd", "role": "banker", "pid": None, "id": cid}
    player: dict[str, Any] = {"k": "cmd", "role": "player", "pid": pid, "id": cid}
    if kind == "roll":
        return {**banker, "cmd": {"type": "roll", "dice": [a, b]}}
    if kind == "bare_roll":
        return {**banker, "cmd": {"type": "roll"}}
    if kind == "total":
        return {**(player if by_banker else banker), "cmd": {"type": "roll", "total": a + b}}
    if kind == "unbank":
        return {**banker, "cmd": {"type": "unbank", "player_id": pid}}
    if kind == "player_roll":
        cmd: dict[str, Any] = {"type": "roll", "dice": [a, b]} if by_banker else {"type": "roll"}
        return {**player, "cmd": cmd}
    if kind == "bank":
        if by_banker:
            return {**banker, "cmd": {"type": "bank", "player_id": pid}}
        return {**player, "cmd": {"type": "bank"}}
    return {**banker, "cmd": {"type": "undo"}}


def play(game: dict[str, Any]) -> Played:
    room, first = Room.create(
        "PROP",
        BANK,
        {"rounds": game["rounds"], "roll_entry": game["roll_entry"]},
        ["banker-hash"],
        NOW,
        64,
    )
    entries = [first]
    now = NOW
    for i in range(game["players"]):
        pid = PIDS[i]
        now += 1
        out = handle(
            room,
            {
                "k": "cmd",
                "role": "player",
                "pid": pid,
                "th": f"th-{pid}",
                "cmd": {"type": "join", "player_id": pid, "name": f"Player {i}"},
            },
            now,
            (1, 1),
        )
        entries.extend(out.entries)
    now += 1
    start = {"k": "cmd", "role": "banker", "pid": None, "cmd": {"type": "start"}}
    entries.extend(handle(room, start, now, (1, 1)).entries)
    states_by_seq = {room.seq: room.timeline.state}
    steps = []
    for act in game["actions"]:
        now += 1
        before, view_before, snap_before = room.timeline.state, room.view, room.snapshot()
        chance = act[1]
        out = handle(room, envelope_for(act, game["players"]), now, chance)
        assert out.reply is not None
        entries.extend(out.entries)
        states_by_seq[room.seq] = room.timeline.state
        steps.append(
            Step(
                act,
                before,
                room.timeline.state,
                view_before,
                room.view,
                snap_before,
                room.snapshot(),
                orjson.loads(out.reply),
                out.entries,
            )
        )
    return Played(room, entries, steps, states_by_seq)


def scores(state: BankState) -> dict[str, int]:
    return {p.id: p.score for p in state.players}


def without_seq(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "seq"}


# ============================================================================ properties
@FAST
@given(games)
def test_scores_never_decrease_except_by_undo_or_unbank(game: dict[str, Any]) -> None:
    played = play(game)
    for step in played.steps:
        event = step.event
        if event is not None and event["type"] in ("undo", "unbank"):
            continue
        for pid, score in scores(step.before).items():
            assert scores(step.after)[pid] >= score


@FAST
@given(games)
def test_a_refused_or_retried_command_changes_nothing(game: dict[str, Any]) -> None:
    played = play(game)
    for step in played.steps:
        if step.applied:
            assert step.reply["type"] == "ack"
            assert step.reply["seq"] == step.event["seq"]  # type: ignore[index]
            continue
        assert step.after == step.before
        assert step.snapshot_after == step.snapshot_before
        if step.reply["type"] == "ack":  # a retry: the original seq, already in the past
            assert step.reply["id"] is not None
            assert step.reply["seq"] <= step.view_before["seq"]


@FAST
@given(games)
def test_nobody_banks_twice_in_a_round(game: dict[str, Any]) -> None:
    played = play(game)
    for step in played.steps:
        event = step.event
        if event is not None and event["type"] == "bank":
            player = step.before.player(event["data"]["player_id"])
            assert player is not None and not player.banked
            assert event["data"]["amount"] == step.before.bank
            assert step.before.roll_count > 0
        for state in (step.after,):
            banked_now = [b.player_id for b in state.banked_now]
            assert len(banked_now) == len(set(banked_now))
            assert set(banked_now) == {p.id for p in state.players if p.banked}
    for result in played.room.view["rounds_log"]:
        ids = [b["player_id"] for b in result["banked"]]
        assert len(ids) == len(set(ids))
        assert all(b["amount"] <= result["bank"] for b in result["banked"])


@FAST
@given(games)
def test_the_turn_is_always_a_player_who_has_not_banked(game: dict[str, Any]) -> None:
    played = play(game)
    for step in played.steps:
        state = step.after
        if state.status == "playing":
            turn = state.player(state.turn or "")
            assert turn is not None and not turn.banked
            assert any(not p.banked for p in state.players)
            assert len(state.rounds_log) == state.round - 1
            assert 1 <= state.round <= state.rounds
        else:
            assert state.status == "finished"
            assert state.turn is None
            assert state.round == state.rounds == len(state.rounds_log)
            assert (state.bank, state.roll_count) == (0, 0)
            top = max(p.score for p in state.players)
            assert step.view_after["winners"] == [p.id for p in state.players if p.score == top]
        event = step.event
        if event is not None and event["type"] == "roll":
            assert event["data"]["player_id"] == step.before.turn
            assert state.last_roll is not None and state.last_roll.by == step.before.turn


@FAST
@given(games)
def test_within_a_round_the_bank_never_decreases(game: dict[str, Any]) -> None:
    played = play(game)
    for step in played.steps:
        event = step.event
        if event is None or event["type"] == "undo":
            continue
        same_round = (
            step.after.status == step.before.status == "playing"
            and step.after.round == step.before.round
            and len(step.after.rounds_log) == len(step.before.rounds_log)
        )
        if same_round:
            assert step.after.bank >= step.before.bank
        else:
            assert step.after.bank == 0
            assert step.after.roll_count == 0
            assert all(not p.banked for p in step.after.players)


@FAST
@given(games)
def test_a_seven_from_the_fourth_roll_leaves_the_scores_as_they_were(game: dict[str, Any]) -> None:
    played = play(game)
    for step in played.steps:
        event = step.event
        if event is None or event["type"] != "roll":
            continue
        total = sum(event["data"]["dice"]) if "dice" in event["data"] else event["data"]["total"]
        if total == 7 and step.before.roll_count >= 3:
            assert scores(step.after) == scores(step.before)
            assert len(step.after.rounds_log) == len(step.before.rounds_log) + 1
            ended = step.after.rounds_log[-1]
            assert ended.ended_by == "seven"
            assert ended.bank == step.before.bank
            assert ended.banked == step.before.banked_now
        else:
            # any other roll: the round goes on, one roll more
            assert step.after.roll_count == step.before.roll_count + 1
            assert step.after.round == step.before.round
            assert scores(step.after) == scores(step.before)


@FAST
@given(games)
def test_replaying_the_event_log_gives_the_same_state_and_view(game: dict[str, Any]) -> None:
    played = play(game)
    stored = [orjson.loads(orjson.dumps(e)) for e in played.entries]
    for upto in sorted({1, len(stored) // 3, len(stored) // 2, len(stored)}):
        prefix = stored[:upto]
        replayed = Timeline.replay(RULES, prefix)
        seq = prefix[-1]["seq"]
        if seq in played.states_by_seq:
            assert replayed.state == played.states_by_seq[seq]
    replayed = Timeline.replay(RULES, stored)
    assert replayed.state == played.room.timeline.state
    assert view(RULES, replayed.state) == view(RULES, played.room.timeline.state)
    restored = Room.restore(BANK, orjson.loads(played.room.snapshot()), stored, 64)
    assert restored.view == played.room.view
    assert restored.snapshot() == played.room.snapshot()


@FAST
@given(games)
def test_undo_gives_back_exactly_the_state_before_the_undone_roll(game: dict[str, Any]) -> None:
    played = play(game)
    before_roll: dict[int, tuple[BankState, dict[str, Any]]] = {}
    for step in played.steps:
        event = step.event
        if event is None:
            continue
        if event["type"] == "roll":
            before_roll[event["seq"]] = (step.before, without_seq(step.view_before))
        if event["type"] == "undo":
            state, view = before_roll[event["data"]["undone_seq"]]
            assert step.after == state
            assert without_seq(step.view_after) == view


@FAST
@given(games, dice, st.booleans())
def test_an_undo_right_after_a_roll_restores_the_state_before_it(
    game: dict[str, Any], roll: tuple[int, int], then_bank: bool
) -> None:
    played = play(game)
    room = played.room
    if room.view["status"] != "playing":
        return
    before, view = room.timeline.state, without_seq(room.view)
    out = handle(
        room,
        {"k": "cmd", "role": "banker", "pid": None, "cmd": {"type": "roll", "dice": list(roll)}},
        NOW * 2,
        (1, 1),
    )
    assert out.entries
    if then_bank and room.view["status"] == "playing" and room.timeline.state.roll_count:
        pid = next(p.id for p in room.timeline.state.players if not p.banked)
        handle(
            room,
            {"k": "cmd", "role": "player", "pid": pid, "cmd": {"type": "bank"}},
            NOW * 2 + 1,
            (1, 1),
        )
    out = handle(
        room,
        {"k": "cmd", "role": "banker", "pid": None, "cmd": {"type": "undo"}},
        NOW * 2 + 2,
        (1, 1),
    )
    assert out.entries[0]["type"] == "undo"
    assert room.timeline.state == before
    assert without_seq(room.view) == view


@FAST
@given(st.integers(1, 3), st.lists(st.tuples(dice, st.sets(st.integers(0, 3))), max_size=40))
def test_timeline_undo_equals_replay_without_the_undone_roll(
    players: int, script: list[tuple[tuple[int, int], set[int]]]
) -> None:
    """Through a bare Timeline: after each roll and its banks, undo must equal never rolling."""
    rules = BankRules()
    timeline: Timeline[BankState] = Timeline(rules, {"rounds": 2, "roll_entry": "banker"})
    seq = 1

    def apply(actor: Actor, command: dict[str, Any], chance: tuple[int, int] = (1, 1)) -> bool:
        nonlocal seq
        try:
            event = decide(rules, timeline.state, actor, command, chance)
        except RuleError:
            return False
        seq += 1
        timeline.apply(event, seq)
        return True

    for i in range(players):
        apply(Actor("player", PIDS[i]), {"type": "join", "player_id": PIDS[i], "name": PIDS[i]})
    apply(Actor("banker"), {"type": "start"})
    for (a, b), bankers in script:
        before = timeline.state
        if not apply(Actor("banker"), {"type": "roll", "dice": [a, b]}):
            break
        for who in sorted(bankers):
            apply(Actor("player", PIDS[who % players]), {"type": "bank"})
        if (a + b) % 3 == 0:  # undo about a third of the time
            undone = timeline.last_undoable()
            assert undone is not None
            seq += 1
            timeline.undo(undone)
            assert timeline.state == before


# ============================================================================ the hash chain
@FAST
@given(games)
def test_the_logs_hash_chain_verifies(game: dict[str, Any]) -> None:
    played = play(game)
    entries = [orjson.loads(orjson.dumps(e)) for e in played.entries]
    assert verify(entries)
    prev = GENESIS
    for seq, entry in enumerate(entries, start=1):
        assert entry["seq"] == seq
        assert entry["hash"] == chain(prev, entry)
        assert len(entry["hash"]) == 64 and entry["hash"] == entry["hash"].lower()
        prev = entry["hash"]
    assert played.room.last_hash == prev


ALTERATIONS = ["at", "by", "type", "data", "seq", "hash", "drop", "swap", "duplicate"]


@FAST
@given(games, st.data())
def test_altering_any_entry_breaks_the_hash_chain(
    game: dict[str, Any], data: st.DataObject
) -> None:
    played = play(game)
    entries = copy.deepcopy([orjson.loads(orjson.dumps(e)) for e in played.entries])
    assert verify(entries)
    index = data.draw(st.integers(0, len(entries) - 1), label="index")
    how = data.draw(st.sampled_from(ALTERATIONS), label="how")
    entry = entries[index]
    if how == "at":
        entry["at"] += data.draw(st.integers(1, 10**6))
    elif how == "by":
        entry["by"] = entry["by"] + "x"
    elif how == "type":
        entry["type"] = "bank" if entry["type"] != "bank" else "roll"
    elif how == "data":
        key = data.draw(st.sampled_from(sorted(entry["data"]) + ["extra"]))
        entry["data"][key] = ["tampered", entry["data"].get(key)]
    elif how == "seq":
        entry["seq"] += data.draw(st.sampled_from([-1, 1, 100]))
    elif how == "hash":
        position = data.draw(st.integers(0, 63))
        flipped = "0" if entry["hash"][position] != "0" else "1"
        entry["hash"] = entry["hash"][:position] + flipped + entry["hash"][position + 1 :]
    elif how == "drop":
        if len(entries) == 1 or index == len(entries) - 1:
            # dropping the newest entry leaves a valid (shorter) chain: a prefix is a log
            del entries[index]
            assert verify(entries)
            return
        del entries[index]
    elif how == "swap":
        other = data.draw(st.integers(0, len(entries) - 1).filter(lambda j: j != index))
        entries[index], entries[other] = entries[other], entries[index]
    elif how == "duplicate":
        entries.insert(index, copy.deepcopy(entry))
    assert not verify(entries)


@FAST
@given(games)
def test_an_unbank_takes_back_exactly_one_bankers_bank_of_the_round_in_play(
    game: dict[str, Any],
) -> None:
    played = play(game)
    for step in played.steps:
        event = step.event
        if event is None or event["type"] != "unbank":
            continue
        data = event["data"]
        taken = next(b for b in step.before.banked_now if b.player_id == data["player_id"])
        assert taken.by_banker and (taken.amount, taken.seq) == (data["amount"], data["bank_seq"])
        assert (
            scores(step.after)[data["player_id"]]
            == scores(step.before)[data["player_id"]] - (data["amount"])
        )
        assert (step.after.roll_count, step.after.bank) == (
            step.before.roll_count,
            step.before.bank,
        )


@FAST
@given(games)
def test_the_undo_preview_names_exactly_the_events_undo_would_drop(game: dict[str, Any]) -> None:
    played = play(game)
    room = played.room
    preview = room.view["undo_preview"]
    undoable = None if room.timeline.state.closed else room.timeline.last_undoable()
    if preview is None:
        assert undoable is None
        return
    assert preview["seq"] == undoable
    dropped = [seq for seq, _ in room.timeline.effective if seq >= preview["seq"]]
    assert [c["seq"] for c in preview["takes_back"]] == dropped


@FAST
@given(games)
def test_round_log_is_the_rolls_and_banks_of_the_round_in_play(game: dict[str, Any]) -> None:
    played = play(game)
    for step in played.steps:
        log = step.view_after["round_log"]
        assert len(log["rolls"]) == step.after.roll_count
        banked = sorted(p.id for p in step.after.players if p.banked)
        assert sorted(b["player_id"] for b in log["banks"]) == banked
        if log["rolls"]:
            assert log["rolls"][-1]["bank_after"] == step.after.bank
            assert log["rolls"][-1]["total"] == step.view_after["last_roll"]["total"]
