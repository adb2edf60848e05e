"""BANK!'s state object as every client sees it (docs/protocol.md), pure."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from app.games.bank.state import (
    Banking,
    BankState,
    Change,
    Correction,
    LastRoll,
    Player,
    RollRecord,
    RoundResult,
    TableOf,
)
from app.games.patch import Op, diff
from app.games.rendered import ByIdentity, FieldPart, Kept, Rendered, ViewParts, appended
from app.games.seam import Connected, fairness_view


def _winners(state: BankState, _: Connected) -> list[str]:
    if state.status != "finished":
        return []
    top = max(p.score for p in state.players)
    return [p.id for p in state.players if p.score == top]


def _last_roll(last: LastRoll | None) -> dict[str, Any] | None:
    if last is None:
        return None
    dice = None if last.dice is None else list(last.dice)
    return {"dice": dice, "total": last.total, "by": last.by, "seq": last.seq}


def _round_log(state: BankState) -> dict[str, Any]:
    return {
        "rolls": [_rolls(r) for r in state.rolls_now],
        "banks": [_bankings(b) for b in state.banked_now],
    }


def _tail(state: BankState) -> dict[str, Any]:
    """The keys a view has only now and then."""
    return {
        **_tournament_view(state.table),
        **({"house_rules": house} if (house := state.house.differences()) else {}),
        **fairness_view(state),
    }


SEAT_FIELDS = ("name", "score", "banked", "has_phone", "waiting")  # a seat's, from its Player
_seat = attrgetter(*SEAT_FIELDS)  # read in C: a BANK compares two seats


def _player(player: Player, connected: bool) -> dict[str, Any]:
    """A seat as `players` lists it: one rendering per player and presence, kept."""
    pair = _seats(player)
    seat = pair[connected]
    if seat is None:
        seat = pair[connected] = {
            "id": player.id,
            "name": player.name,
            "score": player.score,
            "banked": player.banked,
            "connected": connected,
            "has_phone": player.has_phone,
            "waiting": player.waiting,
        }
    return seat


def _dice(dice: tuple[int, int] | None) -> list[int] | None:
    return None if dice is None else list(dice)


def _roll(roll: RollRecord) -> dict[str, Any]:
    return {
        "seq": roll.seq,
        "by": roll.by,
        "dice": _dice(roll.dice),
        "total": roll.total,
        "bank_after": roll.bank_after,
    }


def _banking(banking: Banking) -> dict[str, Any]:
    return {
        "player_id": banking.player_id,
        "amount": banking.amount,
        "seq": banking.seq,
        "by_banker": banking.by_banker,
    }


def _round(result: RoundResult) -> dict[str, Any]:
    return {
        "round": result.round,
        "ended_by": result.ended_by,
        "bank": result.bank,
        "banked": [_bankings(b) for b in result.banked],
        "rolls": [_rolls(r) for r in result.rolls],
        "seven_seq": result.seven_seq,
    }


def _summary(result: RoundResult) -> dict[str, Any]:
    """A finished round as `rounds_log` lists it."""
    return {
        "round": result.round,
        "ended_by": result.ended_by,
        "bank": result.bank,
        "banked": [
            {"player_id": b.player_id, "amount": b.amount, "seq": b.seq} for b in result.banked
        ],
    }


def _rounds_log(log: tuple[RoundResult, ...]) -> list[dict[str, Any]]:
    """The rendered log, kept with its last round (which names the whole log: a round
    is only ever appended after the ones before it): a round more, an item more."""
    if not log:
        return Kept()
    last = log[-1]
    rendered = _logs.get(last)
    if rendered is None:
        before: list[dict[str, Any]] | None = _logs.get(log[-2]) if len(log) > 1 else None
        if before is not None:
            _logs.drop(log[-2])  # one list per game: an undo back to it renders it again
        else:
            before = [_summaries(r) for r in log[:-1]]
        rendered = Kept([*before, _summaries(last)])
        _logs.keep(last, rendered)
    return rendered


def _change(change: Change) -> dict[str, Any]:
    if change.type == "roll":
        return {
            "type": "roll",
            "seq": change.seq,
            "by": change.player_id,
            "dice": _dice(change.dice),
            "total": change.amount,
        }
    if change.type == "join":
        return {
            "type": "join",
            "seq": change.seq,
            "player_id": change.player_id,
            "name": change.name,
        }
    return {
        "type": change.type,
        "seq": change.seq,
        "player_id": change.player_id,
        "amount": change.amount,
    }


def _preview(state: BankState) -> dict[str, Any] | None:
    if state.closed or not state.since_roll:
        return None
    return {"seq": state.since_roll[0].seq, "takes_back": [_changes(c) for c in state.since_roll]}


def _correction(correction: Correction | None) -> dict[str, Any] | None:
    if correction is None:
        return None
    return {
        "type": correction.type,
        "seq": correction.seq,
        "took_back": [_change(c) for c in correction.took_back],
    }


def _tournament_view(table: TableOf | None) -> dict[str, Any]:
    if table is None:
        return {}
    return {"tournament": {"code": table.tournament, "game": table.game, "table": table.table}}


# -- patches made from the states: what one roll or BANK changes, without the whole view ---
def _players_view(state: BankState, connected: Connected) -> list[dict[str, Any]]:
    return [_player(p, connected(p.id)) for p in state.players]


def _seats_patch(before: BankState, after: BankState, connected: Connected, path: str) -> list[Op]:
    """The seats that are other objects now, field by field (a BANK: its score and
    `banked`; a seat's phone is as connected as it was); the list diffed when a seat
    came or went."""
    old, new = before.players, after.players
    if len(old) != len(new):
        return diff(_players_view(before, connected), _players_view(after, connected), path)
    ops: list[Op] = []
    for index, (was, now) in enumerate(zip(old, new, strict=True)):
        if was is now:
            continue
        if was.id != now.id:
            ops.append(["replace", f"{path}/{index}", _player(now, connected(now.id))])
            continue
        for name, old_value, value in zip(SEAT_FIELDS, _seat(was), _seat(now), strict=True):
            if old_value != value:
                ops.append(["replace", f"{path}/{index}/{name}", value])
    return ops


def _round_log_patch(
    before: BankState, after: BankState, connected: Connected, path: str
) -> list[Op]:
    """A roll or a BANK appended to the round; the whole log when the round ended or an
    undo took something back."""
    rolls = appended(before.rolls_now, after.rolls_now, _rolls, path + "/rolls")
    banks = appended(before.banked_now, after.banked_now, _bankings, path + "/banks")
    if rolls is None or banks is None:
        return [["replace", path, _round_log(after)]]
    return rolls + banks


def _preview_patch(
    before: BankState, after: BankState, connected: Connected, path: str
) -> list[Op]:
    """An event appended to what an undo would take back; else the preview whole."""
    was = not before.closed and bool(before.since_roll)
    now = not after.closed and bool(after.since_roll)
    if was and now and before.since_roll[0] is after.since_roll[0]:
        added = appended(before.since_roll, after.since_roll, _changes, path + "/takes_back")
        if added is not None:
            return added
    return [["replace", path, _preview(after)]] if was or now else []


def _log_patch(before: BankState, after: BankState, connected: Connected, path: str) -> list[Op]:
    """A round appended to `rounds_log` (never sent again); else its diff."""
    added = appended(before.rounds_log, after.rounds_log, _summaries, path)
    if added is not None:
        return added
    return diff(_rounds_log(before.rounds_log), _rounds_log(after.rounds_log), path)


# A finished round, a roll, a BANK, a seat never change: each is rendered once, and
# every later view holds the same dict (app/games/rendered.py).
_seats: Rendered[Player, list[dict[str, Any] | None]] = Rendered(lambda _: [None, None])
_rolls = Rendered(_roll)
_bankings = Rendered(_banking)
_changes = Rendered(_change)
_summaries = Rendered(_summary)
_last_round = Rendered(_round)
_logs: ByIdentity[RoundResult, Kept] = ByIdentity()  # the whole log, by its last round


def _last_round_of(log: tuple[RoundResult, ...]) -> dict[str, Any] | None:
    return _last_round(log[-1]) if log else None


# Each key of the view, from the fields of the state it reads (in the view's order).
PARTS: ViewParts[BankState] = ViewParts(
    {
        "game": ((), lambda s, c: "bank"),
        "status": FieldPart("status"),
        "rounds": FieldPart("rounds"),
        "round": FieldPart("round"),
        "roll_count": FieldPart("roll_count"),
        "bank": FieldPart("bank"),
        "roll_entry": FieldPart("roll_entry"),
        "turn": FieldPart("turn"),
        "last_roll": FieldPart("last_roll", _last_roll),
        "players": (("players",), _players_view),
        "rounds_log": (("rounds_log",), lambda s, c: _rounds_log(s.rounds_log)),
        "winners": (("status", "players"), _winners),
        "round_log": (("rolls_now", "banked_now"), lambda s, c: _round_log(s)),
        "last_round": FieldPart("rounds_log", _last_round_of),
        "undo_preview": (("locked", "again", "since_roll"), lambda s, c: _preview(s)),
        "last_correction": FieldPart("correction", _correction),
        "open_to_join": (
            ("status", "table"),
            lambda s, c: s.status == "lobby" and s.table is None,
        ),
        "next_game": FieldPart("next_game"),
        "previous_game": FieldPart("previous_game"),
    },
    _tail,
    ("table", "house", "fair"),
    patchers={
        "players": _seats_patch,
        "rounds_log": _log_patch,
        "round_log": _round_log_patch,
        "undo_preview": _preview_patch,
    },
    whole=("winners", "open_to_join"),
)

# The view, the parts of it an event changed (None: the whole view) and the operations
# that turn the view before into the view after (None: diff the whole views): PARTS's,
# called with nothing in between (each is called at every event).
view = PARTS.view
view_changes = PARTS.changes
view_patch = PARTS.patch
