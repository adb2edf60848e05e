"""A tournament driven decide → evolve as the room would drive it, with scripted dice:
the flow of the contract, every error it names (the state unchanged on refusal),
replay, and the issue's six-player tournament computed by hand."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pydantic
import pytest

from app.games.names import clean_name
from app.games.seam import Effect, Event, RuleError, Seating, Sender
from app.games.tournament.rules import (
    Join,
    Kick,
    Next,
    Reroll,
    Score,
    Spawned,
    TableStatus,
    TournamentRules,
    draw_code,
)
from app.games.tournament.state import TournamentState
from tests.games.tournament.chance import ScriptedChance, code_dice

RULES = TournamentRules()
ORGANISER = Sender("organiser")
SYSTEM = Sender("system")
SPECTATOR = Sender("spectator")
NAMES = {"a": "Ann", "b": "Bob", "c": "Cy", "d": "Dee", "e": "Eve", "f": "Fay"}


def player(pid: str) -> Sender:
    return Sender("player", pid)


class Tourney:
    """One tournament: its state, its log of events, and the dice it will draw."""

    def __init__(self, rules: TournamentRules = RULES, **options: Any) -> None:
        self.rules = rules
        self.options = options
        self.state: TournamentState = rules.create(options)
        self.events: list[Event] = []
        self.chance = ScriptedChance()
        self.online: set[str] = set()

    def send(self, sender: Sender, command: Any) -> Event:
        event = self.rules.decide(self.state, sender, command, self.chance)
        self.events.append(event)
        self.state = self.rules.evolve(self.state, event, len(self.events))
        return event

    def refuse(self, sender: Sender, command: Any, code: str) -> None:
        before, view = self.state, self.view()
        with pytest.raises(RuleError) as refused:
            self.rules.decide(self.state, sender, command, self.chance)
        assert refused.value.code == code
        assert self.state == before
        assert self.view() == view

    def view(self) -> dict[str, Any]:
        return self.rules.view(self.state, lambda pid: pid in self.online)

    def join(self, *pids: str) -> None:
        for pid in pids:
            self.send(player(pid), Join("join", pid, NAMES.get(pid, pid)))

    def next(self, *codes: str, tables: list[list[str]] | None = None) -> Event:
        """`next`, then the server's word that each table room is made (as drawn)."""
        self.chance.add_codes(*codes)
        event = self.send(ORGANISER, Next("next", tables))
        for table in event.data["tables"]:
            effect = f"{event.data['game']}-{table['table']}"
            self.send(SYSTEM, Spawned(effect, table["code"]))
        return event

    def score(self) -> Event:
        """`score`, then each table room's word that it is locked (its totals final)."""
        event = self.send(ORGANISER, Score("score"))
        for table in self.state.tables:
            if not table.locked:
                self.lock(table.table)
        return event

    def lock(self, number: int) -> Event:
        table = self.state.tables[number - 1]
        report = TableStatus("report", table.code, "finished", dict(table.totals or {}))
        return self.send(SYSTEM, replace(report, table=number, locked=True))

    def table(self, number: int, status: str, totals: dict[str, int] | None = None) -> Event:
        code = self.state.tables[number - 1].code
        return self.send(SYSTEM, TableStatus("report", code, status, totals, number))

    def play(self, *totals: dict[str, int]) -> None:
        """Every table of the game in play starts and finishes with these totals."""
        for number, table_totals in enumerate(totals, start=1):
            self.table(number, "playing")
            self.table(number, "finished", table_totals)

    def replayed_view(self) -> dict[str, Any]:
        state = self.rules.create(self.options)
        for seq, event in enumerate(self.events, start=1):
            state = self.rules.evolve(state, event, seq)
        return self.rules.view(state, lambda pid: pid in self.online)


def lobby(*pids: str, **options: Any) -> Tourney:
    tourney = Tourney(**options)
    tourney.join(*pids)
    return tourney


def scoring(**options: Any) -> Tourney:
    """a, b and c played game 1 (one table) and every table is finished."""
    tourney = lobby("a", "b", "c", **options)
    tourney.next("KQF2")
    tourney.play({"a": 300, "b": 200, "c": 100})
    return tourney


