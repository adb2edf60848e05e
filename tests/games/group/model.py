"""The standings a season should show, computed apart from the group: each game's log
is replayed by its own rules (the log is the truth), and each player's numbers are
read from the replayed state and folded into a member's standings here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.config import Settings
from app.games.bank import make_game as make_bank
from app.games.bunco import make_game as make_bunco
from app.games.tournament import make_game as make_tournament
from app.games.tournament import scoring
from app.rooms.timeline import Timeline

RULES = {
    "bank": make_bank(Settings()).rules,
    "bunco": make_bunco(Settings()).rules,
    "tournament": make_tournament(Settings()).rules,
}


def rows_from_log(kind: str, events: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Player id -> score, won and the kind's numbers, from the game's log alone."""
    state: Any = Timeline.replay(RULES[kind], list(events)).state
    rows: dict[str, dict[str, Any]] = {}
    if kind == "bank":
        banks = [e for e in events if e["type"] == "bank"]
        sevens = [r for r in state.rounds_log if r.ended_by == "seven"]
        for p in state.players:
            amounts = [e["data"]["amount"] for e in banks if e["data"]["player_id"] == p.id]
            lost = sum(1 for r in sevens if p.id not in {b.player_id for b in r.banked})
            rows[p.id] = {"score": p.score, "biggest_bank": max(amounts, default=0)}
            rows[p.id]["lost_to_seven"] = lost
        top = max(r["score"] for r in rows.values())
    elif kind == "bunco":
        for p in state.players:
            rows[p.id] = {"score": p.wins, "wins": p.wins, "losses": p.losses}
            rows[p.id]["buncos"] = p.buncos
        top = max(r["score"] for r in rows.values())
    else:
        ids = [p.id for p in state.players]
        table = scoring.standings(ids, [r.places for r in state.results], state.games, True)
        for line in table:
            rows[line.player_id] = {"score": scoring.as_number(line.total)}
        top = max(r["score"] for r in rows.values())
    for row in rows.values():
        row["won"] = row["score"] == top
    return rows


def standings(
    members: Sequence[str], games: Sequence[tuple[str, dict[str, dict[str, Any]]]]
) -> dict[str, list[dict[str, Any]]]:
    """The season's standings from (kind, rows) of each game, as docs/protocol.md says."""
    result: dict[str, list[dict[str, Any]]] = {}
    overall: dict[str, dict[str, Any]] = {}
    for kind in ("bank", "bunco", "tournament"):
        table = []
        for member in members:
            mine = [rows[member] for k, rows in games if k == kind and member in rows]
            if not mine:
                continue
            scores = [r["score"] for r in mine]
            average = sum(scores) / len(scores)
            line: dict[str, Any] = {
                "member": member,
                "games": len(mine),
                "wins": sum(r["won"] for r in mine),
                "average": int(average) if average == int(average) else round(average, 2),
                "best": max(scores),
            }
            if kind == "bank":
                line["lost_to_seven"] = sum(r["lost_to_seven"] for r in mine)
                line["biggest_bank"] = max(r["biggest_bank"] for r in mine)
            if kind == "bunco":
                line["rounds_won"] = sum(r["wins"] for r in mine)
                line["rounds_lost"] = sum(r["losses"] for r in mine)
                line["buncos"] = sum(r["buncos"] for r in mine)
            table.append(line)
            total = overall.setdefault(member, {"member": member, "games": 0, "wins": 0})
            total["games"] += line["games"]
            total["wins"] += line["wins"]
        result[kind] = sorted(table, key=lambda x: (-x["wins"], -x["average"], x["member"]))
    ranked = sorted(overall.values(), key=lambda x: (-x["wins"], x["member"]))
    return {"overall": ranked, **result}
