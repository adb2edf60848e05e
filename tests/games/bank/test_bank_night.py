"""Game night (issue 11), one scenario per rule: totals, the round so far in the state,
corrections that say what they do (undo preview, unbank), late seats, play again, and
"Too late" after a 7. Played through the pure rules (and, for undo and play again, the
`Room` that drives them). Seating: Ann, Bob, Cy (ids "ann", "bob", "cy").
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.games.bank.rules import BankRules, Join, Spawned
from app.games.seam import SYSTEM, Event, RuleError
from app.games.seam import Sender as Actor
from app.rooms.room import Room
from app.rooms.timeline import Timeline
from tests.bank_support import BANK, DiceChance, handle
from tests.games.bank.test_bank_scenarios import BANKER, SPECTATOR, P, Table, started, table

NOW = 1_700_000_000_000


def total(game: Table, value: Any, actor: Actor = BANKER) -> Event:
    return game.apply(actor, {"type": "roll", "total": value})


def seat(game: Table, name: str, *, phone: bool = True, by_banker: bool = True) -> str:
    """What `POST /api/rooms/{code}/players` sends the room (with the banker's token or not)."""
    pid = name.lower()
    join = Join(pid, name, phone=phone, by_banker=by_banker)
    event = game.rules.decide(game.state, P(pid), join, DiceChance())
    game.seq += 1
    game.timeline.apply(event, game.seq)
    return pid


def seat_refused(game: Table, name: str, *, by_banker: bool) -> str:
    before = game.state
    with pytest.raises(RuleError) as info:
        game.rules.decide(
            game.state, P(name.lower()), Join(name.lower(), name, by_banker=by_banker), DiceChance()
        )
    assert game.state == before
    return info.value.code


def unbank(game: Table, player_id: str) -> Event:
    return game.apply(BANKER, {"type": "unbank", "player_id": player_id})


def finished(*names: str) -> Table:
    game = started(*names, rounds=1)
    game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
    assert game.state.status == "finished"
    return game


# ============================================================================ honest rolls
class TestTotals:
    def test_a_total_is_logged_as_a_total_without_dice(self) -> None:
        game = started()
        assert total(game, 8) == Event("roll", {"total": 8, "player_id": "ann"})

    def test_last_roll_of_a_total_has_no_dice_and_dice_rolls_carry_their_sum(self) -> None:
        game = started()
        total(game, 8)
        assert game.view["last_roll"] == {"dice": None, "total": 8, "by": "ann", "seq": game.seq}
        game.roll(2, 2)
        assert game.view["last_roll"]["total"] == 4

    def test_a_total_in_the_three_safe_rolls_adds_itself_and_a_seven_adds_70(self) -> None:
        game = started()
        total(game, 8)
        total(game, 7)
        assert game.state.bank == 78

    def test_a_total_after_the_third_roll_is_never_doubles(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        total(game, 8)
        assert game.state.bank == 22 + 8

    def test_a_seven_total_after_the_third_roll_ends_the_round(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        total(game, 7)
        assert game.state.round == 2
        assert game.view["rounds_log"][-1]["ended_by"] == "seven"

    @pytest.mark.parametrize("value", [2, 12, 1, 13, 0, -1, "8", 8.0, True, None])
    def test_a_total_that_is_not_3_to_11_is_bad_message(self, value: Any) -> None:
        game = started()
        command = {"type": "roll", "total": value}
        expected = "bad_message"
        assert game.refused(BANKER, command) == expected

    def test_a_total_and_dice_together_are_bad_message(self) -> None:
        game = started()
        assert game.refused(BANKER, {"type": "roll", "total": 8, "dice": [4, 4]}) == "bad_message"

    def test_the_roller_may_send_a_total_in_roller_mode(self) -> None:
        game = started(roll_entry="roller")
        assert total(game, 9, P("ann")).data == {"total": 9, "player_id": "ann"}
        assert game.refused(P("ann"), {"type": "roll", "total": 9}) == "not_your_turn"

    @pytest.mark.parametrize(
        ("roll_entry", "actor"),
        [("banker", P("ann")), ("virtual", P("ann")), ("banker", SPECTATOR)],
    )
    def test_only_the_banker_or_the_roller_in_roller_mode_sends_a_total(
        self, roll_entry: str, actor: Actor
    ) -> None:
        game = started(roll_entry=roll_entry)
        assert game.refused(actor, {"type": "roll", "total": 9}) == "not_allowed"

    def test_the_banker_may_send_a_total_in_virtual_mode(self) -> None:
        game = started(roll_entry="virtual")
        assert total(game, 10).data["total"] == 10


# ============================================================================ the round so far
class TestTheRoundSoFar:
    def test_round_log_holds_each_roll_and_bank_of_the_current_round(self) -> None:
        game = started()
        first = game.roll(3, 4)
        seq_first = game.seq
        game.bank("ann")
        total(game, 5)
        game.bank("bob", by_banker=True)
        assert first.data["dice"] == [3, 4]
        assert game.view["round_log"] == {
            "rolls": [
                {"seq": seq_first, "by": "ann", "dice": [3, 4], "total": 7, "bank_after": 70},
                {"seq": seq_first + 2, "by": "bob", "dice": None, "total": 5, "bank_after": 75},
            ],
            "banks": [
                {"player_id": "ann", "amount": 70, "seq": seq_first + 1, "by_banker": False},
                {"player_id": "bob", "amount": 75, "seq": seq_first + 3, "by_banker": True},
            ],
        }

    def test_a_round_ended_by_a_seven_stays_as_last_round_until_another_ends(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.bank("ann")
        game.roll(3, 4)
        seven = game.seq
        view = game.view
        assert view["round_log"] == {"rolls": [], "banks": []}
        last = view["last_round"]
        assert (last["round"], last["ended_by"], last["bank"], last["seven_seq"]) == (
            1,
            "seven",
            22,
            seven,
        )
        assert [r["total"] for r in last["rolls"]] == [5, 6, 11, 7]
        assert last["rolls"][-1]["bank_after"] is None
        assert [b["player_id"] for b in last["banked"]] == ["ann"]
        game.roll(2, 3)  # round 2 is live: last_round is still round 1
        assert game.view["last_round"]["round"] == 1
        assert len(game.view["round_log"]["rolls"]) == 1

    def test_a_round_everyone_banked_has_no_seven_seq(self) -> None:
        game = started("Ann")
        game.roll(2, 3)
        game.bank("ann")
        last = game.view["last_round"]
        assert last["ended_by"] == "all_banked" and last["seven_seq"] is None
        assert game.view["rounds_log"] == [
            {
                "round": 1,
                "ended_by": "all_banked",
                "bank": 5,
                "banked": [{"player_id": "ann", "amount": 5, "seq": game.seq}],
            }
        ]

    def test_there_is_no_last_round_before_one_ends(self) -> None:
        game = started()
        game.roll(2, 3)
        assert game.view["last_round"] is None


# ============================================================================ undo preview
class TestUndoPreview:
    def test_nothing_to_preview_before_the_first_roll(self) -> None:
        assert started().view["undo_preview"] is None

    def test_the_preview_names_the_roll_and_every_bank_after_it(self) -> None:
        game = started()
        game.roll(2, 3)
        game.roll(4, 5)
        roll_seq = game.seq
        game.bank("ann")
        game.bank("cy", by_banker=True)
        assert game.view["undo_preview"] == {
            "seq": roll_seq,
            "takes_back": [
                {"type": "roll", "seq": roll_seq, "by": "bob", "dice": [4, 5], "total": 9},
                {"type": "bank", "seq": roll_seq + 1, "player_id": "ann", "amount": 14},
                {"type": "bank", "seq": roll_seq + 2, "player_id": "cy", "amount": 14},
            ],
        }
        assert game.timeline.last_undoable() == roll_seq

    def test_the_preview_reaches_across_a_round_everyone_banked(self) -> None:
        game = started("Ann", "Bob")
        game.roll(2, 3)
        game.bank("ann")
        game.bank("bob")
        assert [c["type"] for c in game.view["undo_preview"]["takes_back"]] == [
            "roll",
            "bank",
            "bank",
        ]
        game.undo()
        assert game.state.round == 1 and game.state.roll_count == 0

    def test_after_the_undo_the_preview_is_of_the_roll_before(self) -> None:
        game = started()
        game.roll(2, 3)
        first = game.seq
        game.roll(4, 5)
        game.undo()
        assert game.view["undo_preview"]["seq"] == first

    def test_a_played_again_game_has_no_preview(self) -> None:
        game = finished()
        assert game.view["undo_preview"] is not None
        game.apply(BANKER, {"type": "play_again"})
        assert game.view["undo_preview"] is None


# ============================================================================ unbank
class TestUnbank:
    def test_unbank_takes_back_only_the_bankers_bank_and_keeps_later_rolls(self) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("bob", by_banker=True)
        bank_seq = game.seq
        game.roll(4, 5)
        event = unbank(game, "bob")
        assert event == Event("unbank", {"player_id": "bob", "amount": 5, "bank_seq": bank_seq})
        assert game.score("bob") == 0 and not game.banked("bob")
        assert game.state.roll_count == 2 and game.state.bank == 14
        assert game.view["round_log"]["banks"] == []
        game.bank("bob", by_banker=True)
        assert game.score("bob") == 14

    def test_the_state_says_what_the_unbank_took_back_until_the_next_roll(self) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("bob", by_banker=True)
        bank_seq = game.seq
        unbank(game, "bob")
        assert game.view["last_correction"] == {
            "type": "unbank",
            "seq": bank_seq,
            "took_back": [{"type": "bank", "seq": bank_seq, "player_id": "bob", "amount": 5}],
        }
        game.roll(1, 2)
        assert game.view["last_correction"] is None

    def test_unbank_is_not_an_undo_target_but_undo_takes_it_back_with_its_roll(self) -> None:
        game = started()
        game.roll(2, 3)
        roll_seq = game.seq
        game.bank("bob", by_banker=True)
        unbank(game, "bob")
        assert game.timeline.last_undoable() == roll_seq
        assert [c["type"] for c in game.view["undo_preview"]["takes_back"]] == [
            "roll",
            "bank",
            "unbank",
        ]

    def test_undoing_a_later_roll_keeps_an_unbank_made_before_it(self) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("bob", by_banker=True)
        unbank(game, "bob")
        game.roll(4, 5)
        game.undo()
        assert game.score("bob") == 0 and not game.banked("bob")

    def test_a_bank_from_the_players_own_phone_is_not_allowed(self) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("ann")
        assert game.refused(BANKER, {"type": "unbank", "player_id": "ann"}) == "not_allowed"

    def test_a_bank_that_ended_the_round_is_round_over(self) -> None:
        game = started("Ann", "Bob")
        game.roll(2, 3)
        game.bank("ann")
        game.bank("bob", by_banker=True)
        assert game.state.round == 2
        assert game.refused(BANKER, {"type": "unbank", "player_id": "bob"}) == "round_over"

    def test_a_bank_of_an_earlier_round_is_round_over(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.bank("bob", by_banker=True)
        game.roll(3, 4)
        game.roll(2, 3)
        assert game.refused(BANKER, {"type": "unbank", "player_id": "bob"}) == "round_over"

    def test_a_player_who_has_not_banked_is_nothing_to_undo(self) -> None:
        game = started()
        game.roll(2, 3)
        assert game.refused(BANKER, {"type": "unbank", "player_id": "cy"}) == "nothing_to_undo"

    @pytest.mark.parametrize("actor", [P("bob"), SPECTATOR])
    def test_only_the_banker_unbanks(self, actor: Actor) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("bob", by_banker=True)
        assert game.refused(actor, {"type": "unbank", "player_id": "bob"}) == "not_allowed"

    def test_unknown_players_lobby_and_finished_games(self) -> None:
        game = started()
        game.roll(2, 3)
        assert game.refused(BANKER, {"type": "unbank", "player_id": "zed"}) == "unknown_player"
        lobby = table()
        assert lobby.refused(BANKER, {"type": "unbank", "player_id": "ann"}) == "not_started"
        over = finished()
        assert over.refused(BANKER, {"type": "unbank", "player_id": "ann"}) == "game_over"

    def test_an_unbank_without_player_id_is_bad_message(self) -> None:
        game = started()
        assert game.refused(BANKER, {"type": "unbank"}) == "bad_message"


# ============================================================================ late arrivals
class TestLateSeats:
    def test_the_banker_seats_a_latecomer_at_the_end_at_zero_in_the_round(self) -> None:
        game = started()
        game.roll(2, 3)
        pid = seat(game, "Dee")
        dee = game.view["players"][-1]
        assert (dee["id"], dee["score"], dee["banked"], dee["waiting"]) == (pid, 0, False, True)
        assert game.refused(P(pid), {"type": "bank"}) == "just_joined"
        game.roll(1, 2)
        assert not game.view["players"][-1]["waiting"]
        game.bank(pid)
        assert game.score(pid) == 8

    def test_a_latecomer_takes_the_turn_after_the_last_seat(self) -> None:
        game = started(roll_entry="roller")
        game.roll(2, 3, P("ann"))
        game.roll(2, 3, P("bob"))
        seat(game, "Dee")
        game.roll(2, 3, P("cy"))
        assert game.state.turn == "dee"

    def test_a_latecomer_between_rounds_may_bank_from_the_first_roll(self) -> None:
        game = started()
        seat(game, "Dee")
        assert not game.state.players[-1].waiting
        game.roll(2, 3)
        game.bank("dee")
        assert game.score("dee") == 5

    def test_without_the_bankers_token_a_seat_after_the_start_is_not_in_lobby(self) -> None:
        game = started()
        assert seat_refused(game, "Dee", by_banker=False) == "not_in_lobby"

    def test_nobody_is_seated_in_a_finished_game(self) -> None:
        assert seat_refused(finished(), "Dee", by_banker=True) == "not_in_lobby"

    def test_a_late_name_must_be_free(self) -> None:
        assert seat_refused(started(), "ann", by_banker=True) == "name_taken"

    def test_a_seat_without_a_phone_says_so(self) -> None:
        game = table()
        seat(game, "Dee", phone=False, by_banker=False)
        assert [p["has_phone"] for p in game.view["players"]] == [True, True, True, False]
        assert game.timeline.effective[-1][1].data == {
            "player_id": "dee",
            "name": "Dee",
            "phone": False,
        }

    def test_the_log_marks_a_late_seat(self) -> None:
        game = started()
        seat(game, "Dee", phone=False)
        assert game.timeline.effective[-1][1].data == {
            "player_id": "dee",
            "name": "Dee",
            "phone": False,
            "late": True,
        }

    def test_open_to_join_only_in_the_lobby_and_never_for_a_tournament_table(self) -> None:
        game = table()
        assert game.view["open_to_join"] is True
        game.start()
        assert game.view["open_to_join"] is False
        rules = BankRules()
        link = {"parent": "TOUR", "tournament": {"game": 1, "table": 1}}
        assert rules.view(rules.create(link), lambda _: False)["open_to_join"] is False

    def test_an_undo_of_the_roll_before_a_late_seat_keeps_the_seat(self) -> None:
        game = started()
        game.roll(2, 3)
        seat(game, "Dee")
        preview = game.view["undo_preview"]["takes_back"]
        assert [c["type"] for c in preview] == ["roll"]  # the seat is not taken back
        game.undo()
        dee = game.state.player("dee")
        assert dee is not None and dee.score == 0
        assert not dee.waiting  # the round has no roll now: Dee may bank from the first one
        assert game.state.roll_count == 0
        game.roll(4, 5)
        game.bank("dee")
        assert game.score("dee") == 9

    def test_a_replayed_log_keeps_a_late_seat_through_an_undo_too(self) -> None:
        room, created = Room.create("NITE", BANK, {"rounds": 2}, ["bh"], NOW, 64)
        log = [created]

        def command(role: str, pid: str | None, cmd: dict[str, Any]) -> None:
            log.extend(
                handle(
                    room, {"k": "cmd", "role": role, "pid": pid, "cmd": cmd}, NOW, (2, 3)
                ).entries
            )

        for pid in ("ann", "bob"):
            command("player", pid, {"type": "join", "player_id": pid, "name": pid.title()})
        command("banker", None, {"type": "start"})
        command("banker", None, {"type": "roll", "dice": [2, 3]})
        late = {"type": "join", "player_id": "dee", "name": "Dee", "by_banker": True}
        command("player", "dee", late)  # the HTTP route's late seat, as the banker asked
        command("banker", None, {"type": "undo"})
        assert [e["type"] for e in log[-3:]] == ["roll", "join", "undo"]
        names = [p["name"] for p in room.view["players"]]
        assert names == ["Ann", "Bob", "Dee"] and room.view["roll_count"] == 0
        replayed = Timeline.replay(BANK.rules, log)  # a restart reads the same seats
        assert [p.name for p in replayed.state.players] == names


# ============================================================================ play again
class TestPlayAgain:
    def test_play_again_asks_for_a_room_with_the_same_seats_and_options(self) -> None:
        game = started(rounds=1, roll_entry="roller")
        game.rolls((2, 3), (4, 2), (6, 5))
        game.apply(BANKER, {"type": "roll", "dice": [3, 4]})
        event = game.apply(BANKER, {"type": "play_again", "drop": ["bob"]})
        assert event.data == {
            "drop": ["bob"],
            "seats": [{"player_id": "ann", "name": "Ann"}, {"player_id": "cy", "name": "Cy"}],
        }
        (effect,) = event.effects
        assert (effect.kind, effect.id) == ("create_room", "again")
        assert effect.data == {
            "game": "bank",
            "options": {"rounds": 1, "roll_entry": "roller"},
            "seats": event.data["seats"],
        }

    def test_seats_without_a_phone_are_named_in_the_options(self) -> None:
        game = table()
        seat(game, "Dee", phone=False, by_banker=False)
        game.start()
        game.apply(BANKER, {"type": "roll", "dice": [1, 2]})
        for pid in ("ann", "bob", "cy", "dee"):
            game.bank(pid, by_banker=pid == "dee")
        while game.state.status != "finished":
            game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
        (effect,) = game.apply(BANKER, {"type": "play_again"}).effects
        assert effect.data["options"]["no_phone"] == ["dee"]
        new = BankRules().create({**effect.data["options"], "parent": "OLD1"})
        assert new.previous_game == "OLD1" and new.no_phone == frozenset({"dee"})

    def test_the_spawned_code_becomes_next_game(self) -> None:
        game = finished()
        game.apply(BANKER, {"type": "play_again"})
        assert game.view["next_game"] is None
        event = game.rules.decide(game.state, Actor(SYSTEM), Spawned("again", "NEW2"), DiceChance())
        game.seq += 1
        game.timeline.apply(event, game.seq)
        assert game.view["next_game"] == "NEW2"
        with pytest.raises(RuleError) as info:
            game.rules.decide(game.state, Actor(SYSTEM), Spawned("again", "NEW2"), DiceChance())
        assert info.value.code == "already_playing_again"

    def test_only_the_server_says_where_the_next_game_is(self) -> None:
        game = finished()
        game.apply(BANKER, {"type": "play_again"})
        with pytest.raises(RuleError) as info:
            game.rules.decide(game.state, BANKER, Spawned("again", "NEW2"), DiceChance())
        assert info.value.code == "not_allowed"

    def test_play_again_before_the_end_is_not_finished(self) -> None:
        game = started()
        assert game.refused(BANKER, {"type": "play_again"}) == "not_finished"

    @pytest.mark.parametrize("actor", [P("ann"), SPECTATOR])
    def test_only_the_banker_plays_again(self, actor: Actor) -> None:
        assert finished().refused(actor, {"type": "play_again"}) == "not_allowed"

    def test_play_again_twice_is_already_playing_again(self) -> None:
        game = finished()
        game.apply(BANKER, {"type": "play_again"})
        assert game.refused(BANKER, {"type": "play_again"}) == "already_playing_again"

    def test_dropping_an_unknown_player_or_everyone_is_refused(self) -> None:
        game = finished()
        assert game.refused(BANKER, {"type": "play_again", "drop": ["zed"]}) == "unknown_player"
        everyone = {"type": "play_again", "drop": ["ann", "bob", "cy"]}
        assert game.refused(BANKER, everyone) == "not_enough_players"

    def test_a_tournament_table_does_not_play_again(self) -> None:
        rules = BankRules()
        state = rules.create({"parent": "TOUR", "tournament": {"game": 1, "table": 1}})
        with pytest.raises(RuleError) as info:
            rules.decide(state, BANKER, BANK.internal('{"type": "play_again"}'), DiceChance())
        assert info.value.code == "not_allowed"


# ============================================================================ too late
class TestTooLate:
    def test_a_bank_just_after_a_seven_ended_a_round_reads_too_late(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
        with pytest.raises(RuleError) as info:
            decide_bank(game, "bob")
        assert (info.value.code, info.value.message) == (
            "round_over",
            "Too late: the 7 came first.",
        )

    def test_before_the_first_roll_of_the_game_the_message_is_unchanged(self) -> None:
        with pytest.raises(RuleError) as info:
            decide_bank(started(), "bob")
        assert info.value.message == "No round is live: wait for the first roll."

    def test_after_everyone_banked_the_message_is_unchanged(self) -> None:
        game = started("Ann")
        game.roll(2, 3)
        game.bank("ann")
        with pytest.raises(RuleError) as info:
            decide_bank(game, "ann")
        assert info.value.message == "No round is live: wait for the first roll."


def decide_bank(game: Table, player_id: str) -> Event:
    return game.rules.decide(
        game.state, P(player_id), BANK.internal('{"type": "bank"}'), DiceChance()
    )


# ============================================================================ in a room
def room_with(*pids: str, rounds: int = 2) -> Room:
    room, _ = Room.create("NITE", BANK, {"rounds": rounds, "roll_entry": "banker"}, ["bh"], NOW, 64)
    for pid in pids:
        join = {"type": "join", "player_id": pid, "name": pid.title()}
        handle(
            room,
            {"k": "cmd", "role": "player", "pid": pid, "th": f"th-{pid}", "cmd": join},
            NOW,
            (1, 1),
        )
    send(room, "banker", None, {"type": "start"})
    return room


def send(
    room: Room, role: str, pid: str | None, cmd: dict[str, Any], dice: tuple[int, int] = (1, 2)
) -> dict[str, Any]:
    out = handle(room, {"k": "cmd", "role": role, "pid": pid, "cmd": cmd}, NOW, dice)
    assert out.reply is not None
    reply: dict[str, Any] = orjson.loads(out.reply)
    return reply


def test_the_undo_preview_is_exactly_what_the_rooms_undo_takes_back() -> None:
    room = room_with("ann", "bob", "cy")
    send(room, "banker", None, {"type": "roll", "dice": [2, 3]})
    send(room, "banker", None, {"type": "roll", "total": 9})
    send(room, "player", "ann", {"type": "bank"})
    send(room, "banker", None, {"type": "bank", "player_id": "bob"})
    send(room, "banker", None, {"type": "unbank", "player_id": "bob"})
    preview = room.view["undo_preview"]
    effective = [seq for seq, _ in room.timeline.effective]
    assert [c["seq"] for c in preview["takes_back"]] == [
        s for s in effective if s >= preview["seq"]
    ]
    assert send(room, "banker", None, {"type": "undo"})["type"] == "ack"
    assert room.timeline.effective[-1][0] < preview["seq"]
    assert room.view["round_log"]["rolls"][-1]["total"] == 5


def test_undo_after_play_again_is_refused_and_changes_nothing() -> None:
    room = room_with("ann", rounds=1)
    for dice in ((2, 3), (4, 2), (6, 5), (3, 4)):
        send(room, "banker", None, {"type": "roll", "dice": list(dice)})
    reply = send(room, "banker", None, {"type": "play_again"})
    assert reply["type"] == "ack"
    assert [e.kind for e in room.effects.values()] == ["create_room"]
    before = room.snapshot()
    refused = send(room, "banker", None, {"type": "undo"})
    assert refused["code"] == "game_over"
    assert room.snapshot() == before


def test_a_spawned_from_a_socket_is_bad_message() -> None:
    with pytest.raises(Exception) as info:
        BANK.parse('{"type": "spawned", "effect": "again", "code": "X"}')
    assert "Unknown message type" in str(info.value)
