"""Desert Dynasty scoring: one test per sentence of the seed's "Scoring Per Tournament
Round", "Tournament Bonus" and "Tie-Breaker" sections (quoted above each group), the
contract's additions, then properties over random games (hypothesis)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from app.games.tournament.scoring import (
    Dice,
    Group,
    Scoring,
    as_number,
    competition_places,
    points_halves,
    resolve,
    roll,
    standings,
    start,
    winners,
)


def settle(totals: Mapping[str, int], rolls: list[tuple[str, Dice]]) -> Scoring:
    """The game's scoring after the given rerolls, in order."""
    scoring = start(totals)
    for pid, dice in rolls:
        scoring = roll(scoring, pid, dice)
    return scoring


def points(places: Mapping[str, int | None]) -> dict[str, int | float]:
    return {pid: as_number(points_halves(place)) for pid, place in places.items()}


# "After all 10 App Rounds of a session are complete, rank all players by their
# cumulative personal Bank total for that session."


def test_players_are_ranked_by_their_game_totals_highest_first() -> None:
    scoring = start({"ann": 120, "bob": 940, "cy": 310})
    assert scoring.places == {"bob": 1, "cy": 2, "ann": 3}
    assert scoring.done


# "The top 5 finishers earn points; 6th and beyond get nothing that Tournament Round."


def test_only_the_top_five_earn_points_sixth_and_beyond_get_nothing() -> None:
    totals = {f"p{i}": 1000 - 100 * i for i in range(8)}
    scoring = start(totals)
    earned = points(scoring.places)
    assert [earned[f"p{i}"] for i in range(8)] == [3, 2, 1.5, 1, 0.5, 0, 0, 0]


# "| 1st | 3 | 2nd | 2 | 3rd | 1.5 | 4th | 1 | 5th | 0.5 |"


def test_places_one_to_five_award_3_2_one_and_a_half_1_and_a_half() -> None:
    assert [as_number(points_halves(place)) for place in (1, 2, 3, 4, 5)] == [3, 2, 1.5, 1, 0.5]


def test_whole_points_are_json_integers_and_halves_are_floats() -> None:
    assert type(as_number(6)) is int
    assert type(as_number(3)) is float
    assert as_number(31) == 15.5


def test_a_player_who_did_not_play_a_game_earns_nothing_from_it() -> None:
    assert points_halves(None) == 0


# "+3 points if a player finishes 1st in all 4 Tournament Rounds (a total of 12 points
# from rounds alone, before the bonus is added)."


def test_first_in_all_four_games_earns_12_plus_a_bonus_of_3() -> None:
    results = [{"ann": 1, "bob": 2}] * 4
    table = standings(["ann", "bob"], results, games=4, finished=True)
    ann = table[0]
    assert (ann.player_id, sum(ann.points), ann.bonus, ann.total) == ("ann", 24, 6, 30)
    assert as_number(ann.total) == 15


def test_first_in_three_of_four_games_earns_no_bonus() -> None:
    results = [{"ann": 1, "bob": 2}] * 3 + [{"ann": 2, "bob": 1}]
    table = standings(["ann", "bob"], results, games=4, finished=True)
    assert all(line.bonus == 0 for line in table)


def test_a_player_absent_from_one_game_earns_no_bonus() -> None:
    results = [{"ann": 1}, {"bob": 1}, {"ann": 1, "bob": 2}, {"ann": 1, "bob": 2}]
    table = standings(["ann", "bob"], results, games=4, finished=True)
    assert {line.player_id: line.bonus for line in table} == {"ann": 0, "bob": 0}


def test_the_bonus_is_zero_until_the_tournament_is_finished() -> None:
    results = [{"ann": 1, "bob": 2}] * 4
    table = standings(["ann", "bob"], results, games=4, finished=False)
    assert table[0].bonus == 0


def test_a_tournament_of_one_game_has_no_bonus() -> None:
    table = standings(["ann", "bob"], [{"ann": 1, "bob": 2}], games=1, finished=True)
    assert table[0].bonus == 0


# "Only applies to ties within the top 5 of a Tournament Round's final standings —
# i.e., ties in cumulative totals after all 10 App Rounds."


def test_a_tie_of_game_totals_within_the_top_five_waits_for_a_reroll() -> None:
    scoring = start({"ann": 500, "bob": 400, "cy": 400, "dee": 100})
    assert scoring.pending == (Group((2, 3), ("bob", "cy"), (None, None)),)
    assert scoring.places == {"ann": 1, "dee": 4}


def test_a_tie_for_fifth_and_sixth_is_rerolled_as_fifth_is_at_stake() -> None:
    totals = {"a": 9, "b": 8, "c": 7, "d": 6, "e": 5, "f": 5, "g": 1}
    scoring = start(totals)
    assert [(g.places, g.players) for g in scoring.pending] == [((5, 6), ("e", "f"))]


# "Ties for 6th place and below don't matter, since no points are on the line down there."


