"""Bunco, one scenario per scoring sentence of the seed and per rule and error of the contract.

Nights are driven as the room drives them (decide, then evolve); a refused command is
checked to leave the state unchanged. Seating is drawn by an identity shuffle, so with
12 players the tables start as [p1..p4], [p5..p8], [p9..p12].
"""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from app.games.bunco.rules import BuncoRules, Join, Kick, Ring, Roll, Start
from app.games.bunco.state import BuncoState
from app.games.seam import Event, RuleError, Rules, Seating, Sender
from tests.games.chance import Driver, ScriptedChance, SeededChance

BANKER = Sender("banker")
SPECTATOR = Sender("spectator")


def player(pid: str) -> Sender:
    return Sender("player", pid)


def others(target: int) -> list[int]:
    return [die for die in range(1, 7) if die != target]


def one_point(target: int) -> list[int]:
    return [target, *others(target)[:2]]


def nothing(target: int) -> list[int]:
    return others(target)[:3]


def bunco(target: int) -> list[int]:
    return [target] * 3


def night(players: int = 12, chance: Any = None, **options: Any) -> Driver[Any]:
    options.setdefault("roll_entry", "banker")
    driver: Driver[Any] = Driver(
        BuncoRules(), {"game": "bunco", **options}, chance or ScriptedChance()
    )
    for n in range(1, players + 1):
        driver.send(BANKER, Join("join", f"p{n}", f"P{n}"))
    return driver


def started(players: int = 12, chance: Any = None, **options: Any) -> Driver[Any]:
    driver = night(players, chance, **options)
    driver.send(BANKER, Start("start"))
    return driver


def roll(driver: Driver[Any], table: int, dice: list[int]) -> Event:
    return driver.send(BANKER, Roll("roll", table=table, dice=dice))


def play_round(driver: Driver[Any]) -> None:
    """Every lower table's team 0 scores a point, then High's team 0 rolls a Bunco."""
    target = driver.state.round
    for table in range(len(driver.state.tables) - 1, 0, -1):
        roll(driver, table, one_point(target))
    roll(driver, 0, bunco(target))


def table(driver: Driver[Any], index: int) -> dict[str, Any]:
    tables: list[dict[str, Any]] = driver.view()["tables"]
    return tables[index]


def stats(driver: Driver[Any], pid: str) -> tuple[int, int, int]:
    p = next(p for p in driver.view()["players"] if p["id"] == pid)
    return (p["wins"], p["losses"], p["buncos"])


# -- scoring: the seed's four outcomes -----------------------------------------------------


def test_three_of_the_round_number_is_a_bunco_of_21_and_the_roller_rolls_again() -> None:
    driver = started()
    roll(driver, 1, [1, 1, 1])
    assert table(driver, 1)["scores"] == [21, 0]
    assert table(driver, 1)["roller"] == "p5"
    assert table(driver, 1)["last_roll"] == {"dice": [1, 1, 1], "by": "p5", "points": 21, "seq": 15}
    assert stats(driver, "p5") == (0, 0, 1)


def test_three_of_another_number_scores_5_and_the_roller_rolls_again() -> None:
    driver = started()
    roll(driver, 1, [4, 4, 4])
    assert table(driver, 1)["scores"] == [5, 0]
    assert table(driver, 1)["roller"] == "p5"
    assert stats(driver, "p5") == (0, 0, 0)


def test_one_or_two_of_the_round_number_score_one_each_and_the_roller_rolls_again() -> None:
    driver = started()
    roll(driver, 1, [1, 1, 5])
    assert table(driver, 1)["scores"] == [2, 0]
    roll(driver, 1, [3, 1, 5])
    assert table(driver, 1)["scores"] == [3, 0]
    assert table(driver, 1)["roller"] == "p5"


def test_no_round_number_and_no_triple_scores_nothing_and_passes_the_dice_to_seat_plus_one() -> (
    None
):
    driver = started()
    roll(driver, 1, [2, 3, 5])
    assert table(driver, 1)["scores"] == [0, 0]
    assert table(driver, 1)["roller"] == "p6"
    assert table(driver, 1)["last_roll"]["points"] == 0