def rerolling(**options: Any) -> Tourney:
    """Game 1 scored with b and c tied for 2nd: their reroll is pending."""
    tourney = lobby("a", "b", "c", "d", **options)
    tourney.next("KQF2")
    tourney.play({"a": 300, "b": 200, "c": 200, "d": 50})
    tourney.score()
    return tourney


def finished() -> Tourney:
    tourney = lobby("a", "b", games=1)
    tourney.next("KQF2")
    tourney.play({"a": 10, "b": 5})
    tourney.score()
    return tourney


# -- create ----------------------------------------------------------------------


def test_a_new_tournament_shows_the_contract_s_lobby_state() -> None:
    assert Tourney().view() == {
        "game": "tournament",
        "status": "lobby",
        "games": 4,
        "rounds": 10,
        "roll_entry": "banker",
        "current": 0,
        "players": [],
        "tables": [],
        "reroll": None,
        "results": [],
        "standings": [],
        "winners": [],
    }


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"games": 0}, "bad_games"),
        ({"games": 11}, "bad_games"),
        ({"games": "4"}, "bad_games"),
        ({"games": True}, "bad_games"),
        ({"rounds": 0}, "bad_rounds"),
        ({"rounds": 101}, "bad_rounds"),
        ({"rounds": 2.0}, "bad_rounds"),
        ({"roll_entry": "dealer"}, "bad_roll_entry"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], code: str) -> None:
    with pytest.raises(RuleError) as refused:
        RULES.create(options)
    assert refused.value.code == code


def test_the_organiser_creates_it_and_nobody_may_undo() -> None:
    assert (RULES.name, RULES.creator) == ("tournament", "organiser")
    assert RULES.undo.roles == frozenset()
    assert RULES.undo.events == frozenset()


# -- join and kick -----------------------------------------------------------------


def test_players_join_in_order_and_are_seated_by_their_join() -> None:
    tourney = lobby("a", "b")
    tourney.online = {"b"}
    assert tourney.view()["players"] == [
        {"id": "a", "name": "Ann", "connected": False},
        {"id": "b", "name": "Bob", "connected": True},
    ]
    assert RULES.seating(tourney.events[0]) == Seating(seated=("a",))
    assert RULES.player_ids(tourney.state) == ["a", "b"]


def test_a_name_is_trimmed_and_checked() -> None:
    tourney = Tourney()
    tourney.send(player("a"), Join("join", "a", "  Ann  "))
    assert tourney.state.players[0].name == "Ann"
    tourney.refuse(player("x"), Join("join", "x", "   "), "bad_name")
    tourney.refuse(player("x"), Join("join", "x", "x" * 25), "bad_name")
    tourney.refuse(player("x"), Join("join", "x", "An\u200bn"), "bad_name")
    tourney.refuse(player("x"), Join("join", "x", "ANN"), "name_taken")


def test_a_game_may_ask_for_shorter_names() -> None:
    assert clean_name(" Ann ", max_len=3) == "Ann"
    with pytest.raises(RuleError) as refused:
        clean_name("Anna", max_len=3)
    assert refused.value.code == "bad_name"


def test_joins_are_refused_while_a_game_is_played_and_welcome_between_games() -> None:
    tourney = scoring()
    tourney.refuse(player("x"), Join("join", "x", "Xi"), "not_in_lobby")
    tourney.score()
    assert tourney.state.status == "between"
    tourney.join("d")
    assert RULES.player_ids(tourney.state) == ["a", "b", "c", "d"]


def test_a_full_tournament_refuses_one_more_player() -> None:
    tourney = Tourney(TournamentRules(max_players=2))
    tourney.join("a", "b")
    tourney.refuse(player("c"), Join("join", "c", "Cy"), "room_full")


def test_the_organiser_kicks_a_player_in_the_lobby() -> None:
    tourney = lobby("a", "b")
    event = tourney.send(ORGANISER, Kick("kick", "a"))
    assert RULES.seating(event) == Seating(unseated=("a",))
    assert RULES.player_ids(tourney.state) == ["b"]


def test_kick_errors_come_in_the_contract_s_order() -> None:
    tourney = lobby("a", "b")
    tourney.refuse(player("b"), Kick("kick", "a"), "not_allowed")
    tourney.refuse(ORGANISER, Kick("kick", "zed"), "unknown_player")
    tourney.next("KQF2")
    tourney.refuse(player("b"), Kick("kick", "zed"), "not_allowed")
    tourney.refuse(ORGANISER, Kick("kick", "zed"), "unknown_player")
    tourney.refuse(ORGANISER, Kick("kick", "a"), "not_in_lobby")