def test_ties_for_sixth_and_below_are_never_rerolled_and_share_the_place() -> None:
    totals = {"a": 9, "b": 8, "c": 7, "d": 6, "e": 5, "f": 3, "g": 3, "h": 1}
    scoring = start(totals)
    assert scoring.done
    assert (scoring.places["f"], scoring.places["g"], scoring.places["h"]) == (6, 6, 8)


# "Sudden-death reroll. Any players tied for a top-5 placement each roll the two dice
# once, simultaneously or in turn —"


def test_each_tied_player_rolls_once_and_the_order_of_rolling_does_not_matter() -> None:
    totals = {"ann": 50, "bob": 50, "cy": 50}
    one = settle(totals, [("ann", (1, 2)), ("bob", (6, 6)), ("cy", (3, 3))])
    other = settle(totals, [("cy", (3, 3)), ("ann", (1, 2)), ("bob", (6, 6))])
    assert one.places == other.places == {"bob": 1, "cy": 2, "ann": 3}


def test_a_group_waits_until_every_tied_player_has_rolled() -> None:
    scoring = settle({"ann": 50, "bob": 50, "cy": 50}, [("ann", (1, 2)), ("bob", (6, 6))])
    assert not scoring.done
    assert scoring.pending[0].roll_of("bob") == (6, 6)
    assert scoring.pending[0].roll_of("cy") is None


# "highest single roll wins the tie and takes the higher placement's points;"


def test_the_highest_reroll_takes_the_higher_place_and_its_points() -> None:
    scoring = settle({"ann": 80, "bob": 80}, [("ann", (2, 3)), ("bob", (4, 4))])
    assert scoring.places == {"bob": 1, "ann": 2}
    assert points(scoring.places) == {"bob": 3, "ann": 2}


# "the rest slot in below in the order they rolled."


def test_the_rest_of_a_tied_group_slot_in_below_by_their_rolls() -> None:
    totals = {"top": 900, "a": 50, "b": 50, "c": 50, "d": 50}
    rolls: list[tuple[str, Dice]] = [("a", (1, 1)), ("b", (5, 4)), ("c", (2, 2)), ("d", (6, 5))]
    scoring = settle(totals, rolls)
    assert scoring.places == {"top": 1, "d": 2, "b": 3, "c": 4, "a": 5}


# "If there's a tie on the reroll itself, just reroll again between those specific
# players until it breaks."


def test_a_tied_reroll_is_rolled_again_between_just_those_players() -> None:
    totals = {"a": 50, "b": 50, "c": 50}
    scoring = settle(totals, [("a", (6, 6)), ("b", (3, 4)), ("c", (5, 2))])
    assert scoring.places == {"a": 1}
    assert scoring.pending == (Group((2, 3), ("b", "c"), (None, None)),)


def test_rerolls_go_on_until_the_tie_breaks() -> None:
    rolls: list[tuple[str, Dice]] = [("a", (3, 3)), ("b", (2, 4))]  # 6 and 6
    rolls += [("a", (1, 4)), ("b", (4, 1))]  # 5 and 5
    rolls += [("b", (2, 1)), ("a", (2, 2))]  # 3 and 4: broken
    scoring = settle({"a": 70, "b": 70, "c": 10}, rolls)
    assert scoring.done
    assert scoring.places == {"c": 3, "a": 1, "b": 2}
    assert [g.players for g in scoring.rerolls] == [("a", "b")] * 3
    assert scoring.rerolls[-1].rolls == ((2, 2), (2, 1))


def test_a_group_that_ties_again_is_replaced_by_its_smaller_groups() -> None:
    totals = {p: 40 for p in "abcdef"}
    rolls: list[tuple[str, Dice]] = [
        ("a", (6, 6)),
        ("b", (6, 6)),
        ("c", (1, 1)),
        ("d", (3, 3)),
        ("e", (3, 3)),
        ("f", (5, 6)),
    ]
    scoring = settle(totals, rolls)
    assert [(g.places, g.players) for g in scoring.pending] == [
        ((1, 2), ("a", "b")),
        ((4, 5), ("d", "e")),
    ]
    assert scoring.places == {"f": 3, "c": 6}


def test_equal_rerolls_wholly_below_fifth_share_their_place_without_rolling_again() -> None:
    group = Group((5, 6, 7), ("a", "b", "c"), ((6, 6), (1, 1), (1, 1)))
    assert resolve(group) == ({"a": 5, "b": 6, "c": 6}, ())


def test_equal_rerolls_for_fifth_and_sixth_roll_again() -> None:
    group = Group((4, 5, 6), ("a", "b", "c"), ((6, 6), (1, 1), (1, 1)))
    placed, again = resolve(group)
    assert placed == {"a": 4}
    assert again == (Group((5, 6), ("b", "c"), (None, None)),)


# The contract: overall rank is numbered as places are, winners once finished.


