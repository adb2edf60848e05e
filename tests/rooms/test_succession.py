"""Hand-over in the room record (app/rooms/succession.py): who may move which role, the
tokens rebound, the old token refused, and a restore that agrees."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from app.rooms.eventlog import verify
from app.rooms.policy import DEFAULT_POLICY, RoomPolicy
from app.rooms.succession import MAX_VOTES, Succession
from tests.rooms.test_room import BANKER_HASH, Harness, playing, reply, th


def server(h: Harness, command: dict[str, Any], role: str, pid: str | None, **more: Any) -> Any:
    envelope = {"k": "cmd", "role": role, "pid": pid, "id": None, "cmd": command, "server": True}
    return h.send({**envelope, **more})


def vote(h: Harness, voter: str, choice: str | None) -> dict[str, Any]:
    return reply(server(h, {"type": "host_vote", "for": choice}, "player", voter, auth=th(voter)))


def banker_gone(h: Harness, *phones: str) -> None:
    """These seats' phones are at the table, the banker's phone leaves and stays away."""
    for pid in ("banker", *phones):
        h.presence(pid, 1)
    h.presence("banker", -1)
    h.now += DEFAULT_POLICY.host_away_ms


def test_the_banker_role_moves_to_a_new_token_and_the_old_one_is_refused() -> None:
    h = playing()
    h.roll(2, 3)
    outcome = server(
        h,
        {"type": "hand_over", "principal": "banker"},
        "banker",
        None,
        th="n" * 64,
        auth=BANKER_HASH,
    )
    assert reply(outcome)["type"] == "ack"
    assert [f.kind for f in outcome.frames] == ["state", "revoke"]
    assert outcome.frames[1].text == BANKER_HASH
    assert h.room.tokens["n" * 64] == "banker" and BANKER_HASH not in h.room.tokens
    seq = h.room.seq
    stale = h.send(
        {
            "k": "cmd",
            "role": "banker",
            "pid": None,
            "id": "late",
            "cmd": {"type": "roll", "dice": [4, 4]},
            "auth": BANKER_HASH,
        }
    )
    assert reply(stale)["code"] == "bad_token" and h.room.seq == seq and stale.entries == []
    h.undo()  # the roll before it is taken back; the hand-over stands
    assert h.room.tokens["n" * 64] == "banker"
    restored = h.restored()
    assert restored.tokens == h.room.tokens and restored.view == h.room.view
    assert verify(h.entries)


def test_only_the_host_moves_roles_and_only_to_seats_of_the_room() -> None:
    h = playing()
    seq = h.room.seq
    command = {"type": "hand_over", "principal": "banker"}
    assert reply(server(h, command, "player", "ann", th="x" * 64))["code"] == "not_allowed"
    moved = {"type": "hand_over", "principal": "zed"}
    assert reply(server(h, moved, "banker", None, th="x" * 64))["code"] == "unknown_player"
    assert reply(server(h, command, "banker", None))["code"] == "bad_message"  # no new token
    offer = {"type": "host_offer", "to": "ann"}
    assert reply(server(h, offer, "player", "bob"))["code"] == "not_allowed"
    assert reply(server(h, {"type": "claim_host"}, "player", "ann", th="x" * 64))["code"] == (
        "host_present"  # the banker has not left: only they move the role
    )
    assert h.room.seq == seq and "x" * 64 not in h.room.tokens


def test_a_socket_cannot_send_the_hand_over_commands() -> None:
    h = playing()
    answer = reply(h.cmd({"type": "hand_over", "principal": "banker"}))
    assert answer["code"] == "bad_message"
    assert h.room.tokens[BANKER_HASH] == "banker"


def test_votes_need_a_strict_majority_of_the_electors_and_two_voters() -> None:
    two = frozenset({"ann", "bob"})
    votes = Succession(votes={"ann": "ann"}, electors=two)
    assert votes.chosen(["ann", "bob"]) is None  # one player alone, even of two
    both = Succession(votes={"ann": "bob", "bob": "bob"}, electors=two)
    assert both.chosen(["ann", "bob"]) == "bob"
    four = replace(both, electors=frozenset({"ann", "bob", "cy", "dee"}))
    assert four.chosen(["ann", "bob", "cy", "dee"]) is None  # 2 of 4 is not a majority
    assert replace(both, electors=frozenset()).chosen(["ann", "bob"]) is None  # no electors
    gone = Succession(
        votes={"ann": "bob", "zed": "bob", "bob": "bob"}, electors=frozenset({"ann", "bob", "cy"})
    )
    assert gone.chosen(["ann", "bob", "cy", "dee"]) == "bob"  # dee came later: not counted
    view = gone.view(["ann", "bob", "cy"], host_connected=False, wait_ms=120_000)
    assert view == {
        "host_connected": False,
        "offer": None,
        "votes": {"ann": "bob", "bob": "bob"},
        "needed": 2,
        "chosen": "bob",
        "electors": ["ann", "bob", "cy"],
        "wait_seconds": 120,
        "holder": None,
    }


def test_a_vote_is_changed_or_withdrawn_and_the_votes_end_with_the_hand_over() -> None:
    h = playing()
    banker_gone(h, "ann", "bob", "cy")
    for voter, choice in (("ann", "bob"), ("ann", None), ("ann", "cy"), ("bob", "cy")):
        server(h, {"type": "host_vote", "for": choice}, "player", voter, auth=th(voter))
    assert h.view["handover"]["votes"] == {"ann": "cy", "bob": "cy"}
    assert h.view["handover"]["chosen"] == "cy"
    taken = server(h, {"type": "claim_host"}, "player", "cy", th="c" * 64, auth=th("cy"))
    assert reply(taken)["type"] == "ack"
    assert h.room.tokens["c" * 64] == "banker" and h.room.tokens[th("cy")] == "cy"
    assert h.view["handover"]["votes"] == {} and h.view["handover"]["chosen"] is None
    assert orjson.loads(h.room.snapshot())["tokens"] == h.restored().tokens
    assert h.restored().view == h.room.view
    assert h.entries[-1]["data"] == {"principal": "banker", "to": "cy", "how": "votes"}


def test_a_player_casts_a_bounded_number_of_votes_and_never_the_same_twice() -> None:
    h = playing()
    banker_gone(h, "ann")
    vote = {"type": "host_vote", "for": "bob"}
    assert reply(server(h, vote, "player", "ann"))["type"] == "ack"
    seq = h.room.seq
    assert reply(server(h, vote, "player", "ann"))["code"] == "already_voted"
    choices = ["cy", "bob"] * 10
    answers = [reply(server(h, {"type": "host_vote", "for": c}, "player", "ann")) for c in choices]
    assert [a["type"] for a in answers[: MAX_VOTES - 1]] == ["ack"] * (MAX_VOTES - 1)
    assert {a.get("code") for a in answers[MAX_VOTES - 1 :]} == {"too_many_votes"}
    assert h.room.seq == seq + MAX_VOTES - 1
    assert h.restored().roles == h.room.roles  # the count is folded from the log again


def test_the_table_chooses_only_once_its_banker_has_been_away_long_enough() -> None:
    h = Harness("Ann", "Bob", "Cy")  # the lobby: anyone with the code may still join
    for pid in ("banker", "ann", "bob"):
        h.presence(pid, 1)
    seq = h.room.seq
    assert vote(h, "ann", "bob")["code"] == "host_present"  # the banker's phone is here
    h.presence("banker", -1)
    h.now += DEFAULT_POLICY.host_away_ms - 100
    assert vote(h, "ann", "bob")["code"] == "host_present"  # not away long enough
    assert h.room.seq == seq
    h.now += 100
    assert reply(h.join("Newcomer", "new"))["type"] == "ack"  # seated after the banker left
    h.presence("new", 1)
    h.presence("cy", 1)  # seated before, but its phone came only after the banker left
    assert vote(h, "new", "new")["code"] == "not_allowed"
    assert vote(h, "cy", "new")["code"] == "not_allowed"
    assert h.view["handover"]["electors"] == ["ann", "bob"]
    assert vote(h, "ann", "bob")["type"] == "ack"
    assert h.restored().roles == h.room.roles  # the snapshot keeps what presence told
    h.presence("banker", 1)  # back: the votes are void, and stay void after a restore
    assert h.view["handover"]["votes"] == {} and h.restored().view == h.room.view
    assert vote(h, "bob", "bob")["code"] == "host_present"


def test_a_room_of_two_cannot_elect_its_lone_player() -> None:
    h = Harness("Ann")
    h.start()
    banker_gone(h, "ann")
    assert vote(h, "ann", "ann")["type"] == "ack"
    assert h.view["handover"]["needed"] == 2 and h.view["handover"]["chosen"] is None
    claim = server(h, {"type": "claim_host"}, "player", "ann", th="a" * 64, auth=th("ann"))
    assert reply(claim)["code"] == "not_chosen"


def test_the_new_banker_s_seat_is_online_from_the_banker_s_phone() -> None:
    h = playing()
    banker_gone(h, "ann", "bob")
    vote(h, "ann", "bob")
    vote(h, "bob", "bob")
    taken = server(h, {"type": "claim_host"}, "player", "bob", th="n" * 64, auth=th("bob"))
    assert reply(taken)["type"] == "ack"
    h.presence("bob", -1)  # Bob's phone now opens the room as the banker
    h.presence("banker", 1)
    bob = next(p for p in h.view["players"] if p["id"] == "bob")
    assert bob["connected"] is True and h.view["handover"]["holder"] == "bob"
    assert h.restored().view == h.room.view


def test_the_same_offer_twice_is_refused() -> None:
    h = playing()
    offer = {"type": "host_offer", "to": "ann"}
    assert reply(server(h, offer, "banker", None))["type"] == "ack"
    seq = h.room.seq
    assert reply(server(h, offer, "banker", None))["code"] == "already_offered"
    assert h.room.seq == seq


def test_a_full_log_takes_no_hand_over_but_a_revocation() -> None:
    h = playing()
    h.room.policy = RoomPolicy(max_log_events=h.room.seq, host_away_ms=1)
    seq = h.room.seq
    hand = {"type": "hand_over", "principal": "banker"}
    assert reply(server(h, hand, "banker", None, th="n" * 64))["code"] == "log_full"
    assert reply(server(h, {"type": "host_offer", "to": "ann"}, "banker", None))["code"] == (
        "log_full"
    )
    link = {"type": "rebind", "how": "banker_link", "host": True, "keep": [], "token": "k" * 64}
    assert reply(server(h, link, "system", None))["code"] == "log_full"
    assert reply(h.roll(3, 4))["code"] == "log_full"
    assert h.room.seq == seq and "n" * 64 not in h.room.tokens
    revoke = {"type": "rebind", "how": "parent", "host": True, "revoke": [BANKER_HASH]}
    moved = server(h, {**revoke, "token": "o" * 64}, "system", None)
    assert reply(moved)["type"] == "ack" and [f.kind for f in moved.frames] == ["state", "revoke"]
    assert h.room.tokens.get("o" * 64) == "banker" and BANKER_HASH not in h.room.tokens


def test_a_banker_link_replaces_the_last_one_and_keeps_the_organiser() -> None:
    h = playing()
    link = {"type": "rebind", "how": "banker_link", "host": True, "keep": [BANKER_HASH]}
    for n in range(5):
        server(h, {**link, "token": str(n) * 64}, "system", None)
    bankers = sorted(t for t, p in h.room.tokens.items() if p == "banker")
    assert bankers == sorted([BANKER_HASH, "4" * 64])
    assert h.entries[-1]["data"] == {"principal": "banker", "how": "banker_link"}
    assert reply(server(h, {**link, "token": "x" * 64}, "banker", None))["code"] == "not_allowed"
    assert h.restored().tokens == h.room.tokens