# -- next ------------------------------------------------------------------------


def test_next_seats_every_player_in_join_order_at_one_new_bank_room() -> None:
    tourney = lobby("a", "b", games=2, rounds=3, roll_entry="virtual")
    tourney.chance.add_codes("KQF2")
    event = tourney.send(ORGANISER, Next("next"))
    table = {"table": 1, "code": "KQF2", "players": ["a", "b"], "made": False}
    assert event == Event("next", {"game": 1, "tables": [table]})
    assert event.effects == (
        Effect(
            "create_room",
            "1-1",
            {
                "game": "bank",
                "code": "KQF2",
                "options": {
                    "rounds": 3,
                    "roll_entry": "virtual",
                    "tournament": {"game": 1, "table": 1},
                },
                "seats": [{"player_id": "a", "name": "Ann"}, {"player_id": "b", "name": "Bob"}],
            },
        ),
    )
    view = tourney.view()
    assert (view["status"], view["current"], view["tables"]) == ("playing", 1, [])  # not made
    tourney.send(SYSTEM, Spawned("1-1", "KQF2"))
    assert tourney.view()["tables"] == [
        {"table": 1, "code": "KQF2", "players": ["a", "b"], "status": "lobby"}
    ]
    assert tourney.replayed_view() == tourney.view()


def test_a_table_is_named_only_once_its_room_is_made_under_whatever_code() -> None:
    tourney = lobby("a", "b", "c")
    tourney.chance.add_codes("KQF2", "M3NP")
    tourney.send(ORGANISER, Next("next", [["a", "b"], ["c"]]))
    made = tourney.send(SYSTEM, Spawned("1-2", "W7XY"))  # its drawn code was a live room's
    assert made == Event("table_code", {"table": 2, "code": "W7XY"})
    assert [(t["table"], t["code"]) for t in tourney.view()["tables"]] == [(2, "W7XY")]
    tourney.send(SYSTEM, Spawned("1-1", "KQF2"))
    assert [t["code"] for t in tourney.view()["tables"]] == ["KQF2", "W7XY"]
    tourney.refuse(SYSTEM, Spawned("1-1", "KQF2"), "nothing_to_change")  # told twice
    tourney.refuse(SYSTEM, Spawned("2-1", "KQF2"), "stale_table")
    tourney.refuse(ORGANISER, Spawned("1-1", "ZZZZ"), "not_allowed")
    assert tourney.replayed_view() == tourney.view()


def test_a_next_logged_before_tables_waited_for_their_rooms_replays_them_named() -> None:
    rules = TournamentRules()
    state = rules.create({"games": 1})
    for seq, event in enumerate(
        (
            Event("join", {"player_id": "a", "name": "Ann"}),
            Event("next", {"game": 1, "tables": [{"table": 1, "code": "KQF2", "players": ["a"]}]}),
            Event("table", {"table": 1, "code": "KQF2", "status": "finished", "totals": {"a": 9}}),
            Event("score", {"game": 1, "totals": {"a": 9}}),
        ),
        start=2,
    ):
        state = rules.evolve(state, event, seq)
    view = rules.view(state, lambda _: False)
    assert [t["code"] for t in view["tables"]] == ["KQF2"]
    assert (view["status"], view["results"][0]["totals"]) == ("finished", {"a": 9})


def test_next_with_a_seating_makes_one_room_per_table_and_the_unlisted_sit_out() -> None:
    tourney = lobby("a", "b", "c", "d")
    event = tourney.next("KQF2", "M3NP", tables=[["c", "a"], ["b"]])
    assert [effect.id for effect in event.effects] == ["1-1", "1-2"]
    assert [effect.data["code"] for effect in event.effects] == ["KQF2", "M3NP"]
    assert [p["player_id"] for p in event.effects[0].data["seats"]] == ["c", "a"]
    assert event.effects[1].data["options"]["tournament"] == {"game": 1, "table": 2}
    assert [t["players"] for t in tourney.view()["tables"]] == [["c", "a"], ["b"]]


def test_table_codes_are_drawn_from_the_unambiguous_alphabet() -> None:
    assert draw_code(ScriptedChance(code_dice("Z9A2"))) == "Z9A2"
    assert draw_code(ScriptedChance([1, 31, 9, 10])) == "A9JK"


