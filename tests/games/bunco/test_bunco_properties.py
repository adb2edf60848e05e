"""Invariants of Bunco over random nights (hypothesis).

A random night: 8 to 24 players, 1 or 2 sets, seated by a seeded lot; the host rolls
virtual dice at a random live table (the High table half of the time, so rounds end)
and rings each next round, until the night is finished. Now and then a roll is undone
straight away. After every event the invariants below are checked.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.games.bunco.rules import BuncoRules, Join, Ring, Roll, Start
from app.games.seam import Sender
from tests.games.chance import Driver, SeededChance, replayed
from tests.games.chance import no_one_connected as no_one

BANKER = Sender("banker")
NIGHTS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_EVENTS = 20_000


def partnerships(seats: list[str]) -> set[frozenset[str]]:
    return {frozenset((seats[0], seats[2])), frozenset((seats[1], seats[3]))}


def live_tables(view: dict[str, Any]) -> list[int]:
    tables = view["tables"]
    if view["phase"] == "rolloff":
        return [t["table"] for t in tables if t["rolloff"]]
    return [t["table"] for t in tables]


class Night:
    """One random night played to its end, checking the invariants as it goes."""

    def __init__(self, seed: int, players: int, sets: int) -> None:
        self.picks = random.Random(seed)
        options = {"game": "bunco", "sets": sets, "roll_entry": "virtual"}
        self.driver: Driver[Any] = Driver(BuncoRules(), options, SeededChance(seed))
        for n in range(players):
            self.driver.send(BANKER, Join("join", f"p{n}", f"Player {n}"))
        self.driver.send(BANKER, Start("start"))
        self.undos = 0

    def play(self) -> None:
        for _ in range(MAX_EVENTS):
            view = self.driver.view()
            if view["status"] == "finished":
                return
            if view["phase"] == "waiting":
                self.driver.send(BANKER, Ring("ring"))
                continue
            self.roll(view)
        raise AssertionError("the night did not end")

    def roll(self, before: dict[str, Any]) -> None:
        live = live_tables(before)
        index = 0 if 0 in live and self.picks.random() < 0.5 else self.picks.choice(live)
        self.driver.send(BANKER, Roll("roll", table=index))
        after = self.driver.view()
        self.check(before, after)
        if self.undos < 3 and self.picks.random() < 0.01:
            self.undos += 1
            self.driver.undo(BANKER)
            assert self.driver.view() == before

    def check(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        rounds = len(after["rounds_log"])
        assert all(p["wins"] + p["losses"] == rounds for p in after["players"])
        if rounds == len(before["rounds_log"]):
            return
        ended = after["rounds_log"][-1]
        high = ended["tables"][0]
        assert max(high["scores"]) >= 21 and ended["bell_by"] in high["seats"]
        assert all(t["scores"][0] != t["scores"][1] for t in ended["tables"])
        if after["status"] == "finished":
            return
        seated = [pid for t in after["tables"] for pid in t["seats"]]
        assert all(len(t["seats"]) == 4 for t in after["tables"])
        assert sorted(seated) == sorted(p["id"] for p in after["players"])
        old = set().union(*(partnerships(t["seats"]) for t in ended["tables"]))
        new = set().union(*(partnerships(t["seats"]) for t in after["tables"]))
        assert not old & new


@NIGHTS
@given(
    seed=st.integers(0, 2**32 - 1),
    tables=st.integers(2, 6),
    sets=st.integers(1, 2),
)
def test_a_random_night_keeps_every_invariant_and_replays_to_the_same_view(
    seed: int, tables: int, sets: int
) -> None:
    night = Night(seed, tables * 4, sets)
    night.play()
    driver = night.driver
    view = driver.view()
    assert view["status"] == "finished"
    assert len(view["rounds_log"]) == 6 * sets
    top = max(p["wins"] for p in view["players"])
    assert view["winners"] == [p["id"] for p in view["players"] if p["wins"] == top]
    rebuilt = replayed(driver.rules, driver.options, driver.effective)
    assert driver.rules.view(rebuilt, no_one) == view


@NIGHTS
@given(seed=st.integers(0, 2**32 - 1), cut=st.floats(0.0, 1.0))
def test_undo_of_the_last_roll_gives_back_the_view_before_it_at_any_point(
    seed: int, cut: float
) -> None:
    night = Night(seed, 12, 1)
    night.play()
    events = night.driver.effective
    rolls = [i for i, (_, event) in enumerate(events) if event.type == "roll"]
    last = rolls[min(int(cut * len(rolls)), len(rolls) - 1)]
    driver = night.driver
    driver.effective = events[: last + 1]
    driver.state = replayed(driver.rules, driver.options, driver.effective)
    before = driver.rules.view(replayed(driver.rules, driver.options, events[:last]), no_one)
    driver.undo(BANKER)
    assert driver.view() == before