def test_points_go_to_the_rollers_team_and_the_dice_go_round_the_table() -> None:
    driver = started()
    for _ in range(4):
        roll(driver, 2, [2, 3, 5])
    assert table(driver, 2)["roller"] == "p9"
    roll(driver, 2, [2, 3, 5])
    roll(driver, 2, [1, 3, 5])
    assert table(driver, 2)["scores"] == [0, 1]


def test_the_round_number_is_the_target_in_round_two() -> None:
    driver = started()
    play_round(driver)
    driver.send(BANKER, Ring("ring"))
    roll(driver, 1, [1, 1, 1])
    assert table(driver, 1)["scores"] == [5, 0]
    roll(driver, 1, [2, 2, 2])
    assert table(driver, 1)["scores"] == [26, 0]
    roll(driver, 1, [2, 1, 3])
    assert table(driver, 1)["scores"] == [27, 0]


# -- start, seating and tables -------------------------------------------------------------


def test_start_seats_the_players_by_lot_and_records_the_seating() -> None:
    chance = SeededChance(7)
    driver = night(12, chance)
    event = driver.send(BANKER, Start("start"))
    drawn = SeededChance(7).shuffle([f"p{n}" for n in range(1, 13)])
    assert event == Event("start", {"seating": [drawn[0:4], drawn[4:8], drawn[8:12]]})
    assert [t["seats"] for t in driver.view()["tables"]] == [drawn[0:4], drawn[4:8], drawn[8:12]]


def test_start_rings_the_first_bell_on_every_table() -> None:
    view = started().view()
    assert (view["status"], view["set"], view["round"], view["phase"]) == (
        "playing",
        1,
        1,
        "playing",
    )
    assert [t["name"] for t in view["tables"]] == ["High", "Middle", "Low"]
    assert [t["roller"] for t in view["tables"]] == ["p1", "p5", "p9"]
    assert all(t["scores"] == [0, 0] and t["last_roll"] is None for t in view["tables"])


@pytest.mark.parametrize(
    ("players", "names"),
    [
        (8, ["High", "Low"]),
        (16, ["High", "Middle 1", "Middle 2", "Low"]),
        (24, ["High", "Middle 1", "Middle 2", "Middle 3", "Middle 4", "Low"]),
    ],
)
def test_every_multiple_of_four_from_8_to_24_is_seated_on_named_tables(
    players: int, names: list[str]
) -> None:
    view = started(players).view()
    assert [t["name"] for t in view["tables"]] == names
    assert all(len(t["seats"]) == 4 for t in view["tables"])


def test_the_lobby_state_has_no_set_round_phase_or_tables() -> None:
    view = night(2, sets=3, roll_entry="roller").view()
    assert view == {
        "game": "bunco",
        "status": "lobby",
        "sets": 3,
        "set": 0,
        "round": 0,
        "phase": None,
        "roll_entry": "roller",
        "players": [
            {"id": "p1", "name": "P1", "connected": False, "wins": 0, "losses": 0, "buncos": 0},
            {"id": "p2", "name": "P2", "connected": False, "wins": 0, "losses": 0, "buncos": 0},
        ],
        "tables": [],
        "rounds_log": [],
        "winners": [],
    }


def test_players_connected_is_the_presence_given_to_the_view() -> None:
    driver = night(2)
    view = driver.rules.view(driver.state, lambda pid: pid == "p2")
    assert [p["connected"] for p in view["players"]] == [False, True]


# -- the bell ------------------------------------------------------------------------------


def test_a_high_team_reaching_21_rings_the_bell_on_every_table() -> None:
    driver = started()
    roll(driver, 1, one_point(1))
    roll(driver, 2, one_point(1))
    for _ in range(20):
        roll(driver, 0, one_point(1))
    assert driver.view()["phase"] == "playing"
    roll(driver, 0, one_point(1))
    view = driver.view()
    assert view["rounds_log"][0]["bell_by"] == "p1"
    assert view["rounds_log"][0]["tables"][0]["scores"] == [21, 0]
    assert (view["phase"], view["round"]) == ("waiting", 2)


def test_a_roll_after_the_bell_at_another_table_is_round_over() -> None:
    driver = started()
    play_round(driver)
    assert driver.refused(BANKER, Roll("roll", table=2, dice=[1, 1, 1])) == "round_over"