def test_two_tables_of_one_game_never_share_a_code() -> None:
    tourney = lobby("a", "b")
    tourney.chance.add_codes("KQF2", "KQF2", "M3NP")
    event = tourney.send(ORGANISER, Next("next", [["a"], ["b"]]))
    assert [t["code"] for t in event.data["tables"]] == ["KQF2", "M3NP"]


def test_next_errors_come_in_the_contract_s_order() -> None:
    tourney = lobby("a", "b")
    tourney.refuse(player("a"), Next("next", [["zed"]]), "not_allowed")
    tourney.refuse(SPECTATOR, Next("next"), "not_allowed")
    tourney.refuse(ORGANISER, Next("next", [["a", "zed"]]), "unknown_player")
    tourney.refuse(ORGANISER, Next("next", [["a"], ["a", "b"]]), "bad_seating")
    tourney.refuse(ORGANISER, Next("next", [["a"], []]), "bad_seating")
    tourney.refuse(ORGANISER, Next("next", []), "not_enough_players")
    tourney.next("KQF2")
    tourney.refuse(ORGANISER, Next("next", [["zed"]]), "unknown_player")
    tourney.refuse(ORGANISER, Next("next", [["a", "a"]]), "game_in_progress")
    tourney.refuse(ORGANISER, Next("next"), "game_in_progress")


def test_next_with_nobody_in_the_tournament_has_not_enough_players() -> None:
    Tourney().refuse(ORGANISER, Next("next"), "not_enough_players")


def test_next_waits_while_a_game_is_scoring_or_rerolling() -> None:
    scoring().refuse(ORGANISER, Next("next"), "game_in_progress")
    rerolling().refuse(ORGANISER, Next("next"), "game_in_progress")


def test_next_once_finished_is_tournament_over() -> None:
    tourney = finished()
    tourney.refuse(ORGANISER, Next("next", [["a", "a"]]), "tournament_over")
    tourney.refuse(ORGANISER, Next("next", [["zed"]]), "unknown_player")


# -- tables --------------------------------------------------------------------------


def test_the_tournament_follows_its_tables_status_and_an_undo_reopens_scoring() -> None:
    tourney = lobby("a", "b", "c")
    tourney.next("KQF2", "M3NP", tables=[["a", "b"], ["c"]])
    event = tourney.table(1, "playing")
    assert event == Event("table", {"table": 1, "code": "KQF2", "status": "playing"})
    tourney.table(1, "finished", {"a": 5, "b": 7})
    assert tourney.view()["status"] == "playing"
    tourney.table(2, "playing")
    event = tourney.table(2, "finished", {"c": 9})
    assert event.data == {"table": 2, "code": "M3NP", "status": "finished", "totals": {"c": 9}}
    assert tourney.view()["status"] == "scoring"
    tourney.table(2, "playing")
    view = tourney.view()
    assert view["status"] == "playing"
    assert [t["status"] for t in view["tables"]] == ["finished", "playing"]
    tourney.refuse(ORGANISER, Score("score"), "not_finished")
    tourney.table(2, "finished", {"c": 4})
    assert tourney.view()["status"] == "scoring"
    tourney.score()
    assert tourney.view()["results"][0]["totals"] == {"a": 5, "b": 7, "c": 4}


def test_only_the_system_reports_a_table() -> None:
    tourney = lobby("a")
    tourney.next("KQF2")
    for sender in (ORGANISER, player("a"), SPECTATOR):
        tourney.refuse(sender, TableStatus("report", "KQF2", "playing", None, 1), "not_allowed")


@pytest.mark.parametrize(
    "report",
    [
        TableStatus("report", "KQF2", "paused", None, 1),
        TableStatus("report", "KQF2", "finished", None, 1),
        TableStatus("report", "KQF2", "playing", {"a": 1}, 1),
        TableStatus("report", "KQF2", "finished", {"a": 1, "zed": 2}, 1),
        TableStatus("report", "KQF2", "finished", {}, 1),
    ],
)
def test_a_malformed_table_report_is_a_bad_message(report: TableStatus) -> None:
    tourney = lobby("a")
    tourney.next("KQF2")
    tourney.refuse(SYSTEM, report, "bad_message")


