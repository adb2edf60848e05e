"""A tournament table room, seated by its `create` event, and its `lock`: refused while
an undo has reopened the table, confirmed to the tournament in its report once taken."""

from __future__ import annotations

from typing import Any

import pytest

from app.games.bank.commands import Lock, Roll, Start
from app.games.bank.rules import BankRules
from app.games.seam import Event, RuleError, Sender
from tests.games.tournament.chance import ScriptedChance

RULES = BankRules()
SYSTEM = Sender("system")
BANKER = Sender("banker")
TABLE: dict[str, Any] = {
    "rounds": 1,
    "roll_entry": "banker",
    "parent": "T4QX",
    "tournament": {"game": 1, "table": 1},
    "seats": [{"player_id": "a", "name": "Ann"}, {"player_id": "b", "name": "Bob"}],
}


def apply(state: Any, sender: Sender, command: Any) -> Any:
    event = RULES.decide(state, sender, command, ScriptedChance())
    return RULES.evolve(state, event, 2)


def finished() -> Any:
    state = apply(RULES.create(TABLE), BANKER, Start("start"))
    for dice in ([6, 4], [6, 4], [6, 4], [3, 4]):  # three safe rolls, then the 7
        state = apply(state, BANKER, Roll("roll", dice))
    assert RULES.finished(state)
    return state


def test_a_table_is_seated_by_its_create_event_in_the_tournament_s_order() -> None:
    state = RULES.create(TABLE)
    assert [(p.id, p.name, p.has_phone) for p in state.players] == [
        ("a", "Ann", True),
        ("b", "Bob", True),
    ]
    assert RULES.report(state) == {"status": "lobby"}


def test_a_finished_table_locks_once_and_reports_its_totals_final() -> None:
    state = finished()
    assert RULES.report(state) == {"status": "finished", "totals": {"a": 0, "b": 0}}
    assert RULES.decide(state, SYSTEM, Lock(), ScriptedChance()) == Event("lock", {})
    locked = RULES.evolve(state, Event("lock", {}), 9)
    assert RULES.report(locked) == {
        "status": "finished",
        "totals": {"a": 0, "b": 0},
        "locked": True,
    }
    with pytest.raises(RuleError) as twice:
        RULES.decide(locked, SYSTEM, Lock(), ScriptedChance())
    assert twice.value.code == "nothing_to_change"


def test_a_table_an_undo_reopened_refuses_the_lock_and_plays_on() -> None:
    playing = apply(RULES.create(TABLE), BANKER, Start("start"))
    with pytest.raises(RuleError) as refused:
        RULES.decide(playing, SYSTEM, Lock(), ScriptedChance())
    assert refused.value.code == "not_finished"
    with pytest.raises(RuleError) as stranger:
        RULES.decide(finished(), BANKER, Lock(), ScriptedChance())
    assert stranger.value.code == "not_allowed"