def test_lower_tables_may_score_far_more_than_21_without_ringing() -> None:
    driver = started()
    for _ in range(3):
        roll(driver, 2, [1, 1, 1])
    assert table(driver, 2)["scores"] == [63, 0]
    assert driver.view()["phase"] == "playing"


# -- roll-offs ------------------------------------------------------------------------------


def bell_with_middle_tied(driver: Driver[Any]) -> None:
    roll(driver, 2, one_point(1))
    roll(driver, 0, bunco(1))


def test_a_table_tied_at_the_bell_goes_into_a_roll_off_and_only_it_may_roll() -> None:
    driver = started()
    bell_with_middle_tied(driver)
    view = driver.view()
    assert view["phase"] == "rolloff"
    assert [t["rolloff"] for t in view["tables"]] == [False, True, False]
    assert driver.refused(BANKER, Roll("roll", table=2, dice=[1, 1, 1])) == "round_over"
    assert driver.refused(BANKER, Roll("roll", table=0, dice=[1, 1, 1])) == "round_over"
    roll(driver, 1, one_point(1))
    assert table(driver, 1)["scores"] == [1, 0]


def test_a_roll_off_is_one_full_turn_each_for_the_four_players_and_points_add() -> None:
    driver = started()
    bell_with_middle_tied(driver)
    roll(driver, 1, one_point(1))
    roll(driver, 1, nothing(1))
    assert table(driver, 1)["rolloff"] is True  # not tied any more, but 3 turns are left
    roll(driver, 1, one_point(1))
    roll(driver, 1, one_point(1))
    roll(driver, 1, nothing(1))
    roll(driver, 1, nothing(1))
    assert driver.view()["phase"] == "rolloff"
    assert table(driver, 1)["roller"] == "p8"
    roll(driver, 1, nothing(1))
    view = driver.view()
    assert view["phase"] == "waiting"
    assert view["rounds_log"][0]["tables"][1]["scores"] == [1, 2]
    assert view["rounds_log"][0]["tables"][1]["winners"] == ["p6", "p8"]


def test_a_roll_off_starts_with_the_player_holding_the_dice() -> None:
    driver = started(roll_entry="roller")
    driver.send(player("p5"), Roll("roll", dice=nothing(1)))
    driver.send(player("p9"), Roll("roll", dice=one_point(1)))
    driver.send(player("p1"), Roll("roll", dice=bunco(1)))
    assert table(driver, 1)["roller"] == "p6"
    assert driver.refused(player("p5"), Roll("roll", dice=one_point(1))) == "not_your_turn"
    driver.send(player("p6"), Roll("roll", dice=one_point(1)))
    assert table(driver, 1)["scores"] == [0, 1]


def test_still_tied_after_four_turns_another_roll_off_follows() -> None:
    driver = started()
    bell_with_middle_tied(driver)
    for _ in range(4):
        roll(driver, 1, nothing(1))
    assert driver.view()["phase"] == "rolloff"
    assert table(driver, 1)["rolloff"] is True
    roll(driver, 1, [1, 1, 1])  # a Bunco in a roll-off counts as one
    for _ in range(4):
        roll(driver, 1, nothing(1))
    view = driver.view()
    assert view["phase"] == "waiting"
    assert view["rounds_log"][0]["tables"][1]["scores"] == [21, 0]
    assert stats(driver, "p5") == (1, 0, 1)


def test_the_round_ends_when_the_last_of_several_roll_offs_ends() -> None:
    driver = started()
    roll(driver, 0, bunco(1))
    assert [t["rolloff"] for t in driver.view()["tables"]] == [False, True, True]
    roll(driver, 1, one_point(1))
    for _ in range(4):
        roll(driver, 1, nothing(1))
    assert driver.view()["phase"] == "rolloff"
    roll(driver, 2, one_point(1))
    for _ in range(4):
        roll(driver, 2, nothing(1))
    assert driver.view()["phase"] == "waiting"


# -- after the round: wins, movement, waiting, ring -----------------------------------------


