"""What a BANK game started from a group tells the group (app/games/group): its status,
and once over each player's score, whether they won, their biggest BANK and how many
rounds a 7 ended while they still had not banked ("banks lost to a 7")."""

from __future__ import annotations

from typing import Any

from app.games.bank.state import BankState
from app.games.common import group_report


def group_result(state: BankState) -> dict[str, Any]:
    if state.status != "finished":
        return group_report(state.status)
    top = max((p.score for p in state.players), default=0)
    rows = []
    for player in state.players:
        banks = [b.amount for r in state.rounds_log for b in r.banked if b.player_id == player.id]
        lost = sum(
            1
            for r in state.rounds_log
            if r.ended_by == "seven" and all(b.player_id != player.id for b in r.banked)
        )
        rows.append(
            {
                "id": player.id,
                "name": player.name,
                "score": player.score,
                "won": bool(state.players) and player.score == top,
                "biggest_bank": max(banks, default=0),
                "lost_to_seven": lost,
            }
        )
    return group_report("finished", rows)