def test_a_report_of_another_table_or_after_scoring_is_stale() -> None:
    tourney = lobby("a")
    tourney.refuse(SYSTEM, TableStatus("report", "KQF2", "playing", None, 1), "stale_table")
    tourney.next("KQF2")
    tourney.refuse(SYSTEM, TableStatus("report", "KQF2", "playing", None, 2), "stale_table")
    tourney.refuse(SYSTEM, TableStatus("report", "M3NP", "playing", None, 1), "stale_table")
    tourney.play({"a": 3})
    tourney.score()
    tourney.refuse(SYSTEM, TableStatus("report", "KQF2", "playing", None, 1), "stale_table")


# -- score ---------------------------------------------------------------------------


def test_an_undo_that_beats_the_lock_keeps_the_game_playing_and_its_new_totals_count() -> None:
    tourney = lobby("a", "b", "c")
    tourney.next("KQF2", "M3NP", tables=[["a", "b"], ["c"]])
    tourney.play({"a": 5, "b": 7}, {"c": 9})
    score = tourney.send(ORGANISER, Score("score"))
    assert [e.data["code"] for e in score.effects] == ["KQF2", "M3NP"]
    tourney.lock(1)  # table 1 locked; table 2's undo came first there and reopened it
    assert tourney.view()["status"] == "scoring"
    tourney.table(2, "playing")
    view = tourney.view()
    assert (view["status"], view["results"]) == ("playing", [])
    tourney.table(2, "finished", {"c": 4})
    assert tourney.view()["status"] == "scoring"
    again = tourney.send(ORGANISER, Score("score"))  # only the table still open is told
    assert [e.data["code"] for e in again.effects] == ["M3NP"]
    assert tourney.view()["status"] == "scoring"
    tourney.lock(2)
    view = tourney.view()
    assert (view["status"], view["results"][0]["totals"]) == ("between", {"a": 5, "b": 7, "c": 4})
    assert tourney.replayed_view() == view


def test_a_lock_confirmed_before_score_is_enough_and_only_a_finished_table_locks() -> None:
    tourney = scoring()
    tourney.lock(1)  # a score whose other table reopened left this one locked
    assert tourney.view()["status"] == "scoring"
    event = tourney.send(ORGANISER, Score("score"))
    assert event.effects == ()
    assert tourney.view()["status"] == "between"
    playing = lobby("a")
    playing.next("KQF2")
    report = TableStatus("report", "KQF2", "playing", None, 1, locked=True)
    playing.refuse(SYSTEM, report, "bad_message")


def test_score_locks_the_table_rooms_and_takes_the_totals_once_they_are_locked() -> None:
    tourney = scoring()
    event = tourney.send(ORGANISER, Score("score"))
    assert event == Event("score", {"game": 1})
    totals = {"a": 300, "b": 200, "c": 100}
    gone = {"type": "report", "code": "KQF2", "status": "finished", "totals": totals}
    assert event.effects == (
        Effect(
            "tell",
            "lock-1-1",
            {
                "code": "KQF2",
                "command": {"type": "lock"},
                "if_gone": {**gone, "table": 1, "locked": True},  # a freed room's word
            },
        ),
    )
    waiting = tourney.view()
    assert (waiting["status"], waiting["results"]) == ("scoring", [])  # the lock is not in
    locked = tourney.lock(1)
    assert locked.data == {
        "table": 1,
        "code": "KQF2",
        "status": "finished",
        "totals": {"a": 300, "b": 200, "c": 100},
        "locked": True,
    }
    assert tourney.replayed_view() == tourney.view()
    view = tourney.view()
    assert view["status"] == "between"
    assert view["results"] == [
        {
            "game": 1,
            "tables": ["KQF2"],
            "totals": {"a": 300, "b": 200, "c": 100},
            "places": {"a": 1, "b": 2, "c": 3},
            "points": {"a": 3, "b": 2, "c": 1.5},
            "rerolls": [],
        }
    ]
    assert view["standings"] == [
        {"player_id": "a", "points": [3], "bonus": 0, "total": 3, "rank": 1},
        {"player_id": "b", "points": [2], "bonus": 0, "total": 2, "rank": 2},
        {"player_id": "c", "points": [1.5], "bonus": 0, "total": 1.5, "rank": 3},
    ]
    assert view["winners"] == []
    assert not RULES.finished(tourney.state)