def test_each_winner_gets_a_win_and_each_loser_a_loss() -> None:
    driver = started()
    roll(driver, 1, nothing(1))
    roll(driver, 1, one_point(1))
    play_round(driver)
    result = driver.view()["rounds_log"][0]["tables"]
    assert result[1]["winners"] == ["p6", "p8"] and result[1]["losers"] == ["p5", "p7"]
    assert [stats(driver, f"p{n}")[:2] for n in range(5, 9)] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert [stats(driver, f"p{n}")[:2] for n in (1, 3, 9, 11)] == [(1, 0)] * 4


def test_high_winners_go_to_low_and_the_others_one_table_up_pairing_stayers_with_arrivals() -> None:
    driver = started()
    play_round(driver)
    seats = [t["seats"] for t in driver.view()["tables"]]
    assert seats == [
        ["p2", "p4", "p5", "p7"],
        ["p6", "p8", "p9", "p11"],
        ["p10", "p12", "p1", "p3"],
    ]
    assert driver.view()["rounds_log"][0]["tables"][0]["seats"] == ["p1", "p2", "p3", "p4"]


def test_with_two_tables_the_winners_swap_tables() -> None:
    driver = started(8)
    play_round(driver)
    assert [t["seats"] for t in driver.view()["tables"]] == [
        ["p2", "p4", "p5", "p7"],
        ["p6", "p8", "p1", "p3"],
    ]


def test_after_the_round_the_room_waits_for_the_ring_with_fresh_tables() -> None:
    driver = started()
    play_round(driver)
    view = driver.view()
    assert (view["status"], view["set"], view["round"], view["phase"]) == (
        "playing",
        1,
        2,
        "waiting",
    )
    for t in view["tables"]:
        assert (t["scores"], t["roller"], t["last_roll"], t["rolloff"]) == (
            [0, 0],
            t["seats"][0],
            None,
            False,
        )


def test_a_ring_from_a_player_at_the_high_table_starts_the_next_round() -> None:
    driver = started()
    play_round(driver)
    assert driver.refused(player("p1"), Ring("ring")) == "not_allowed"  # moved to Low
    driver.send(player("p5"), Ring("ring"))
    assert driver.view()["phase"] == "playing"
    roll(driver, 2, one_point(2))
    assert table(driver, 2)["scores"] == [1, 0]


def test_after_round_six_the_next_set_begins_at_round_one() -> None:
    driver = started(sets=2)
    for _ in range(6):
        play_round(driver)
        driver.send(BANKER, Ring("ring"))
    view = driver.view()
    assert (view["set"], view["round"], view["phase"]) == (2, 1, "playing")
    assert [(r["set"], r["round"]) for r in view["rounds_log"]] == [(1, n) for n in range(1, 7)]


def test_after_the_last_round_the_night_is_finished_and_the_most_wins_win() -> None:
    driver = started(8)
    for n in range(6):
        play_round(driver)
        if n < 5:
            driver.send(BANKER, Ring("ring"))
    view = driver.view()
    assert (view["status"], view["phase"], view["set"], view["round"]) == ("finished", None, 1, 6)
    assert view["tables"][0]["seats"] == view["rounds_log"][-1]["tables"][0]["seats"]
    assert view["tables"][0]["scores"] == [21, 0]
    assert driver.rules.finished(driver.state)
    wins = {p["id"]: p["wins"] for p in view["players"]}
    top = max(wins.values())
    assert view["winners"] == [pid for pid, w in wins.items() if w == top]
    assert all(p["wins"] + p["losses"] == 6 for p in view["players"])
    assert sum(p["buncos"] for p in view["players"]) == 6


def test_all_players_tied_on_wins_are_winners() -> None:
    driver = started(8, sets=1)
    for n in range(6):
        play_round(driver)
        if n < 5:
            driver.send(BANKER, Ring("ring"))
    wins = [p["wins"] for p in driver.view()["players"]]
    assert len(driver.view()["winners"]) == wins.count(max(wins)) >= 2


# -- roll entry -----------------------------------------------------------------------------


def test_a_virtual_roll_is_drawn_by_chance_and_logged_with_its_dice() -> None:
    chance = ScriptedChance((1, 1, 4), (5, 5, 5))
    driver = started(roll_entry="virtual", chance=chance)
    event = driver.send(player("p5"), Roll("roll"))
    assert event == Event("roll", {"table": 1, "player_id": "p5", "dice": [1, 1, 4]})
    event = driver.send(BANKER, Roll("roll", table=1))
    assert event.data["dice"] == [5, 5, 5] and event.data["player_id"] == "p5"
    roll(driver, 1, [1, 2, 3])  # the host may still enter dice
    assert table(driver, 1)["scores"] == [8, 0]


