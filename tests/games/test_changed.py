"""`changed`: the seam's copy of a frozen state with some fields changed."""

from __future__ import annotations

import dataclasses

import pytest

from app.games.bank.state import BankState, Player
from app.games.seam import changed


def test_changed_is_dataclasses_replace() -> None:
    state = BankState(20, "banker", players=(Player("p1", "Ann"),))
    copy = changed(state, bank=15, roll_count=2)
    assert copy == dataclasses.replace(state, bank=15, roll_count=2)
    assert (state.bank, state.roll_count) == (0, 0), "the original is untouched"
    assert copy.players is state.players, "unchanged fields are shared, not copied"
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.bank = 3  # type: ignore[misc]


def test_changed_refuses_a_field_the_state_does_not_have() -> None:
    with pytest.raises(TypeError, match="no field \\['banks'\\]"):
        changed(BankState(20, "banker"), banks=15)