def test_score_errors_come_in_the_contract_s_order() -> None:
    tourney = lobby("a")
    tourney.refuse(player("a"), Score("score"), "not_allowed")
    tourney.refuse(ORGANISER, Score("score"), "not_finished")
    tourney.next("KQF2")
    tourney.refuse(ORGANISER, Score("score"), "not_finished")
    rerolling().refuse(ORGANISER, Score("score"), "not_finished")
    done = finished()
    done.refuse(SPECTATOR, Score("score"), "not_allowed")
    done.refuse(ORGANISER, Score("score"), "tournament_over")


def test_the_last_game_scored_finishes_the_tournament_with_its_winners() -> None:
    tourney = finished()
    view = tourney.view()
    assert (view["status"], view["current"], view["winners"]) == ("finished", 1, ["a"])
    assert RULES.finished(tourney.state)


# -- rerolls ---------------------------------------------------------------------------


def test_a_tie_at_stake_opens_a_reroll_listing_every_group() -> None:
    tourney = rerolling()
    view = tourney.view()
    assert view["status"] == "reroll"
    assert view["reroll"] == {
        "groups": [{"places": [2, 3], "players": ["b", "c"], "rolls": {"b": None, "c": None}}]
    }
    assert view["results"] == []


def test_in_roller_mode_players_roll_their_own_reroll() -> None:
    tourney = rerolling(roll_entry="roller")
    event = tourney.send(player("c"), Reroll("reroll", None, [6, 5]))
    assert event == Event("reroll", {"player_id": "c", "dice": [6, 5]})
    assert tourney.view()["reroll"]["groups"][0]["rolls"] == {"b": None, "c": [6, 5]}
    tourney.send(player("b"), Reroll("reroll", "b", [1, 2]))
    view = tourney.view()
    assert (view["status"], view["reroll"]) == ("between", None)
    assert view["results"][0]["places"] == {"a": 1, "c": 2, "b": 3, "d": 4}
    assert view["results"][0]["rerolls"] == [
        {"players": ["b", "c"], "rolls": {"b": [1, 2], "c": [6, 5]}}
    ]


def test_in_virtual_mode_the_server_rolls_for_the_player_and_the_organiser() -> None:
    tourney = rerolling(roll_entry="virtual")
    tourney.chance.add([4, 4, 2, 1])
    assert tourney.send(player("b"), Reroll("reroll")).data == {"player_id": "b", "dice": [4, 4]}
    event = tourney.send(ORGANISER, Reroll("reroll", "c"))
    assert event.data == {"player_id": "c", "dice": [2, 1]}
    assert tourney.view()["results"][0]["places"]["b"] == 2


def test_the_organiser_enters_any_player_s_roll_in_any_mode() -> None:
    for mode in ("banker", "roller", "virtual"):
        tourney = rerolling(roll_entry=mode)
        event = tourney.send(ORGANISER, Reroll("reroll", "b", [3, 3]))
        assert event.data == {"player_id": "b", "dice": [3, 3]}


@pytest.mark.parametrize(
    ("mode", "sender", "command"),
    [
        ("roller", player("b"), Reroll("reroll", None, [1, 2, 3])),
        ("roller", player("b"), Reroll("reroll", None, [0, 2])),
        ("roller", player("b"), Reroll("reroll", None, [7, 2])),
        ("roller", player("b"), Reroll("reroll", None, [True, 2])),
        ("roller", player("b"), Reroll("reroll")),
        ("banker", ORGANISER, Reroll("reroll", "b")),
        ("banker", ORGANISER, Reroll("reroll", None, [3, 4])),
        ("virtual", ORGANISER, Reroll("reroll")),
        ("virtual", SPECTATOR, Reroll("reroll", None, [9, 9])),
    ],
)
def test_a_bad_reroll_is_a_bad_message_first(mode: str, sender: Sender, command: Reroll) -> None:
    rerolling(roll_entry=mode).refuse(sender, command, "bad_message")