def test_in_roller_mode_the_player_with_the_dice_enters_them() -> None:
    driver = started(roll_entry="roller")
    event = driver.send(player("p9"), Roll("roll", dice=[1, 6, 6]))
    assert event == Event("roll", {"table": 2, "player_id": "p9", "dice": [1, 6, 6]})


def test_a_host_roll_is_made_by_the_tables_current_roller() -> None:
    driver = started()
    roll(driver, 2, nothing(1))
    assert roll(driver, 2, nothing(1)).data["player_id"] == "p10"


# -- undo (the room's generic undo under BuncoRules.undo) -------------------------------------


def test_undo_takes_back_the_last_roll_of_the_room_at_any_table() -> None:
    driver = started()
    roll(driver, 0, one_point(1))
    before = driver.view()
    roll(driver, 2, [1, 1, 1])
    driver.undo(BANKER)
    assert driver.view() == before


def test_undo_of_the_roll_that_ended_a_round_and_the_ring_after_it_restores_the_round() -> None:
    driver = started()
    roll(driver, 1, one_point(1))
    roll(driver, 2, one_point(1))
    before = driver.view()
    roll(driver, 0, bunco(1))
    driver.send(BANKER, Ring("ring"))
    driver.undo(BANKER)
    assert driver.view() == before


def test_undo_is_for_the_host_and_needs_a_roll() -> None:
    driver = night(12)
    assert BuncoRules.undo.roles == {"banker"}
    with pytest.raises(RuleError) as lobby:
        driver.undo(BANKER)
    assert lobby.value.code == "nothing_to_undo"
    driver.send(BANKER, Start("start"))
    with pytest.raises(RuleError) as none_yet:
        driver.undo(BANKER)
    assert none_yet.value.code == "nothing_to_undo"
    roll(driver, 0, one_point(1))
    with pytest.raises(RuleError) as by_player:
        driver.undo(player("p1"))
    assert by_player.value.code == "not_allowed"


# -- join and kick ----------------------------------------------------------------------------


def test_a_join_stores_the_trimmed_name_and_seats_the_player() -> None:
    driver = night(0)
    event = driver.send(BANKER, Join("join", "x", "  Amy  "))
    assert event == Event("join", {"player_id": "x", "name": "Amy"})
    assert driver.rules.seating(event) == Seating(seated=("x",))
    assert driver.rules.player_ids(driver.state) == ["x"]


def test_a_kick_in_the_lobby_removes_the_player_and_frees_its_seat() -> None:
    driver = night(3)
    event = driver.send(BANKER, Kick("kick", "p2"))
    assert driver.rules.seating(event) == Seating(unseated=("p2",))
    assert driver.rules.player_ids(driver.state) == ["p1", "p3"]


def test_bunco_rules_fill_the_game_seam() -> None:
    rules: Rules[BuncoState] = BuncoRules()
    assert (rules.name, rules.creator) == ("bunco", "banker")
    assert rules.undo.events == {"roll"}
    # The policy's texts are the messages players read (the room fixes the codes).
    assert rules.undo.nothing_left == "There is no roll to take back."
    assert rules.undo.not_allowed == "Only the host can undo."


def test_create_takes_defaults_and_refuses_bad_options() -> None:
    rules = BuncoRules()
    view = rules.view(rules.create({"game": "bunco"}), lambda pid: False)
    assert (view["sets"], view["roll_entry"]) == (1, "virtual")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"sets": 0}, "bad_sets"),
        ({"sets": 11}, "bad_sets"),
        ({"sets": True}, "bad_sets"),
        ({"sets": "2"}, "bad_sets"),
        ({"roll_entry": "dealer"}, "bad_roll_entry"),
    ]
    for options, code in cases:
        with pytest.raises(RuleError) as refused:
            rules.create(options)
        assert refused.value.code == code


