"""One scenario per sentence of the BANK! rule sheet (seeds 000 and 001) and per rule of
issue 2, played through the pure rules (`BankRules.decide/evolve/view`) and, for undo,
the `Timeline` that replays without the undone roll.

Seating in most scenarios: Ann, Bob, Cy (joined in that order; ids "ann", "bob", "cy").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from app.games.bank.rules import BankRules, BankState, Dice, roll_value
from app.games.seam import Event, RuleError
from app.games.seam import Sender as Actor
from app.rooms.timeline import Timeline
from tests.bank_support import decide, view

BANKER = Actor("banker")
SPECTATOR = Actor("spectator")


def P(player_id: str) -> Actor:
    return Actor("player", player_id)


class Table:
    """A game driven the way the room drives it: decide, then evolve (through a Timeline)."""

    def __init__(
        self,
        *names: str,
        rounds: int = 20,
        roll_entry: str = "banker",
        max_players: int = 50,
    ) -> None:
        self.rules = BankRules(max_players)
        self.timeline: Timeline[BankState] = Timeline(
            self.rules, {"game": "bank", "rounds": rounds, "roll_entry": roll_entry}
        )
        self.seq = 1
        for name in names:
            self.join(name)

    # -- reading -------------------------------------------------------------------
    @property
    def state(self) -> BankState:
        return self.timeline.state

    @property
    def view(self) -> dict[str, Any]:
        return view(self.rules, self.state)

    def score(self, player_id: str) -> int:
        player = self.state.player(player_id)
        assert player is not None
        return player.score

    def scores(self) -> dict[str, int]:
        return {p.id: p.score for p in self.state.players}

    def banked(self, player_id: str) -> bool:
        player = self.state.player(player_id)
        assert player is not None
        return player.banked

    # -- acting --------------------------------------------------------------------
    def apply(self, actor: Actor, command: Mapping[str, Any], chance: Dice = (1, 2)) -> Event:
        event = decide(self.rules, self.state, actor, command, chance)
        self.seq += 1
        self.timeline.apply(event, self.seq)
        return event

    def join(self, name: str, player_id: str | None = None) -> str:
        pid = player_id or name.strip().lower()
        self.apply(P(pid), {"type": "join", "player_id": pid, "name": name})
        return pid

    def start(self) -> Event:
        return self.apply(BANKER, {"type": "start"})

    def roll(self, a: int, b: int, actor: Actor = BANKER) -> Event:
        return self.apply(actor, {"type": "roll", "dice": [a, b]})

    def rolls(self, *dice: tuple[int, int]) -> None:
        for a, b in dice:
            self.roll(a, b)

    def bank(self, player_id: str, *, by_banker: bool = False) -> Event:
        if by_banker:
            return self.apply(BANKER, {"type": "bank", "player_id": player_id})
        return self.apply(P(player_id), {"type": "bank"})

    def kick(self, player_id: str) -> Event:
        return self.apply(BANKER, {"type": "kick", "player_id": player_id})

    def undo(self) -> int:
        undone = self.timeline.last_undoable()
        assert undone is not None
        self.seq += 1
        self.timeline.undo(undone)
        return undone

    def refused(self, actor: Actor, command: Mapping[str, Any], chance: Dice = (1, 2)) -> str:
        """The error code of a refused command; the state is untouched."""
        before, view_before = self.state, self.view
        with pytest.raises(RuleError) as info:
            decide(self.rules, self.state, actor, command, chance)
        assert self.state == before
        assert self.view == view_before
        assert info.value.message
        return info.value.code


def table(*names: str, **options: Any) -> Table:
    return Table(*(names or ("Ann", "Bob", "Cy")), **options)


def started(*names: str, **options: Any) -> Table:
    game = table(*names, **options)
    game.start()
    return game


def finish_last_round_with_seven(game: Table) -> None:
    """Four rolls, the fourth a 7 (the caller has set up a 1-round game)."""
    game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
    assert game.state.status == "finished"


def finish_last_round_with_all_banked(game: Table) -> None:
    game.roll(2, 3)
    for p in game.state.players:
        game.bank(p.id)
    assert game.state.status == "finished"


# ============================================================================ starting out
class TestStartingOut:
    def test_a_new_room_waits_in_the_lobby_before_round_one(self) -> None:
        view = table().view
        assert view["status"] == "lobby"
        assert view["round"] == 0
        assert view["roll_count"] == 0
        assert view["bank"] == 0
        assert view["turn"] is None
        assert view["last_roll"] is None
        assert view["rounds_log"] == []
        assert view["winners"] == []

    def test_every_players_name_is_entered_in_seating_order(self) -> None:
        view = table("Ann", "Bob", "Cy").view
        assert [(p["id"], p["name"], p["score"], p["banked"]) for p in view["players"]] == [
            ("ann", "Ann", 0, False),
            ("bob", "Bob", 0, False),
            ("cy", "Cy", 0, False),
        ]

    def test_most_people_play_twenty_rounds_so_that_is_the_default(self) -> None:
        assert BankRules().create({}).rounds == 20
        assert BankRules().create({}).roll_entry == "banker"

    @pytest.mark.parametrize("rounds", [10, 15, 20, 1, 100])
    def test_ten_fifteen_or_twenty_rounds_can_be_chosen_and_anything_from_1_to_100(
        self, rounds: int
    ) -> None:
        assert table(rounds=rounds).view["rounds"] == rounds

    @pytest.mark.parametrize("rounds", [0, -1, 101, "20", 20.0, True, None])
    def test_a_number_of_rounds_outside_1_to_100_is_refused(self, rounds: Any) -> None:
        with pytest.raises(RuleError) as info:
            BankRules().create({"rounds": rounds})
        assert info.value.code == "bad_rounds"

    @pytest.mark.parametrize("roll_entry", ["banker", "roller", "virtual"])
    def test_the_three_roll_entry_modes_are_accepted(self, roll_entry: str) -> None:
        assert table(roll_entry=roll_entry).view["roll_entry"] == roll_entry

    @pytest.mark.parametrize("roll_entry", ["", "dealer", None, 1])
    def test_an_unknown_roll_entry_mode_is_refused(self, roll_entry: Any) -> None:
        with pytest.raises(RuleError) as info:
            BankRules().create({"roll_entry": roll_entry})
        assert info.value.code == "bad_roll_entry"

    def test_start_begins_round_one_with_the_first_player_to_join(self) -> None:
        game = started()
        view = game.view
        assert view["status"] == "playing"
        assert view["round"] == 1
        assert view["roll_count"] == 0
        assert view["bank"] == 0
        assert view["turn"] == "ann"

    def test_round_one_is_opened_by_the_first_remaining_player_after_a_kick(self) -> None:
        game = table()
        game.kick("ann")
        game.start()
        assert game.view["turn"] == "bob"

    def test_a_game_needs_at_least_one_player_to_start(self) -> None:
        game = Table()
        assert game.refused(BANKER, {"type": "start"}) == "not_enough_players"

    def test_a_game_of_one_player_can_be_played(self) -> None:
        game = started("Solo", rounds=1)
        game.rolls((1, 1), (2, 2), (3, 3))
        assert game.view["turn"] == "solo"
        game.bank("solo")
        assert game.view["status"] == "finished"
        assert game.view["winners"] == ["solo"]
        assert game.score("solo") == 12


# ==================================================================== getting the game rolling
class TestGettingTheGameRolling:
    def test_first_player_rolls_and_the_total_two_plus_three_is_five_points(self) -> None:
        game = started()
        event = game.roll(2, 3)
        assert event == Event("roll", {"dice": [2, 3], "player_id": "ann"})
        assert game.view["bank"] == 5
        assert game.view["roll_count"] == 1

    def test_banker_enters_the_number_for_the_player_whose_turn_it_is(self) -> None:
        game = started()
        game.roll(2, 3)
        assert game.view["last_roll"] == {"dice": [2, 3], "total": 5, "by": "ann", "seq": game.seq}

    def test_the_next_player_rolls_and_does_the_same_thing(self) -> None:
        game = started()
        game.roll(2, 3)
        assert game.view["turn"] == "bob"
        game.roll(4, 2)
        assert game.view["last_roll"]["by"] == "bob"
        assert game.view["bank"] == 11
        assert game.view["turn"] == "cy"

    def test_turns_go_round_the_table_in_seating_order_and_wrap_around(self) -> None:
        game = started()
        rollers = []
        for dice in [(1, 2), (2, 3), (3, 5), (4, 5), (5, 6), (6, 4), (1, 3)]:
            game.roll(*dice)
            rollers.append(game.view["last_roll"]["by"])
        assert rollers == ["ann", "bob", "cy", "ann", "bob", "cy", "ann"]

    def test_as_each_player_rolls_the_roll_is_added_to_the_shared_bank(self) -> None:
        game = started()
        banks = []
        for dice in [(2, 3), (4, 2), (6, 5), (1, 3), (6, 2)]:
            game.roll(*dice)
            banks.append(game.view["bank"])
        assert banks == [5, 11, 22, 26, 34]


# ================================================================================ rolling a 7
class TestRollingASeven:
    @pytest.mark.parametrize("roll_number", [1, 2, 3])
    @pytest.mark.parametrize("dice", [(1, 6), (2, 5), (3, 4), (4, 3), (5, 2), (6, 1)])
    def test_a_seven_in_the_first_three_rolls_is_worth_seventy(
        self, roll_number: int, dice: tuple[int, int]
    ) -> None:
        game = started()
        for _ in range(roll_number - 1):
            game.roll(2, 3)
        before = game.view["bank"]
        game.roll(*dice)
        assert game.view["bank"] == before + 70
        assert game.view["round"] == 1
        assert game.view["roll_count"] == roll_number

    def test_three_sevens_in_the_safe_rolls_make_two_hundred_and_ten(self) -> None:
        game = started()
        game.rolls((1, 6), (2, 5), (3, 4))
        assert game.view["bank"] == 210
        assert game.view["status"] == "playing"
        assert game.view["round"] == 1

    def test_seven_on_the_third_roll_does_not_end_the_round(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (3, 4))
        assert game.view["round"] == 1
        assert game.view["roll_count"] == 3
        assert game.view["rounds_log"] == []

    @pytest.mark.parametrize("dice", [(1, 6), (3, 4), (6, 1)])
    def test_seven_after_third_roll_ends_round(self, dice: tuple[int, int]) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.roll(*dice)
        view = game.view
        assert view["round"] == 2
        assert view["roll_count"] == 0
        assert view["bank"] == 0
        assert view["rounds_log"] == [{"round": 1, "ended_by": "seven", "bank": 22, "banked": []}]
        assert view["last_roll"] == {"dice": list(dice), "total": 7, "by": "ann", "seq": game.seq}

    def test_a_seven_on_any_later_roll_ends_the_round_too(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5), (1, 2), (6, 6), (5, 3))
        assert game.view["roll_count"] == 6
        game.roll(5, 2)
        assert game.view["round"] == 2
        assert game.view["rounds_log"][0]["ended_by"] == "seven"
        assert game.view["rounds_log"][0]["bank"] == (22 + 3) * 2 + 8

    def test_players_who_have_not_banked_score_nothing_when_the_seven_ends_the_round(
        self,
    ) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.bank("bob")
        game.roll(1, 3)
        game.roll(3, 4)
        assert game.scores() == {"ann": 0, "bob": 22, "cy": 0}
        assert game.view["rounds_log"][0]["banked"] == [
            {"player_id": "bob", "amount": 22, "seq": game.seq - 2}
        ]
        assert game.view["rounds_log"][0]["bank"] == 26

    def test_points_saved_in_earlier_rounds_remain_when_a_seven_ends_a_round(self) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("ann")
        game.bank("bob")
        game.bank("cy")
        assert game.view["round"] == 2
        game.rolls((6, 6), (1, 2), (2, 5))
        game.bank("cy")
        game.roll(6, 1)
        assert game.scores() == {"ann": 5, "bob": 5, "cy": 5 + 12 + 3 + 70}


# ============================================================================ rolling doubles
class TestRollingDoubles:
    @pytest.mark.parametrize(("face", "added"), [(1, 2), (2, 4), (3, 6), (4, 8), (5, 10), (6, 12)])
    @pytest.mark.parametrize("roll_number", [1, 2, 3])
    def test_doubles_in_the_first_three_rolls_add_only_their_face_value(
        self, face: int, added: int, roll_number: int
    ) -> None:
        game = started()
        for _ in range(roll_number - 1):
            game.roll(2, 3)
        before = game.view["bank"]
        game.roll(face, face)
        assert game.view["bank"] == before + added

    def test_two_ones_add_two_and_two_fives_add_ten(self) -> None:
        game = started()
        game.roll(1, 1)
        assert game.view["bank"] == 2
        game.roll(5, 5)
        assert game.view["bank"] == 12

    @pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
    def test_doubles_from_the_fourth_roll_double_the_bank(self, face: int) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.roll(face, face)
        assert game.view["bank"] == 44
        assert game.view["roll_count"] == 4

    def test_doubles_can_happen_more_than_once_and_compound(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.rolls((1, 1), (6, 6), (3, 3))
        assert game.view["bank"] == 22 * 8
        game.roll(2, 4)
        game.roll(5, 5)
        assert game.view["bank"] == (22 * 8 + 6) * 2

    @pytest.mark.parametrize(
        ("dice", "added"), [((1, 2), 3), ((2, 6), 8), ((6, 5), 11), ((4, 6), 10), ((1, 3), 4)]
    )
    def test_other_totals_from_the_fourth_roll_add_their_face_value(
        self, dice: tuple[int, int], added: int
    ) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.roll(*dice)
        assert game.view["bank"] == 22 + added

    @pytest.mark.parametrize(
        ("bank", "number", "dice", "after"),
        [
            (0, 1, (3, 4), 70),
            (70, 2, (6, 6), 82),
            (82, 3, (2, 5), 152),
            (152, 4, (2, 5), None),
            (152, 4, (4, 4), 304),
            (304, 5, (4, 4), 608),
            (608, 9, (1, 2), 611),
            (10, 3, (1, 1), 12),
        ],
    )
    def test_roll_value_follows_the_safe_and_risky_rules(
        self, bank: int, number: int, dice: Dice, after: int | None
    ) -> None:
        assert roll_value(bank, number, dice) == after


# ============================================================================= calling BANK
class TestCallingBank:
    def test_any_player_may_bank_regardless_of_whose_turn_it_is(self) -> None:
        game = started()
        game.roll(2, 3)
        assert game.view["turn"] == "bob"
        game.bank("cy")
        assert game.score("cy") == 5
        assert game.view["turn"] == "bob"

    def test_the_current_bank_is_added_to_the_players_personal_score(self) -> None:
        game = started()
        game.rolls((2, 3), (1, 6))
        event = game.bank("ann")
        assert event == Event("bank", {"player_id": "ann", "amount": 75})
        assert game.score("ann") == 75
        assert game.banked("ann")
        assert game.view["bank"] == 75, "banking does not empty the shared BANK"

    @pytest.mark.parametrize("rolls_before", [1, 2, 3])
    def test_a_player_may_bank_during_the_safe_rolls(self, rolls_before: int) -> None:
        game = started()
        for _ in range(rolls_before):
            game.roll(1, 6)
        game.bank("bob")
        assert game.score("bob") == 70 * rolls_before

    def test_a_player_may_bank_between_any_two_later_rolls(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5), (2, 2))
        game.bank("ann")
        game.roll(1, 3)
        game.bank("bob")
        assert game.scores() == {"ann": 44, "bob": 48, "cy": 0}

    def test_the_banker_banks_on_behalf_of_a_player_who_called_bank(self) -> None:
        game = started()
        game.roll(5, 6)
        event = game.bank("bob", by_banker=True)
        assert event == Event("bank", {"player_id": "bob", "amount": 11, "by_banker": True})
        assert game.score("bob") == 11

    def test_a_player_naming_itself_in_its_own_bank_is_accepted(self) -> None:
        game = started()
        game.roll(5, 6)
        game.apply(P("bob"), {"type": "bank", "player_id": "bob"})
        assert game.score("bob") == 11

    def test_a_bank_before_the_first_roll_of_the_game_is_round_over(self) -> None:
        game = started()
        assert game.refused(P("ann"), {"type": "bank"}) == "round_over"
        assert game.refused(BANKER, {"type": "bank", "player_id": "bob"}) == "round_over"

    def test_a_bank_just_after_the_seven_that_ended_a_round_is_round_over(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
        assert game.view["round"] == 2
        assert game.refused(P("bob"), {"type": "bank"}) == "round_over"
        assert game.scores() == {"ann": 0, "bob": 0, "cy": 0}

    def test_a_bank_after_everyone_banked_and_before_the_next_first_roll_is_round_over(
        self,
    ) -> None:
        game = started()
        game.roll(2, 3)
        for pid in ("ann", "bob", "cy"):
            game.bank(pid)
        assert game.refused(P("ann"), {"type": "bank"}) == "round_over"

    def test_there_is_no_limit_to_how_many_players_may_bank_the_same_total(self) -> None:
        game = started("Ann", "Bob", "Cy", "Dee", "Eve")
        game.rolls((2, 3), (4, 2), (6, 5), (6, 6))
        for pid in ("ann", "bob", "cy", "dee"):
            game.bank(pid)
        assert game.scores() == {"ann": 44, "bob": 44, "cy": 44, "dee": 44, "eve": 0}

    def test_a_player_may_only_bank_once_per_round(self) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("ann")
        game.roll(4, 2)
        assert game.refused(P("ann"), {"type": "bank"}) == "already_banked"
        assert game.refused(BANKER, {"type": "bank", "player_id": "ann"}) == "already_banked"
        assert game.score("ann") == 5

    def test_a_banked_player_cannot_roll_for_the_rest_of_the_round(self) -> None:
        game = started(roll_entry="roller")
        game.roll(2, 3, actor=P("ann"))
        game.bank("bob")
        assert game.refused(P("bob"), {"type": "roll", "dice": [1, 2]}) == "already_banked"

    def test_a_banked_players_turn_is_skipped(self) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("cy")
        game.roll(1, 2)
        assert game.view["last_roll"]["by"] == "bob"
        assert game.view["turn"] == "ann"
        game.roll(1, 3)
        assert game.view["turn"] == "bob"

    def test_a_bank_by_the_player_whose_turn_it_is_passes_the_turn(self) -> None:
        game = started()
        game.roll(2, 3)
        assert game.view["turn"] == "bob"
        game.bank("bob")
        assert game.view["turn"] == "cy"

    def test_the_turn_skips_every_banked_player_in_a_row(self) -> None:
        game = started("Ann", "Bob", "Cy", "Dee")
        game.roll(2, 3)
        game.bank("cy")
        game.bank("dee")
        game.bank("bob")
        assert game.view["turn"] == "ann"
        game.roll(1, 2)
        assert game.view["turn"] == "ann"

    def test_the_shared_bank_keeps_growing_while_someone_has_not_banked(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.bank("ann")
        game.bank("bob")
        game.rolls((1, 2), (3, 3), (6, 2))
        assert game.view["bank"] == (22 + 3) * 2 + 8
        assert game.view["round"] == 1
        game.bank("cy")
        assert game.score("cy") == 58

    def test_a_bank_is_final_so_a_later_seven_does_not_take_it_back(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.bank("ann")
        game.roll(3, 4)
        assert game.score("ann") == 22

    def test_a_bank_from_the_players_phone_cannot_be_taken_back(self) -> None:
        game = started()
        game.roll(2, 3)
        game.bank("ann")
        assert game.refused(BANKER, {"type": "unbank", "player_id": "ann"}) == "not_allowed"
        for kind in ("cancel",):
            assert game.refused(BANKER, {"type": kind, "player_id": "ann"}) == "bad_message"


# ============================================================================ ending a round
class TestEndingARound:
    def test_a_round_ends_when_every_player_has_banked(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2))
        game.bank("ann")
        first_seq = game.seq
        game.roll(6, 5)
        game.bank("bob")
        game.bank("cy")
        view = game.view
        assert view["round"] == 2
        assert view["rounds_log"] == [
            {
                "round": 1,
                "ended_by": "all_banked",
                "bank": 22,
                "banked": [
                    {"player_id": "ann", "amount": 11, "seq": first_seq},
                    {"player_id": "bob", "amount": 22, "seq": first_seq + 2},
                    {"player_id": "cy", "amount": 22, "seq": first_seq + 3},
                ],
            }
        ]
        assert game.scores() == {"ann": 11, "bob": 22, "cy": 22}

    def test_the_next_round_starts_with_bank_zero_roll_count_zero_and_everyone_active(
        self,
    ) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.bank("ann")
        game.bank("cy")
        game.roll(3, 4)
        view = game.view
        assert (view["round"], view["bank"], view["roll_count"]) == (2, 0, 0)
        assert [p["banked"] for p in view["players"]] == [False, False, False]

    def test_at_the_start_of_a_new_round_every_player_may_roll_and_bank_again(self) -> None:
        game = started(roll_entry="roller")
        game.roll(2, 3, actor=P("ann"))
        game.bank("ann")
        game.bank("bob")
        game.bank("cy")
        assert game.view["round"] == 2
        assert game.view["turn"] == "bob"
        game.roll(1, 2, actor=P("bob"))
        game.bank("ann")
        game.bank("bob")
        assert game.scores() == {"ann": 8, "bob": 8, "cy": 5}

    def test_a_bank_of_zero_cannot_happen_in_the_next_round(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
        game.roll(1, 1)
        game.bank("ann")
        assert game.score("ann") == 2


# ==================================================================== who rolls first in a round
class TestWhoStartsARound:
    def test_after_a_seven_the_next_round_is_opened_by_the_player_after_its_roller(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5), (1, 2), (3, 4))
        assert game.view["last_roll"]["by"] == "bob"
        assert game.view["turn"] == "cy"

    def test_the_round_after_a_seven_by_the_last_seat_is_opened_by_the_first_seat(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5), (1, 2), (3, 3), (3, 4))
        assert game.view["last_roll"]["by"] == "cy"
        assert game.view["turn"] == "ann"

    def test_after_everyone_banked_the_next_round_is_opened_after_the_last_roller(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2))
        for pid in ("cy", "ann", "bob"):
            game.bank(pid)
        assert game.view["round"] == 2
        assert game.view["turn"] == "cy"

    def test_a_player_who_banked_last_round_may_open_the_next(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2))  # Ann, Bob; Cy's turn
        game.bank("cy")  # Cy banks on its turn: the turn passes to Ann
        game.roll(6, 5)  # Ann
        game.roll(3, 4)  # Bob's 7 on roll 4
        assert game.view["last_roll"]["by"] == "bob"
        assert game.view["turn"] == "cy"

    def test_the_dice_keep_going_round_the_table_over_several_rounds(self) -> None:
        game = started()
        openers = [game.view["turn"]]
        for _ in range(4):
            game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
            openers.append(game.view["turn"])
        # 4 rolls per round: Ann, Bob, Cy, Ann -> Bob opens; Bob, Cy, Ann, Bob -> Cy opens...
        assert openers == ["ann", "bob", "cy", "ann", "bob"]

    def test_a_single_player_opens_every_round(self) -> None:
        game = started("Solo")
        game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
        assert game.view["turn"] == "solo"


# ============================================================================ ending the game
class TestEndingTheGame:
    @pytest.mark.parametrize("rounds", [1, 3])
    def test_the_game_finishes_after_the_chosen_number_of_rounds(self, rounds: int) -> None:
        game = started(rounds=rounds)
        for number in range(1, rounds + 1):
            assert game.view["status"] == "playing"
            assert game.view["round"] == number
            game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
        assert game.view["status"] == "finished"
        assert len(game.view["rounds_log"]) == rounds

    def test_ten_rounds_is_one_tournament_session(self) -> None:
        game = started(rounds=10)
        for _ in range(10):
            game.roll(2, 3)
            for pid in ("ann", "bob", "cy"):
                game.bank(pid)
        assert game.view["status"] == "finished"
        assert game.scores() == {"ann": 50, "bob": 50, "cy": 50}

    def test_a_finished_game_shows_the_last_round_and_no_bank_rolls_or_turn(self) -> None:
        game = started(rounds=2)
        game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
        game.rolls((1, 2), (2, 2), (6, 6), (6, 1))
        view = game.view
        assert view["status"] == "finished"
        assert view["round"] == 2
        assert view["roll_count"] == 0
        assert view["bank"] == 0
        assert view["turn"] is None
        assert view["last_roll"] == {"dice": [6, 1], "total": 7, "by": "bob", "seq": game.seq}
        assert [p["banked"] for p in view["players"]] == [False, False, False]

    def test_a_players_score_accumulates_across_all_rounds(self) -> None:
        game = started(rounds=3)
        game.roll(6, 6)
        game.bank("ann")
        game.rolls((1, 2), (2, 3), (3, 4))  # 12 + 3 + 5 -> a 7 on roll 4 ends round 1
        game.rolls((2, 2), (1, 6))
        game.bank("ann")
        game.bank("bob")
        game.rolls((1, 2), (3, 3), (2, 5))  # round 2 ends on roll 5
        game.roll(4, 5)
        game.bank("ann")
        game.bank("bob")
        game.bank("cy")
        assert game.view["status"] == "finished"
        assert game.scores() == {"ann": 12 + 74 + 9, "bob": 74 + 9, "cy": 9}
        assert game.view["winners"] == ["ann"]

    def test_the_player_with_the_highest_score_wins(self) -> None:
        game = started(rounds=1)
        game.rolls((2, 3), (4, 2))
        game.bank("bob")
        game.roll(6, 5)
        game.bank("ann")
        game.roll(3, 4)
        assert game.scores() == {"ann": 22, "bob": 11, "cy": 0}
        assert game.view["winners"] == ["ann"]

    def test_every_player_with_the_top_score_wins_a_tie(self) -> None:
        game = started(rounds=1)
        game.rolls((2, 3), (4, 2))
        game.bank("cy")
        game.bank("ann")
        game.roll(3, 4)
        game.roll(3, 4)
        assert game.view["winners"] == ["ann", "cy"]

    def test_everyone_wins_when_nobody_scored(self) -> None:
        game = started(rounds=1)
        game.rolls((2, 3), (4, 2), (6, 5), (3, 4))
        assert game.view["winners"] == ["ann", "bob", "cy"]

    def test_there_are_no_winners_before_the_game_finishes(self) -> None:
        game = started(rounds=2)
        assert game.view["winners"] == []
        game.roll(2, 3)
        game.bank("ann")
        game.roll(3, 4)
        game.roll(3, 4)
        game.roll(3, 4)
        assert game.view["round"] == 2
        assert game.view["winners"] == []

    def test_a_full_game_matches_a_hand_computation(self) -> None:
        game = started("Ann", "Bob", "Cy", "Dee", rounds=3)
        # Round 1: 8, 70, 10 | Bob banks 88 | x2 = 176 | Ann, Cy bank 176 | +5 = 181 | 7.
        game.rolls((2, 6), (3, 4), (5, 5))
        game.bank("bob")
        game.roll(4, 4)
        game.bank("ann")
        game.bank("cy")
        game.roll(1, 4)
        game.roll(2, 5)
        # Round 2 opened by the seat after the 7's roller.
        opener = game.view["turn"]
        # Round 2: 70, 70, 70 = 210 | everyone banks.
        game.rolls((1, 6), (6, 1), (2, 5))
        for pid in ("dee", "cy", "bob", "ann"):
            game.bank(pid)
        # Round 3: 3, 4, 5 = 12 | x2 x2 = 48 | Dee banks | 7 ends it.
        game.rolls((1, 2), (1, 3), (1, 4), (6, 6), (1, 1))
        game.bank("dee")
        game.roll(4, 3)
        # Round 1's rolls: Ann, Bob, Cy, Dee, then Dee again (the others had banked): Ann opens.
        assert opener == "ann"
        assert game.view["status"] == "finished"
        assert game.scores() == {
            "ann": 176 + 210,
            "bob": 88 + 210,
            "cy": 176 + 210,
            "dee": 210 + 48,
        }
        assert game.view["winners"] == ["ann", "cy"]
        assert [r["ended_by"] for r in game.view["rounds_log"]] == ["seven", "all_banked", "seven"]


# ==================================================================== error codes, in order
def lobby(**options: Any) -> Table:
    return table(**options)


def live(**options: Any) -> Table:
    game = started(**options)
    first = game.state.turn
    game.roll(2, 3, actor=P(first) if options.get("roll_entry") == "roller" else BANKER)
    return game


def finished_by_seven(**options: Any) -> Table:
    game = started(rounds=1, **options)
    finish_last_round_with_seven(game)
    return game


def finished_by_all_banked(**options: Any) -> Table:
    game = started(rounds=1, **options)
    finish_last_round_with_all_banked(game)
    return game


ROLL = {"type": "roll", "dice": [3, 4]}
ROLL_NO_DICE = {"type": "roll"}
BANK_SELF = {"type": "bank"}
START = {"type": "start"}


def bank_for(pid: str) -> dict[str, Any]:
    return {"type": "bank", "player_id": pid}


def kick(pid: str) -> dict[str, Any]:
    return {"type": "kick", "player_id": pid}


ERROR_ORDER_CASES: list[tuple[str, Any, Actor, dict[str, Any], str]] = [
    # 1. bad_message comes before everything the rules check.
    (
        "roll without dice in banker mode, from a player, in the lobby",
        lobby,
        P("bob"),
        ROLL_NO_DICE,
        "bad_message",
    ),
    (
        "roll without dice in roller mode, from a spectator",
        lambda: live(roll_entry="roller"),
        SPECTATOR,
        ROLL_NO_DICE,
        "bad_message",
    ),
    (
        "roll without dice by the banker outside virtual mode",
        live,
        BANKER,
        ROLL_NO_DICE,
        "bad_message",
    ),
    ("banker's bank without player_id, even in the lobby", lobby, BANKER, BANK_SELF, "bad_message"),
    (
        "banker's bank without player_id after the end",
        finished_by_seven,
        BANKER,
        BANK_SELF,
        "bad_message",
    ),
    ("an unknown command type", live, BANKER, {"type": "shuffle"}, "bad_message"),
    # 2. not_allowed before unknown_player and the state checks.
    ("a player's roll in banker mode, in the lobby", lobby, P("bob"), ROLL, "not_allowed"),
    ("a player's roll in banker mode, on its turn", live, P("bob"), ROLL, "not_allowed"),
    (
        "a player's roll in banker mode, after the end",
        finished_by_seven,
        P("bob"),
        ROLL,
        "not_allowed",
    ),
    (
        "a player's dice in virtual mode, on its turn",
        lambda: started(roll_entry="virtual"),
        P("ann"),
        ROLL,
        "not_allowed",
    ),
    (
        "a player's dice in virtual mode, in the lobby",
        lambda: lobby(roll_entry="virtual"),
        P("ann"),
        ROLL,
        "not_allowed",
    ),
    ("a spectator's roll", live, SPECTATOR, ROLL, "not_allowed"),
    ("a spectator's bank", live, SPECTATOR, BANK_SELF, "not_allowed"),
    ("a spectator's bank naming a player", live, SPECTATOR, bank_for("ann"), "not_allowed"),
    ("a spectator's start", lobby, SPECTATOR, START, "not_allowed"),
    ("a spectator's kick", lobby, SPECTATOR, kick("ann"), "not_allowed"),
    ("a player's start in the lobby", lobby, P("ann"), START, "not_allowed"),
    ("a player's start after start", live, P("ann"), START, "not_allowed"),
    ("a player's kick of an unknown player", lobby, P("ann"), kick("nobody"), "not_allowed"),
    ("a player's kick after start", live, P("ann"), kick("bob"), "not_allowed"),
    ("a player's bank naming someone else", live, P("ann"), bank_for("bob"), "not_allowed"),
    (
        "a player's bank naming an unknown player in the lobby",
        lobby,
        P("ann"),
        bank_for("nobody"),
        "not_allowed",
    ),
    # 3. unknown_player before the state checks.
    (
        "banker's bank for an unknown player in the lobby",
        lobby,
        BANKER,
        bank_for("nobody"),
        "unknown_player",
    ),
    (
        "banker's bank for an unknown player in a live round",
        live,
        BANKER,
        bank_for("nobody"),
        "unknown_player",
    ),
    (
        "banker's bank for an unknown player after the 7 that ended the game",
        finished_by_seven,
        BANKER,
        bank_for("nobody"),
        "unknown_player",
    ),
    (
        "banker's bank for an unknown player after the end",
        finished_by_all_banked,
        BANKER,
        bank_for("nobody"),
        "unknown_player",
    ),
    (
        "banker's kick of an unknown player after start",
        live,
        BANKER,
        kick("nobody"),
        "unknown_player",
    ),
    (
        "banker's kick of an unknown player in the lobby",
        lobby,
        BANKER,
        kick("nobody"),
        "unknown_player",
    ),
    # 4. not_started / already_started / not_in_lobby / game_over.
    ("banker's roll in the lobby", lobby, BANKER, ROLL, "not_started"),
    (
        "a player's roll in roller mode in the lobby (not its turn either)",
        lambda: lobby(roll_entry="roller"),
        P("bob"),
        ROLL,
        "not_started",
    ),
    (
        "a player's roll in virtual mode in the lobby",
        lambda: lobby(roll_entry="virtual"),
        P("ann"),
        ROLL_NO_DICE,
        "not_started",
    ),
    ("a player's bank in the lobby", lobby, P("ann"), BANK_SELF, "not_started"),
    ("banker's bank for a player in the lobby", lobby, BANKER, bank_for("ann"), "not_started"),
    ("start after start", live, BANKER, START, "already_started"),
    ("start once finished", finished_by_seven, BANKER, START, "already_started"),
    ("kick after start", live, BANKER, kick("bob"), "not_in_lobby"),
    ("kick once finished", finished_by_all_banked, BANKER, kick("bob"), "not_in_lobby"),
    ("banker's roll after the game ended on a 7", finished_by_seven, BANKER, ROLL, "game_over"),
    (
        "banker's roll after the game ended with all banked",
        finished_by_all_banked,
        BANKER,
        ROLL,
        "game_over",
    ),
    (
        "a player's roll in roller mode after the end",
        lambda: finished_by_seven(roll_entry="roller"),
        P("bob"),
        ROLL,
        "game_over",
    ),
    (
        "a player's roll in virtual mode after the end",
        lambda: finished_by_all_banked(roll_entry="virtual"),
        P("ann"),
        ROLL_NO_DICE,
        "game_over",
    ),
    (
        "a player's bank after the game ended with all banked",
        finished_by_all_banked,
        P("ann"),
        BANK_SELF,
        "game_over",
    ),
    (
        "banker's bank after the game ended with all banked",
        finished_by_all_banked,
        BANKER,
        bank_for("ann"),
        "game_over",
    ),
    # ... but a BANK after the 7 that ended the last round is round_over.
    (
        "a player's bank after the 7 that ended the last round",
        finished_by_seven,
        P("ann"),
        BANK_SELF,
        "round_over",
    ),
    (
        "banker's bank after the 7 that ended the last round",
        finished_by_seven,
        BANKER,
        bank_for("cy"),
        "round_over",
    ),
    # 5. round_over: no round is live.
    ("a bank before round one's first roll", lambda: started(), P("cy"), BANK_SELF, "round_over"),
    # 6. already_banked before not_your_turn.
    ("a banked player's roll when it is not its turn", None, P("cy"), ROLL, "already_banked"),
    ("a banked player's bank", None, P("cy"), BANK_SELF, "already_banked"),
    # 7. not_your_turn.
    (
        "a roll in roller mode from a player whose turn it is not",
        lambda: live(roll_entry="roller"),
        P("cy"),
        ROLL,
        "not_your_turn",
    ),
    (
        "a roll in virtual mode from a player whose turn it is not",
        lambda: live(roll_entry="virtual"),
        P("ann"),
        ROLL_NO_DICE,
        "not_your_turn",
    ),
    # 8. not_enough_players.
    ("start with no player", lambda: Table(), BANKER, START, "not_enough_players"),
]


def _cy_banked_in_roller_mode() -> Table:
    game = live(roll_entry="roller")
    game.bank("cy")
    assert game.state.turn == "bob"
    return game


ERROR_ORDER_CASES = [
    (name, setup if setup is not None else _cy_banked_in_roller_mode, actor, cmd, code)
    for name, setup, actor, cmd, code in ERROR_ORDER_CASES
]


@pytest.mark.parametrize(
    ("setup", "actor", "command", "code"),
    [case[1:] for case in ERROR_ORDER_CASES],
    ids=[case[0] for case in ERROR_ORDER_CASES],
)
def test_each_refusal_answers_the_first_error_code_in_protocol_order(
    setup: Any, actor: Actor, command: dict[str, Any], code: str
) -> None:
    game = setup()
    assert game.refused(actor, command) == code


def test_a_roll_from_the_player_whose_turn_it_is_is_accepted_in_roller_mode() -> None:
    game = started(roll_entry="roller")
    event = game.roll(6, 6, actor=P("ann"))
    assert event.data == {"dice": [6, 6], "player_id": "ann"}


def test_in_virtual_mode_the_server_rolls_for_the_player_whose_turn_it_is() -> None:
    game = started(roll_entry="virtual")
    event = game.apply(P("ann"), ROLL_NO_DICE, chance=(4, 5))
    assert event.data == {"dice": [4, 5], "player_id": "ann"}
    assert game.view["bank"] == 9


def test_in_virtual_mode_the_banker_may_type_the_dice_or_let_the_server_roll() -> None:
    game = started(roll_entry="virtual")
    assert game.apply(BANKER, ROLL, chance=(1, 1)).data == {"dice": [3, 4], "player_id": "ann"}
    assert game.apply(BANKER, ROLL_NO_DICE, chance=(2, 2)).data == {
        "dice": [2, 2],
        "player_id": "bob",
    }


def test_in_roller_mode_the_banker_may_still_enter_any_roll() -> None:
    game = started(roll_entry="roller")
    game.roll(1, 2)
    assert game.view["last_roll"]["by"] == "ann"


# ============================================================================ names
class TestNames:
    def test_a_name_is_stored_trimmed(self) -> None:
        game = table("  Ann \t")
        assert game.view["players"][0]["name"] == "Ann"

    @pytest.mark.parametrize(
        "name",
        [
            "A",
            "x" * 24,
            "Ann Lee",
            "Zoë",
            "😀" * 24,  # 24 code points (48 UTF-16 units)
            "e\u0301" * 12,  # 24 code points, 12 graphemes
            "  " + "y" * 24 + "  ",
            "李小龍",
        ],
    )
    def test_a_name_of_one_to_twenty_four_code_points_is_accepted(self, name: str) -> None:
        game = Table()
        game.join(name, player_id="p")
        assert game.view["players"][0]["name"] == name.strip()

    @pytest.mark.parametrize(
        "name",
        [
            "",
            "   ",
            "\t\n",
            "x" * 25,
            "😀" * 25,
            "e\u0301" * 13,
            "Ann\x00",
            "A\tB",
            "A\nB",
            "Ann\x7f",
            "Ann\u0085x",  # NEL (Cc) inside
            "Ann\u200b",  # zero-width space (Cf)
            "A\u200dB",  # zero-width joiner (Cf)
            "\u00adAnn",  # soft hyphen (Cf)
            "Ann\u202e",  # right-to-left override (Cf)
            "\ufeffAnn",  # BOM (Cf)
            "Ann\ud800",  # lone surrogate (Cs)
        ],
    )
    def test_an_empty_too_long_or_invisible_name_is_bad_name(self, name: str) -> None:
        game = table("Bob")
        code = game.refused(P("p"), {"type": "join", "player_id": "p", "name": name})
        assert code == "bad_name"
        assert len(game.state.players) == 1

    @pytest.mark.parametrize(
        ("first", "second"),
        [
            ("Ann", "Ann"),
            ("Ann", "ann"),
            ("Ann", "  ANN  "),
            ("Straße", "STRASSE"),
            ("ΣΊΣΥΦΟΣ", "σίσυφος"),
        ],
    )
    def test_a_name_already_in_the_room_ignoring_case_is_name_taken(
        self, first: str, second: str
    ) -> None:
        game = Table()
        game.join(first, player_id="one")
        code = game.refused(P("two"), {"type": "join", "player_id": "two", "name": second})
        assert code == "name_taken"

    def test_a_kicked_players_name_is_free_again(self) -> None:
        game = table("Ann", "Bob")
        game.kick("ann")
        game.join("ANN", player_id="ann2")
        assert [p["name"] for p in game.view["players"]] == ["Bob", "ANN"]

    def test_players_join_only_in_the_lobby(self) -> None:
        game = started()
        command = {"type": "join", "player_id": "dee", "name": "Dee"}
        assert game.refused(P("dee"), command) == "not_in_lobby"
        finished = finished_by_seven()
        assert finished.refused(P("dee"), command) == "not_in_lobby"

    def test_a_taken_name_after_start_is_not_in_lobby(self) -> None:
        game = started()
        command = {"type": "join", "player_id": "x", "name": "ann"}
        assert game.refused(P("x"), command) == "not_in_lobby"

    def test_a_full_room_refuses_one_more_player(self) -> None:
        game = Table("Ann", "Bob", max_players=2)
        code = game.refused(P("cy"), {"type": "join", "player_id": "cy", "name": "Cy"})
        assert code == "room_full"


# ==================================================================== kick (lobby only)
def test_the_banker_removes_a_player_in_the_lobby() -> None:
    game = table()
    event = game.kick("bob")
    assert event == Event("kick", {"player_id": "bob"})
    assert [p["id"] for p in game.view["players"]] == ["ann", "cy"]


# ============================================================================== undo
class TestUndo:
    def test_undo_returns_the_room_to_exactly_the_state_before_the_last_roll(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2))
        before = game.state
        game.roll(6, 5)
        game.undo()
        assert game.state == before

    def test_undo_takes_back_banks_made_after_the_roll_and_they_may_bank_again(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2))
        game.bank("ann")
        before = game.state
        game.roll(6, 5)
        game.bank("bob")
        game.bank("cy")
        assert game.view["round"] == 2
        game.undo()
        assert game.state == before
        assert game.scores() == {"ann": 11, "bob": 0, "cy": 0}
        game.bank("bob")
        assert game.score("bob") == 11

    def test_undo_of_the_seven_that_ended_a_round_reopens_that_round(self) -> None:
        game = started()
        game.rolls((2, 3), (4, 2), (6, 5))
        game.bank("bob")
        before = game.state
        game.roll(3, 4)
        assert game.view["round"] == 2
        game.undo()
        assert game.state == before
        view = game.view
        assert (view["round"], view["roll_count"], view["bank"], view["turn"]) == (1, 3, 22, "ann")
        assert view["rounds_log"] == []
        assert game.banked("bob")
        game.bank("ann")
        assert game.score("ann") == 22

    def test_undo_after_the_game_finished_resumes_it(self) -> None:
        game = started(rounds=1)
        game.rolls((2, 3), (4, 2), (6, 5))
        game.bank("cy")
        before = game.state
        game.roll(3, 4)
        assert game.view["status"] == "finished"
        assert game.view["winners"] == ["cy"]
        game.undo()
        assert game.state == before
        assert game.view["status"] == "playing"
        assert game.view["winners"] == []

    def test_undo_twice_takes_back_the_two_last_rolls(self) -> None:
        game = started()
        game.roll(2, 3)
        before = game.state
        game.roll(4, 2)
        game.bank("ann")
        game.roll(6, 5)
        game.undo()
        game.undo()
        assert game.state == before

    def test_only_rolls_are_taken_back(self) -> None:
        game = started()
        assert game.timeline.last_undoable() is None
        game.roll(2, 3)
        roll_seq = game.seq
        game.bank("ann")
        assert game.timeline.last_undoable() == roll_seq
        game.undo()
        assert game.timeline.last_undoable() is None