@pytest.mark.parametrize(
    ("mode", "sender", "command"),
    [
        ("roller", SPECTATOR, Reroll("reroll", "b", [1, 2])),
        ("roller", SYSTEM, Reroll("reroll", "b", [1, 2])),
        ("banker", player("b"), Reroll("reroll", None, [1, 2])),
        ("virtual", player("b"), Reroll("reroll", None, [6, 6])),
        ("roller", player("b"), Reroll("reroll", "c", [1, 2])),
        ("roller", player("b"), Reroll("reroll", "zed", [1, 2])),
    ],
)
def test_a_reroll_by_the_wrong_role_is_not_allowed(
    mode: str, sender: Sender, command: Reroll
) -> None:
    rerolling(roll_entry=mode).refuse(sender, command, "not_allowed")


def test_reroll_errors_after_the_role_come_in_the_contract_s_order() -> None:
    tourney = rerolling(roll_entry="roller")
    tourney.refuse(ORGANISER, Reroll("reroll", "zed", [1, 2]), "unknown_player")
    tourney.refuse(player("a"), Reroll("reroll", None, [1, 2]), "no_reroll")
    tourney.send(player("b"), Reroll("reroll", None, [1, 2]))
    tourney.refuse(player("b"), Reroll("reroll", None, [6, 6]), "already_rolled")
    tourney.refuse(ORGANISER, Reroll("reroll", "b", [6, 6]), "already_rolled")
    tourney.send(player("c"), Reroll("reroll", None, [5, 6]))
    tourney.refuse(player("b"), Reroll("reroll", None, [6, 6]), "no_reroll")
    lobby("a").refuse(ORGANISER, Reroll("reroll", "a", [1, 2]), "no_reroll")
    scoring().refuse(ORGANISER, Reroll("reroll", "a", [1, 2]), "no_reroll")
    done = finished()
    done.refuse(ORGANISER, Reroll("reroll", "zed", [1, 2]), "unknown_player")
    done.refuse(ORGANISER, Reroll("reroll", "a", [1, 2]), "tournament_over")


def test_a_tied_reroll_is_replaced_by_a_new_group_of_just_those_players() -> None:
    tourney = lobby("a", "b", "c", "d")
    tourney.next("KQF2")
    tourney.play({"a": 1, "b": 1, "c": 1, "d": 0})
    tourney.score()
    for pid, dice in (("a", [2, 2]), ("b", [6, 6]), ("c", [3, 1])):
        tourney.send(ORGANISER, Reroll("reroll", pid, dice))
    assert tourney.view()["reroll"] == {
        "groups": [{"places": [2, 3], "players": ["a", "c"], "rolls": {"a": None, "c": None}}]
    }
    tourney.refuse(ORGANISER, Reroll("reroll", "b", [1, 1]), "no_reroll")


# -- the wire, replay -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "wire", "command"),
    [
        (Next, '{"type": "next"}', Next("next")),
        (Next, '{"type": "next", "tables": [["a"]], "id": "c1"}', Next("next", [["a"]])),
        (Score, '{"type": "score"}', Score("score")),
        (Reroll, '{"type": "reroll", "dice": [3, 4]}', Reroll("reroll", None, [3, 4])),
        (Kick, '{"type": "kick", "player_id": "a"}', Kick("kick", "a")),
    ],
)
def test_wire_json_validates_strictly_into_the_commands(
    kind: type[Any], wire: str, command: Any
) -> None:
    assert pydantic.TypeAdapter(kind).validate_json(wire) == command


@pytest.mark.parametrize(
    "wire", ['{"type": "reroll", "dice": ["3", 4]}', '{"type": "reroll", "dice": [3.0, 4]}']
)
def test_wire_dice_that_are_not_integers_are_refused(wire: str) -> None:
    with pytest.raises(pydantic.ValidationError):
        pydantic.TypeAdapter(Reroll).validate_json(wire)


def test_replaying_the_events_rebuilds_the_same_view() -> None:
    tourney = six_player_tournament()
    assert tourney.replayed_view() == tourney.view()
    tables = [e for e in tourney.events if e.type == "table"]
    assert len([e for e in tables if not e.data.get("locked")]) == 12
    assert len([e for e in tables if e.data.get("locked")]) == 5  # one per table scored


# -- the six players, by hand ------------------------------------------------------