def test_commands_parse_strictly_from_wire_json() -> None:
    adapter = pydantic.TypeAdapter(Roll)
    parsed = adapter.validate_json('{"type": "roll", "table": 1, "dice": [1, 2, 3], "id": "a"}')
    assert parsed == Roll("roll", table=1, dice=[1, 2, 3])
    for text in [
        '{"type": "roll", "table": "1"}',
        '{"type": "roll", "table": 1.0}',
        '{"type": "roll", "dice": [1, 2, true]}',
        '{"type": "roll", "dice": [1, 2, "3"]}',
        '{"type": "ring"}',
    ]:
        with pytest.raises(pydantic.ValidationError):
            adapter.validate_json(text)


# -- errors, in the contract's order; each refusal leaves the state unchanged ----------------


def lobby(roll_entry: str = "banker") -> Driver[Any]:
    return night(12, roll_entry=roll_entry)


def playing(roll_entry: str = "banker") -> Driver[Any]:
    return started(roll_entry=roll_entry)


def waiting(roll_entry: str = "banker") -> Driver[Any]:
    driver = started(roll_entry=roll_entry)
    play_round(driver)
    return driver


def rolloff(roll_entry: str = "banker") -> Driver[Any]:
    driver = started(roll_entry=roll_entry)
    bell_with_middle_tied(driver)
    return driver


def finished(roll_entry: str = "banker") -> Driver[Any]:
    driver = started(8, roll_entry=roll_entry)
    for n in range(6):
        play_round(driver)
        if n < 5:
            driver.send(BANKER, Ring("ring"))
    return driver


def full_lobby(roll_entry: str = "banker") -> Driver[Any]:
    return night(24, roll_entry=roll_entry)