def test_equal_tournament_totals_share_a_rank_and_the_next_rank_skips() -> None:
    results = [{"a": 1, "b": 2, "c": 2, "d": 4}]
    table = standings(["d", "c", "b", "a"], results, games=2, finished=False)
    assert [(line.player_id, line.rank) for line in table] == [
        ("a", 1),
        ("c", 2),
        ("b", 2),
        ("d", 4),
    ]


def test_winners_are_everyone_with_the_top_total_once_finished() -> None:
    results = [{"a": 1, "b": 2}, {"a": 2, "b": 1}]
    table = standings(["a", "b"], results, games=2, finished=True)
    assert winners(table, finished=True) == ["a", "b"]
    assert winners(table, finished=False) == []


def test_competition_places_number_like_1224() -> None:
    assert competition_places({"a": 9, "b": 5, "c": 5, "d": 1}) == {"a": 1, "b": 2, "c": 2, "d": 4}


# Properties.

FAST = settings(max_examples=150, deadline=None)
MAX_ROLLS = 400

totals_of = st.lists(st.integers(0, 6), min_size=1, max_size=12).map(
    lambda values: {f"p{i}": 100 * v for i, v in enumerate(values)}
)
dice_of = st.tuples(st.integers(1, 6), st.integers(1, 6))


FALLBACK: list[Dice] = [(6, 6), (6, 5), (5, 5), (5, 4), (4, 4), (4, 3), (3, 3), (3, 2), (2, 2)]


def dice_source(drawn: list[Dice]) -> Callable[[], Dice]:
    """The drawn dice, then dice of falling totals (over and over), so every game ends."""
    rolls = iter([*drawn, *FALLBACK * (MAX_ROLLS // len(FALLBACK) + 1)])
    return lambda: next(rolls)


def play_out(totals: Mapping[str, int], draw: Callable[[], Dice], seen: list[Group]) -> Scoring:
    """Reroll every pending group (the first one until it is complete) with drawn dice."""
    scoring = start(totals)
    for _ in range(MAX_ROLLS):
        seen.extend(scoring.pending)
        if scoring.done:
            return scoring
        group = scoring.pending[0]
        pid = next(p for p, dice in zip(group.players, group.rolls) if dice is None)
        scoring = roll(scoring, pid, draw())
    raise AssertionError("the rerolls never ended")


rolls_of = st.lists(dice_of, max_size=40)


@FAST
@given(totals_of.filter(lambda t: len(t) >= 5), rolls_of)
def test_one_game_s_points_sum_to_8_with_five_or_more_players(
    totals: dict[str, int], rolls: list[Dice]
) -> None:
    scoring = play_out(totals, dice_source(rolls), [])
    assert sum(points_halves(place) for place in scoring.places.values()) == 16


@FAST
@given(totals_of, rolls_of)
def test_no_reroll_is_ever_asked_of_players_tied_only_below_fifth(
    totals: dict[str, int], rolls: list[Dice]
) -> None:
    seen: list[Group] = []
    play_out(totals, dice_source(rolls), seen)
    assert all(group.places[0] <= 5 for group in seen)
    assert all(len(group.players) >= 2 for group in seen)


@FAST
@given(totals_of, rolls_of)
def test_every_reroll_sequence_that_ends_leaves_distinct_places_one_to_five(
    totals: dict[str, int], rolls: list[Dice]
) -> None:
    scoring = play_out(totals, dice_source(rolls), [])
    top = sorted(place for place in scoring.places.values() if place <= 5)
    assert top == list(range(1, min(5, len(totals)) + 1))
    assert set(scoring.places) == set(totals)


@FAST
@given(st.integers(2, 10), st.integers(1, 8))
def test_a_player_first_in_every_game_has_3_per_game_plus_3(games: int, others: int) -> None:
    ids = ["champ", *(f"p{i}" for i in range(others))]
    results = [{pid: place for place, pid in enumerate(ids, start=1)}] * games
    table = standings(ids, results, games=games, finished=True)
    assert table[0].player_id == "champ"
    assert as_number(table[0].total) == 3 * games + 3


places_of = st.lists(st.one_of(st.none(), st.integers(1, 9)), min_size=6, max_size=6)


@FAST
@given(st.lists(places_of, min_size=1, max_size=4), st.permutations(range(6)), st.booleans())
def test_standings_do_not_depend_on_the_order_players_are_listed(
    games: list[list[int | None]], order: list[int], finished: bool
) -> None:
    ids = [f"p{i}" for i in range(6)]
    results = [dict(zip(ids, places)) for places in games]
    shuffled = [ids[i] for i in order]
    reordered = [{pid: r[pid] for pid in shuffled} for r in results]
    one = standings(ids, results, games=len(games), finished=finished)
    other = standings(shuffled, reordered, games=len(games), finished=finished)
    assert {line.player_id: line for line in one} == {line.player_id: line for line in other}
    assert [line.total for line in one] == [line.total for line in other]
