"""Who holds the room's roles: the host's (banker, organiser) and each seat's, moved
between devices without the game's rules (docs/protocol.md, "Hand-over").

Every game gets the same four server-built commands (app/api/handover.py makes them
from HTTP requests): the host hands its role or a seat to a new token (`hand_over`),
offers its role to a seated player (`host_offer`); players vote for one of them when
the host's phone is gone (`host_vote`); the player offered the role, or chosen by a
strict majority of the seats (two votes at least, so no one takes it alone), claims
it (`claim_host`, logged as a `hand_over`). Pure: the room applies what `decide`
returns and rebinds the tokens; `Succession.evolve` is the fold a restore replays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from app.games.seam import PLAYER, Event, RuleError, Sender

COMMANDS = frozenset({"hand_over", "host_offer", "host_vote", "claim_host"})
EVENTS = frozenset({"hand_over", "host_offer", "host_vote"})  # what the timeline never sees
MIN_VOTES = 2
MAX_VOTES = 10  # votes one player may cast until the role moves: the log stays bounded


@dataclass(frozen=True, slots=True)
class Succession:
    """The offer of the host's role and the votes, until someone takes the role."""

    offer: str | None = None  # the seated player the host offered its role to
    votes: Mapping[str, str] = field(default_factory=dict)  # voter -> the one voted for
    cast: Mapping[str, int] = field(default_factory=dict)  # voter -> votes cast (MAX_VOTES)

    def evolve(self, event_type: str, data: Mapping[str, Any], host: str) -> Succession:
        if event_type == "host_offer":
            return replace(self, offer=data["to"])
        if event_type == "host_vote":
            voter = data["voter"]
            votes = {k: v for k, v in self.votes.items() if k != voter}
            if data["for"] is not None:
                votes[voter] = data["for"]
            return replace(
                self, votes=votes, cast={**self.cast, voter: self.cast.get(voter, 0) + 1}
            )
        if data["principal"] == host:  # the role moved: its offer and votes are spent
            return Succession()
        return self

    def chosen(self, seated: Sequence[str]) -> str | None:
        """The seated player a strict majority of the seats voted for (two votes at least)."""
        counts: dict[str, int] = {}
        for voter, choice in self.votes.items():
            if voter in seated and choice in seated:
                counts[choice] = counts.get(choice, 0) + 1
        for choice, count in counts.items():
            if count >= MIN_VOTES and count * 2 > len(seated):
                return choice
        return None

    def view(self, seated: Sequence[str], host_connected: bool) -> dict[str, Any]:
        """The `handover` field of the state (an extension): what the pages show."""
        votes = {k: v for k, v in self.votes.items() if k in seated and v in seated}
        offer = self.offer if self.offer in seated else None
        return {
            "host_connected": host_connected,
            "offer": offer,
            "votes": votes,
            "needed": max(MIN_VOTES, len(seated) // 2 + 1),
            "chosen": self.chosen(seated),
        }


def command_type(text: str) -> str | None:
    """The `type` of a server-built command when it is one of ours (None otherwise)."""
    try:
        command = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    kind = command.get("type") if isinstance(command, dict) else None
    return kind if kind in COMMANDS else None


def decide(
    succession: Succession,
    host: str,
    seated: Sequence[str],
    sender: Sender,
    text: str,
    new_token: str | None,
) -> Event:
    """One of `COMMANDS` (already known by `command_type`) as the event it causes."""
    command: dict[str, Any] = orjson.loads(text)
    kind = command["type"]
    if kind in ("hand_over", "host_offer") and sender.role != host:
        raise RuleError("not_allowed", f"Only the {host} hands over a role.")
    if kind in ("host_vote", "claim_host") and sender.role != PLAYER:
        raise RuleError("not_allowed", "Only a seated player votes for or claims the role.")
    if kind in ("hand_over", "claim_host") and new_token is None:
        raise RuleError("bad_message", "A hand-over needs the new token.")
    if kind == "hand_over":
        principal = command.get("principal")
        if principal != host and principal not in seated:
            raise RuleError("unknown_player", "No such player in this room.")
        return Event("hand_over", {"principal": principal})
    if kind == "host_offer":
        to = command.get("to")
        if to is not None and to not in seated:
            raise RuleError("unknown_player", "No such player in this room.")
        return Event("host_offer", {"to": to})
    me = sender.player_id or ""
    if kind == "host_vote":
        choice = command.get("for")
        if choice is not None and choice not in seated:
            raise RuleError("unknown_player", "No such player in this room.")
        if succession.cast.get(me, 0) >= MAX_VOTES:
            raise RuleError("too_many_votes", f"A player votes at most {MAX_VOTES} times.")
        if succession.votes.get(me) == choice:
            raise RuleError("already_voted", "That is your vote already.")
        return Event("host_vote", {"voter": me, "for": choice})
    how = "offer" if succession.offer == me else "votes"
    if how == "votes" and succession.chosen(seated) != me:
        raise RuleError(
            "not_chosen",
            f"The {host} did not offer you the role and the table has not chosen you.",
        )
    return Event("hand_over", {"principal": host, "to": me, "how": how})
