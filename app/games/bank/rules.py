"""The rules of BANK! (ThunderHive Games), pure: the rules class and its decisions.

The state and what each event does to it are in `bank_state.py`, the commands in
`bank_commands.py`, the state object clients see in `bank_view.py`.

Choices where the rule sheet is silent (also in docs/protocol.md):
- Round 1 is opened by the first player to join. Every later round is opened by the
  player seated after the one who made the previous round's last roll: the dice keep
  going round the table, as they do at a real one.
- After a BANK by the player whose turn it is, the turn passes to the next player
  who has not banked.
- After the game ends, `last_roll` keeps the roll that ended it.
- A roll entered as a total (the banker's pad) is never doubles: doubles are entered
  as dice.
- A player the banker seats after the start joins the round in play at 0 and may
  BANK from the next roll on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.games.bank.commands import (
    AddBanker,
    Bank,
    BankCommand,
    Join,
    Lock,
    PlayAgain,
    Roll,
    Spawned,
    Unbank,
)
from app.games.bank.season import group_result
from app.games.bank.state import (
    SAFE_ROLLS,
    BankState,
    Dice,
    HouseRules,
    Player,
    TableOf,
    after_bank,
    after_join,
    after_roll,
    after_unbank,
    roll_value,
)
from app.games.bank.view import view, view_changes, view_patch
from app.games.common import Kick, Start, bank_house_rules, join_kick_seating
from app.games.names import MAX_NAME, clean_name, name_taken
from app.games.seam import (
    SYSTEM,
    Chance,
    Effect,
    Event,
    RuleError,
    Seating,
    Sender,
    UndoPolicy,
    changed,
    fairness_of,
    revealing,
)

ROLL_ENTRIES = ("banker", "roller", "virtual")
MAX_ROUNDS = 100


AGAIN = "again"  # the id of play_again's create_room effect

__all__ = [
    "AddBanker",
    "MAX_NAME",
    "MAX_ROUNDS",
    "SAFE_ROLLS",
    "Bank",
    "BankRules",
    "BankState",
    "Dice",
    "Join",
    "Kick",
    "Lock",
    "PlayAgain",
    "Player",
    "Roll",
    "Spawned",
    "Start",
    "Unbank",
    "clean_name",
    "roll_value",
]


class BankRules:
    """BANK! behind the `Rules` seam."""

    name = "bank"
    creator = "banker"
    undo = UndoPolicy(
        roles=frozenset({"banker"}),
        events=frozenset({"roll"}),
        nothing_left="There is no roll to take back.",
        not_allowed="Only the banker can undo.",
        barriers=frozenset({"lock", "play_again"}),
        keeps=frozenset({"join"}),  # undo never unseats a late player (issue 20)
        barred=(
            "game_over",
            "This game is closed (scored by its tournament, or played again): "
            "it can no longer change.",
        ),
    )

    def __init__(self, max_players: int = 50) -> None:
        self.max_players = max_players

    # -- create ------------------------------------------------------------------
    def create(self, options: Mapping[str, Any]) -> BankState:
        rounds = options.get("rounds", 20)
        roll_entry = options.get("roll_entry", "banker")
        if type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS:
            raise RuleError("bad_rounds", "rounds is a whole number from 1 to 100.")
        if roll_entry not in ROLL_ENTRIES:
            raise RuleError("bad_roll_entry", "roll_entry is banker, roller or virtual.")
        link = options.get("tournament")
        table = None
        previous = None
        if link is not None:  # only the server creates table rooms (app/games/bank/__init__.py)
            table = TableOf(str(options["parent"]), int(link["game"]), int(link["table"]))
        elif options.get("parent") is not None and options.get("group") is not True:
            previous = str(options["parent"])  # made by play_again in that room
        state = BankState(
            rounds=rounds,
            roll_entry=roll_entry,
            max_players=self.max_players,
            table=table,
            previous_game=previous,
            no_phone=frozenset(options.get("no_phone") or ()),
            house=HouseRules(**bank_house_rules(options)),
            fair=fairness_of(options),
            in_group=options.get("group") is True,
        )
        for seat in options.get("seats") or ():  # a made room is seated from its first event
            pid = seat["player_id"]
            state = after_join(state, pid, seat["name"], pid not in state.no_phone, 1)
        return state

    # -- decide ------------------------------------------------------------------
    def decide(
        self, state: BankState, sender: Sender, command: BankCommand, chance: Chance
    ) -> Event:
        match command:
            case Roll(dice=dice, total=total):
                return self._decide_roll(state, sender, dice, total, chance)
            case Bank(player_id=player_id):
                return self._decide_bank(state, sender, player_id)
            case Unbank(player_id=player_id):
                return self._decide_unbank(state, sender, player_id)
            case Start():
                return self._decide_start(state, sender)
            case Join():
                return self._decide_join(state, sender, command)
            case Kick(player_id=player_id):
                return self._decide_kick(state, sender, player_id)
            case PlayAgain(drop=drop):
                return self._decide_play_again(state, sender, drop or [])
            case Spawned():
                return self._decide_spawned(state, sender, command)
            case Lock():
                return self._decide_lock(state, sender)
            case AddBanker():
                if sender.role != SYSTEM or state.table is None:
                    raise RuleError("not_allowed", "Only a tournament hands out table bankers.")
                return Event("banker", {})
        raise RuleError("bad_message", f"Unknown command {command!r}.")

    def _decide_roll(
        self,
        state: BankState,
        sender: Sender,
        dice: list[int] | None,
        total: int | None,
        chance: Chance,
    ) -> Event:
        if dice is not None and total is not None:
            raise RuleError("bad_message", "A roll is its dice or its total, not both.")
        if dice is not None and (len(dice) != 2 or not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6)):
            raise RuleError("bad_message", "dice: two integers from 1 to 6, e.g. [3, 4].")
        if total is not None and not 3 <= total <= 11:
            raise RuleError(
                "bad_message", "total: 3 to 11 (2 and 12 are always doubles: send the dice)."
            )
        virtual = state.roll_entry == "virtual"
        entered = dice is not None or total is not None
        if not entered and not virtual:
            raise RuleError("bad_message", "A roll needs its dice, e.g. [3, 4].")
        if sender.role == "player":
            if state.roll_entry == "banker":
                raise RuleError("not_allowed", "In this game the banker enters the rolls.")
            if virtual and entered:
                raise RuleError("not_allowed", "In this game the server rolls the dice.")
        elif sender.role != "banker":
            raise RuleError("not_allowed", "Spectators cannot roll.")
        _require_playing(state)
        if sender.role == "player":
            me = state.player(sender.player_id or "")
            if me is not None and me.banked:
                raise RuleError("already_banked", "You banked this round: you sit it out.")
            if state.turn != sender.player_id:
                raise RuleError("not_your_turn", "It is not your turn to roll.")
        if total is not None:
            return Event("roll", {"total": total, "player_id": state.turn})
        rolled = list(dice) if dice is not None else list(chance.dice(2))
        return Event("roll", {"dice": rolled, "player_id": state.turn})

    def _decide_bank(self, state: BankState, sender: Sender, player_id: str | None) -> Event:
        if sender.role == "banker":
            if player_id is None:
                raise RuleError("bad_message", "The banker banks for a player: give player_id.")
            target = player_id
        elif sender.role == "player" and sender.player_id is not None:
            if player_id is not None and player_id != sender.player_id:
                raise RuleError("not_allowed", "A player banks only for itself.")
            target = sender.player_id
        else:
            raise RuleError("not_allowed", "Spectators cannot bank.")
        player = state.player(target)
        if player is None:
            raise RuleError("unknown_player", "No such player in this room.")
        too_late = bool(state.rounds_log) and state.rounds_log[-1].ended_by == "seven"
        if state.status == "finished" and too_late:
            raise RuleError("round_over", "Too late: the 7 came first.")
        _require_playing(state)
        if state.roll_count == 0:
            if too_late:
                raise RuleError("round_over", "Too late: the 7 came first.")
            raise RuleError("round_over", "No round is live: wait for the first roll.")
        if player.banked:
            raise RuleError("already_banked", f"{player.name} already banked this round.")
        if player.waiting:
            raise RuleError(
                "just_joined", f"{player.name} joined during this round: BANK after the next roll."
            )
        minimum = state.house.min_bank
        if minimum is not None and state.bank < minimum:
            raise RuleError("below_min_bank", f"House rules: no BANK below {minimum}.")
        data: dict[str, Any] = {"player_id": target, "amount": state.bank}
        if sender.role == "banker":
            data["by_banker"] = True
        return Event("bank", data)

    def _decide_unbank(self, state: BankState, sender: Sender, player_id: str) -> Event:
        if sender.role != "banker":
            raise RuleError("not_allowed", "Only the banker takes back a BANK.")
        player = state.player(player_id)
        if player is None:
            raise RuleError("unknown_player", "No such player in this room.")
        if state.status == "lobby":
            raise RuleError("not_started", "The game has not started yet.")
        banking = next((b for b in state.banked_now if b.player_id == player_id), None)
        if banking is not None:
            if not banking.by_banker:
                raise RuleError(
                    "not_allowed", f"{player.name} banked from their own phone: it stands."
                )
            data = {"player_id": player_id, "amount": banking.amount, "bank_seq": banking.seq}
            return Event("unbank", data)
        if any(b.player_id == player_id for r in state.rounds_log for b in r.banked):
            raise RuleError("round_over", "That BANK's round is over: it stands.")
        if state.status == "finished":
            raise RuleError("game_over", "The game is over.")
        raise RuleError("nothing_to_undo", f"{player.name} has not banked this round.")

    def _decide_start(self, state: BankState, sender: Sender) -> Event:
        if sender.role != "banker":
            raise RuleError("not_allowed", "Only the banker starts the game.")
        if state.status != "lobby":
            raise RuleError("already_started", "The game has already started.")
        if not state.players:
            raise RuleError("not_enough_players", "A game needs at least one player.")
        return Event("start", {})

    def _decide_join(self, state: BankState, sender: Sender, join: Join) -> Event:
        name = clean_name(join.name)
        if state.table is not None and sender.role != SYSTEM:
            raise RuleError("not_in_lobby", "This is a tournament table: join the tournament.")
        late = state.status == "playing" and join.by_banker
        if state.status != "lobby" and not late:
            raise RuleError("not_in_lobby", "The game has started: only the banker can seat you.")
        if name_taken(name, [p.name for p in state.players]):
            raise RuleError("name_taken", f"{name!r} is taken in this room.")
        if len(state.players) >= state.max_players:
            raise RuleError("room_full", f"A room seats at most {state.max_players} players.")
        data: dict[str, Any] = {"player_id": join.player_id, "name": name}
        if not join.phone or join.player_id in state.no_phone:
            data["phone"] = False
        if late:
            data["late"] = True
        return Event("join", data)

    def _decide_kick(self, state: BankState, sender: Sender, player_id: str) -> Event:
        if sender.role != "banker":
            raise RuleError("not_allowed", "Only the banker removes players.")
        if state.table is not None:
            raise RuleError("not_allowed", "The tournament seats this table.")
        if state.player(player_id) is None:
            raise RuleError("unknown_player", "No such player in this room.")
        if state.status != "lobby":
            raise RuleError("not_in_lobby", "Players can be removed only in the lobby.")
        return Event("kick", {"player_id": player_id})

    def _decide_play_again(self, state: BankState, sender: Sender, drop: list[str]) -> Event:
        if sender.role != "banker":
            raise RuleError("not_allowed", "Only the banker starts the next game.")
        if state.table is not None:
            raise RuleError("not_allowed", "The tournament plays its next game itself.")
        if state.status != "finished":
            raise RuleError("not_finished", "Play again once this game is over.")
        if state.again:
            raise RuleError("already_playing_again", "The next game is already made.")
        if any(state.player(pid) is None for pid in drop):
            raise RuleError("unknown_player", "No such player in this room.")
        kept = [p for p in state.players if p.id not in drop]
        if not kept:
            raise RuleError("not_enough_players", "A game needs at least one player.")
        seats = [{"player_id": p.id, "name": p.name} for p in kept]
        options: dict[str, Any] = {
            "rounds": state.rounds,
            "roll_entry": state.roll_entry,
            **state.house.differences(),
        }
        phoneless = [p.id for p in kept if not p.has_phone]
        if phoneless:
            options["no_phone"] = phoneless
        spawn = {"game": "bank", "options": options, "seats": seats}
        data = {"drop": sorted(set(drop)), "seats": seats}
        return Event("play_again", data, effects=(Effect("create_room", AGAIN, spawn),))

    def _decide_lock(self, state: BankState, sender: Sender) -> Event:
        """A table scored by its tournament; one reopened by an undo first stays open."""
        if sender.role != SYSTEM:
            raise RuleError("not_allowed", "Only the server closes a tournament table.")
        if state.status != "finished":
            raise RuleError("not_finished", "An undo reopened this table: it plays on.")
        if state.locked:
            raise RuleError("nothing_to_change", "This table is locked already.")
        return Event("lock", {})

    def _decide_spawned(self, state: BankState, sender: Sender, spawned: Spawned) -> Event:
        if sender.role != SYSTEM:
            raise RuleError("not_allowed", "Only the server says where the next game is.")
        if not state.again or spawned.effect != AGAIN:
            raise RuleError("not_allowed", "No next game is being made.")
        if state.next_game is not None:
            raise RuleError("already_playing_again", "The next game is already made.")
        return Event("spawned", {"code": spawned.code})

    # -- evolve ------------------------------------------------------------------
    def evolve(self, state: BankState, event: Event, seq: int) -> BankState:
        return revealing(self._evolve(state, event, seq), event.data)

    def _evolve(self, state: BankState, event: Event, seq: int) -> BankState:
        data = event.data
        if event.type == "roll":
            if "dice" in data:
                dice: Dice = (data["dice"][0], data["dice"][1])
                return after_roll(state, dice, dice[0] + dice[1], data["player_id"], seq)
            return after_roll(state, None, data["total"], data["player_id"], seq)
        if event.type == "bank":
            by_banker = bool(data.get("by_banker", False))
            return after_bank(state, data["player_id"], data["amount"], seq, by_banker)
        if event.type == "unbank":
            return after_unbank(state, data["player_id"], data["amount"], data["bank_seq"], seq)
        if event.type == "join":
            phone = bool(data.get("phone", True))
            return after_join(state, data["player_id"], data["name"], phone, seq)
        if event.type == "kick":
            kept = tuple(p for p in state.players if p.id != data["player_id"])
            return changed(state, players=kept)
        if event.type == "start":
            return changed(state, status="playing", round=1, turn=state.players[0].id)
        if event.type == "lock":
            return changed(state, locked=True)
        if event.type == "banker":  # a token, not the game: nothing of the state changes
            return state
        if event.type == "play_again":
            return changed(state, again=True)
        if event.type == "spawned":
            return changed(state, next_game=data["code"])
        raise ValueError(f"BANK! has no event {event.type!r}")

    def seating(self, event: Event) -> Seating:
        if event.type == "banker":  # the token that came with it opens the banker's seat
            return Seating(seated=(self.creator,))
        return join_kick_seating(event)

    def finished(self, state: BankState) -> bool:
        return state.status == "finished"

    def report(self, state: BankState) -> Mapping[str, Any] | None:
        """A tournament table tells its tournament its status, its totals once done, and
        that they are final once locked (the tournament takes them only then)."""
        if state.table is None:
            return group_result(state) if state.in_group else None
        if state.status != "finished":
            return {"status": state.status}
        totals = {p.id: p.score for p in state.players}
        if state.locked:
            return {"status": "finished", "totals": totals, "locked": True}
        return {"status": "finished", "totals": totals}

    # The view's own (bank/view.py), with no call in between: a room calls them at every event.
    view = staticmethod(view)
    view_changes = staticmethod(view_changes)
    view_patch = staticmethod(view_patch)

    def player_ids(self, state: BankState) -> list[str]:
        return [p.id for p in state.players]


def _require_playing(state: BankState) -> None:
    if state.status == "lobby":
        raise RuleError("not_started", "The game has not started yet.")
    if state.status == "finished":
        raise RuleError("game_over", "The game is over.")