def six_player_tournament() -> Tourney:
    """Four games in roller mode. Game 1: Bob and Cy tie for 2nd, tie again on the reroll
    (7 and 7), then Bob rolls 12 to Cy's 3. Fay joins after game 1. Game 2 on two tables,
    with an undo reopening table 2 while scoring. Eve sits game 3 out. Ann wins all four."""
    t = lobby("a", "b", "c", "d", "e", roll_entry="roller")
    t.next("RUN2")
    t.play({"a": 900, "b": 700, "c": 700, "d": 500, "e": 300})
    t.score()
    t.send(player("b"), Reroll("reroll", None, [3, 4]))
    t.send(ORGANISER, Reroll("reroll", "c", [5, 2]))
    assert t.view()["reroll"] == {
        "groups": [{"places": [2, 3], "players": ["b", "c"], "rolls": {"b": None, "c": None}}]
    }
    t.send(player("c"), Reroll("reroll", None, [1, 2]))
    t.send(player("b"), Reroll("reroll", None, [6, 6]))
    t.join("f")
    t.next("TWX2", "TWX3", tables=[["a", "b", "c"], ["d", "e", "f"]])
    t.play({"a": 1200, "b": 400, "c": 900}, {"d": 600, "e": 0, "f": 999})
    t.table(2, "playing")
    t.table(2, "finished", {"d": 600, "e": 0, "f": 250})
    t.score()
    t.next("THR3", tables=[["a", "b", "c", "d", "f"]])
    t.play({"a": 1000, "b": 200, "c": 150, "d": 800, "f": 700})
    t.score()
    t.next("FR4A")
    t.play({"a": 2000, "b": 1500, "c": 900, "d": 50, "e": 1400, "f": 1000})
    t.score()
    return t


def test_the_six_player_tournament_ends_as_computed_by_hand() -> None:
    view = six_player_tournament().view()
    # Places per game (None: not there). Game 1: b beats c on the second reroll.
    # game 1: a 900, b 700 (reroll 7 then 12), c 700 (7 then 3), d 500, e 300; f not yet
    # game 2: a 1200, c 900, d 600, b 400, f 250, e 0
    # game 3: a 1000, d 800, f 700, b 200, c 150; e sits out
    # game 4: a 2000, b 1500, e 1400, f 1000, c 900, d 50
    assert [r["places"] for r in view["results"]] == [
        {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": None},
        {"a": 1, "b": 4, "c": 2, "d": 3, "e": 6, "f": 5},
        {"a": 1, "b": 4, "c": 5, "d": 2, "e": None, "f": 3},
        {"a": 1, "b": 2, "c": 5, "d": 6, "e": 3, "f": 4},
    ]
    assert view["results"][0]["totals"] == {"a": 900, "b": 700, "c": 700, "d": 500, "e": 300}
    assert view["results"][0]["rerolls"] == [
        {"players": ["b", "c"], "rolls": {"b": [3, 4], "c": [5, 2]}},
        {"players": ["b", "c"], "rolls": {"b": [6, 6], "c": [1, 2]}},
    ]
    assert view["results"][1]["tables"] == ["TWX2", "TWX3"]
    assert view["results"][1]["totals"]["f"] == 250
    assert view["results"][2]["points"] == {"a": 3, "b": 1, "c": 0.5, "d": 2, "e": 0, "f": 1.5}
    # a: 3+3+3+3 = 12, +3 bonus = 15        b: 2+1+1+2 = 6
    # c: 1.5+2+0.5+0.5 = 4.5                d: 1+1.5+2+0 = 4.5 (shares 3rd with c)
    # f: 0+0.5+1.5+1 = 3 (5th: two share 3rd)   e: 0.5+0+0+1.5 = 2
    assert view["standings"] == [
        {"player_id": "a", "points": [3, 3, 3, 3], "bonus": 3, "total": 15, "rank": 1},
        {"player_id": "b", "points": [2, 1, 1, 2], "bonus": 0, "total": 6, "rank": 2},
        {"player_id": "c", "points": [1.5, 2, 0.5, 0.5], "bonus": 0, "total": 4.5, "rank": 3},
        {"player_id": "d", "points": [1, 1.5, 2, 0], "bonus": 0, "total": 4.5, "rank": 3},
        {"player_id": "f", "points": [0, 0.5, 1.5, 1], "bonus": 0, "total": 3, "rank": 5},
        {"player_id": "e", "points": [0.5, 0, 0, 1.5], "bonus": 0, "total": 2, "rank": 6},
    ]
    assert (view["status"], view["current"], view["winners"]) == ("finished", 4, ["a"])
    assert [t["code"] for t in view["tables"]] == ["FR4A"]