P1, P5 = player("p1"), player("p5")
REFUSALS = [
    # bad_message
    ("playing", "banker", BANKER, Roll("roll", table=0, dice=[1, 2]), "bad_message"),
    ("playing", "banker", BANKER, Roll("roll", table=0, dice=[1, 2, 3, 4]), "bad_message"),
    ("playing", "banker", BANKER, Roll("roll", table=0, dice=[0, 2, 3]), "bad_message"),
    ("playing", "banker", BANKER, Roll("roll", table=0, dice=[1, 2, 7]), "bad_message"),
    ("playing", "roller", P1, Roll("roll"), "bad_message"),
    ("playing", "banker", BANKER, Roll("roll", table=0), "bad_message"),
    ("playing", "virtual", BANKER, Roll("roll"), "bad_message"),
    ("playing", "banker", BANKER, Roll("roll", dice=[1, 2, 3]), "bad_message"),
    ("playing", "virtual", SPECTATOR, Roll("roll", dice=[9, 9, 9]), "bad_message"),
    ("lobby", "banker", BANKER, Join("join", "x", "   "), "bad_name"),
    ("lobby", "banker", BANKER, Join("join", "x", "A" * 25), "bad_name"),
    ("lobby", "banker", BANKER, Join("join", "x", "Amy\u200b"), "bad_name"),
    # not_allowed
    ("playing", "virtual", SPECTATOR, Roll("roll"), "not_allowed"),
    ("lobby", "banker", SPECTATOR, Start("start"), "not_allowed"),
    ("waiting", "banker", SPECTATOR, Ring("ring"), "not_allowed"),
    ("lobby", "banker", SPECTATOR, Kick("kick", "p1"), "not_allowed"),
    ("lobby", "banker", P1, Start("start"), "not_allowed"),
    ("lobby", "banker", P1, Kick("kick", "p2"), "not_allowed"),
    ("playing", "roller", P1, Roll("roll", table=0, dice=[1, 2, 3]), "not_allowed"),
    ("playing", "virtual", P1, Roll("roll", dice=[1, 2, 3]), "not_allowed"),
    ("playing", "banker", P1, Roll("roll", dice=[1, 2, 3]), "not_allowed"),
    ("waiting", "banker", P1, Ring("ring"), "not_allowed"),
    ("lobby", "banker", P1, Ring("ring"), "not_allowed"),
    ("finished", "banker", P1, Ring("ring"), "not_allowed"),  # p1 ended at Low
    # unknown_player
    ("lobby", "banker", BANKER, Kick("kick", "nobody"), "unknown_player"),
    # not_started
    ("lobby", "banker", BANKER, Roll("roll", table=0, dice=[1, 2, 3]), "not_started"),
    ("lobby", "banker", BANKER, Roll("roll", table=9, dice=[1, 2, 3]), "not_started"),
    ("lobby", "roller", P1, Roll("roll", dice=[1, 2, 3]), "not_started"),
    ("lobby", "banker", BANKER, Ring("ring"), "not_started"),
    # unknown_table
    ("playing", "banker", BANKER, Roll("roll", table=3, dice=[1, 2, 3]), "unknown_table"),
    ("playing", "banker", BANKER, Roll("roll", table=-1, dice=[1, 2, 3]), "unknown_table"),
    ("finished", "banker", BANKER, Roll("roll", table=2, dice=[1, 2, 3]), "unknown_table"),
    # already_started
    ("playing", "banker", BANKER, Start("start"), "already_started"),
    ("finished", "banker", BANKER, Start("start"), "already_started"),
    # not_in_lobby
    ("playing", "banker", BANKER, Kick("kick", "p1"), "not_in_lobby"),
    ("playing", "banker", BANKER, Join("join", "x", "Zoe"), "not_in_lobby"),
    # name_taken, room_full (POST /players)
    ("lobby", "banker", BANKER, Join("join", "x", " p1 "), "name_taken"),
    ("full_lobby", "banker", BANKER, Join("join", "x", "Zoe"), "room_full"),
    # game_over
    ("finished", "banker", BANKER, Ring("ring"), "game_over"),
    ("finished", "banker", player("p2"), Ring("ring"), "game_over"),  # p2 sits at High
    # round_over
    ("waiting", "banker", BANKER, Roll("roll", table=0, dice=[1, 2, 3]), "round_over"),
    ("waiting", "roller", P5, Roll("roll", dice=[1, 2, 3]), "round_over"),
    ("waiting", "roller", P1, Roll("roll", dice=[1, 2, 3]), "round_over"),
    ("rolloff", "banker", BANKER, Roll("roll", table=2, dice=[1, 2, 3]), "round_over"),
    ("rolloff", "roller", player("p9"), Roll("roll", dice=[1, 2, 3]), "round_over"),
    ("finished", "banker", BANKER, Roll("roll", table=0, dice=[1, 2, 3]), "round_over"),
    ("finished", "roller", P1, Roll("roll", dice=[1, 2, 3]), "round_over"),
    # round_in_progress
    ("playing", "banker", BANKER, Ring("ring"), "round_in_progress"),
    ("playing", "banker", P1, Ring("ring"), "round_in_progress"),
    ("rolloff", "banker", BANKER, Ring("ring"), "round_in_progress"),
    # not_your_turn
    ("playing", "roller", player("p2"), Roll("roll", dice=[1, 2, 3]), "not_your_turn"),
    ("playing", "virtual", player("p6"), Roll("roll"), "not_your_turn"),
    ("rolloff", "roller", player("p6"), Roll("roll", dice=[1, 2, 3]), "not_your_turn"),
    ("playing", "roller", player("ghost"), Roll("roll", dice=[1, 2, 3]), "not_your_turn"),
]
SETUPS = {
    "lobby": lobby,
    "playing": playing,
    "waiting": waiting,
    "rolloff": rolloff,
    "finished": finished,
    "full_lobby": full_lobby,
}


@pytest.mark.parametrize(
    ("setup", "roll_entry", "sender", "command", "code"),
    REFUSALS,
    ids=[f"{r[4]}-{r[0]}-{r[2].by}-{i}" for i, r in enumerate(REFUSALS)],
)
def test_a_refused_command_gets_its_error_and_changes_nothing(
    setup: str, roll_entry: str, sender: Sender, command: Any, code: str
) -> None:
    driver = SETUPS[setup](roll_entry)
    assert driver.refused(sender, command) == code


@pytest.mark.parametrize("players", [0, 4, 7, 10, 13, 22])
def test_a_start_with_a_count_that_cannot_be_seated_is_bad_player_count(players: int) -> None:
    driver = night(players)
    assert driver.refused(BANKER, Start("start")) == "bad_player_count"
    assert driver.view()["status"] == "lobby"


def test_an_unknown_command_is_bad_message() -> None:
    assert playing().refused(BANKER, object()) == "bad_message"
