"""Who holds the room's roles: the host's (banker, organiser) and each seat's, moved
between devices without the game's rules (docs/protocol.md, "Hand-over").

Every game gets the same server-built commands (app/api/handover.py makes them from
HTTP requests): the host hands its role or a seat to a new token (`hand_over`), offers
its role to a seated player (`host_offer`); players vote for one of them when the
host's phone is gone (`host_vote`); the player offered the role, or chosen by a strict
majority of the electors (two votes at least, so no one takes it alone), claims it
(`claim_host`, logged as a `hand_over`). The server itself rebinds a role's tokens
(`rebind`: a tournament's hand-over reaching its tables, a table's banker link).

Only the table decides, and only when its host is gone: votes and a claim by votes are
refused (`host_present`) while the host has a socket and until it has been away for
`RoomPolicy.host_away_ms`; the electors are the seats whose phone had a socket before
the host left (a newcomer cannot elect); a host that comes back clears the votes.
Pure: the room applies what `decide` returns and rebinds the tokens.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from app.games.seam import PLAYER, Event, RuleError, Sender

COMMANDS = frozenset({"hand_over", "host_offer", "host_vote", "claim_host", "rebind"})
EVENTS = frozenset({"hand_over", "host_offer", "host_vote"})  # what the timeline never sees
MIN_VOTES = 2
MAX_VOTES = 10  # votes one player may cast until the role moves: the log stays bounded


@dataclass(frozen=True, slots=True)
class Succession:
    """The offer of the host's role and the votes, until someone takes the role; and
    what only presence tells (not logged, kept in the snapshot): since when the host
    is away, who may elect, which seats ever had a phone."""

    offer: str | None = None  # the seated player the host offered its role to
    votes: Mapping[str, str] = field(default_factory=dict)  # voter -> the one voted for
    cast: Mapping[str, int] = field(default_factory=dict)  # voter -> votes cast (MAX_VOTES)
    holder: str | None = None  # the seated player who took the host's role (its seat's phone)
    away_since: int | None = None  # ms: the host's last socket closed then (None: present)
    electors: frozenset[str] = frozenset()  # seats with a phone before the host left
    phones: frozenset[str] = frozenset()  # seats that have had a socket

    # -- the log's part (replayed) --------------------------------------------------------
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
            return replace(self, offer=None, votes={}, cast={}, holder=data.get("to"))
        return self

    # -- presence's part (the room's, from its sockets) ----------------------------------
    def host_left(self, now: int, seated: Collection[str]) -> Succession:
        return replace(self, away_since=now, electors=self.phones & frozenset(seated))

    def host_back(self) -> Succession:
        """The host came back: it decides again, and the votes cast meanwhile are void."""
        return replace(self, away_since=None, electors=frozenset(), votes={})

    def saw(self, online: Collection[str]) -> Succession:
        if self.phones.issuperset(online):
            return self
        return replace(self, phones=self.phones | frozenset(online))

    def unseat(self, player_id: str) -> Succession:
        votes = {k: v for k, v in self.votes.items() if player_id not in (k, v)}
        return replace(
            self,
            votes=votes,
            offer=None if self.offer == player_id else self.offer,
            holder=None if self.holder == player_id else self.holder,
            electors=self.electors - {player_id},
            phones=self.phones - {player_id},
        )

    # -- reading ---------------------------------------------------------------------------
    def needed(self, seated: Sequence[str]) -> int:
        """Votes that choose: a strict majority of the electors still seated, two at least."""
        return max(MIN_VOTES, len(self.electors & frozenset(seated)) // 2 + 1)

    def chosen(self, seated: Sequence[str]) -> str | None:
        """The seated player enough electors voted for (`needed`)."""
        counts: dict[str, int] = {}
        for voter, choice in self.votes.items():
            if voter in self.electors and voter in seated and choice in seated:
                counts[choice] = counts.get(choice, 0) + 1
        needed = self.needed(seated)
        return next((c for c, n in counts.items() if n >= needed), None)

    def view(self, seated: Sequence[str], host_connected: bool, wait_ms: int) -> dict[str, Any]:
        """The `handover` field of the state (an extension): what the pages show."""
        votes = {k: v for k, v in self.votes.items() if k in seated and v in seated}
        offer = self.offer if self.offer in seated else None
        return {
            "host_connected": host_connected,
            "offer": offer,
            "votes": votes,
            "needed": self.needed(seated),
            "chosen": self.chosen(seated),
            "electors": sorted(self.electors & frozenset(seated)),
            "wait_seconds": wait_ms // 1000,
            "holder": self.holder,
        }

    def record(self) -> dict[str, Any]:
        """What the snapshot keeps (presence's part is in no log)."""
        return {
            "offer": self.offer,
            "votes": self.votes,
            "cast": self.cast,
            "holder": self.holder,
            "away_since": self.away_since,
            "electors": sorted(self.electors),
            "phones": sorted(self.phones),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Succession:
        return cls(
            offer=record["offer"],
            votes=dict(record["votes"]),
            cast=dict(record["cast"]),
            holder=record["holder"],
            away_since=record["away_since"],
            electors=frozenset(record["electors"]),
            phones=frozenset(record["phones"]),
        )


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
    command: Mapping[str, Any],
    new_token: str | None,
    now: int,
    wait_ms: int,
) -> Event:
    """One of `COMMANDS` but `rebind` (the room's: `Room._rebind_command`) as its event."""
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
        if to == succession.offer:
            raise RuleError("already_offered", "That is your offer already.")
        return Event("host_offer", {"to": to})
    me = sender.player_id or ""
    if kind == "claim_host" and succession.offer == me:
        return Event("hand_over", {"principal": host, "to": me, "how": "offer"})
    _table_may_choose(succession, host, me, now, wait_ms)
    if kind == "host_vote":
        choice = command.get("for")
        if choice is not None and choice not in seated:
            raise RuleError("unknown_player", "No such player in this room.")
        if succession.cast.get(me, 0) >= MAX_VOTES:
            raise RuleError("too_many_votes", f"A player votes at most {MAX_VOTES} times.")
        if succession.votes.get(me) == choice:
            raise RuleError("already_voted", "That is your vote already.")
        return Event("host_vote", {"voter": me, "for": choice})
    if succession.chosen(seated) != me:
        raise RuleError(
            "not_chosen",
            f"The {host} did not offer you the role and the table has not chosen you.",
        )
    return Event("hand_over", {"principal": host, "to": me, "how": "votes"})


def _table_may_choose(succession: Succession, host: str, me: str, now: int, wait_ms: int) -> None:
    """Votes count only while the host is gone, from the seats that were at the table."""
    if succession.away_since is None:
        raise RuleError("host_present", f"The {host} is at the table: they hand over the role.")
    left = wait_ms - (now - succession.away_since)
    if left > 0:
        raise RuleError(
            "host_present",
            f"The {host} left {(now - succession.away_since) // 1000} s ago: the table may "
            f"choose after {wait_ms // 1000} s.",
        )
    if me not in succession.electors:
        raise RuleError(
            "not_allowed", f"Only a seat whose phone was at the table before the {host} left votes."
        )
