"""Hand-over in the room record (app/rooms/succession.py): who may move which role, the
tokens rebound, the old token refused, and a restore that agrees."""

from __future__ import annotations

from typing import Any

import orjson

from app.rooms.eventlog import verify
from app.rooms.succession import MAX_VOTES, Succession
from tests.rooms.test_room import BANKER_HASH, Harness, playing, reply, th


def server(h: Harness, command: dict[str, Any], role: str, pid: str | None, **more: Any) -> Any:
    envelope = {"k": "cmd", "role": role, "pid": pid, "id": None, "cmd": command, "server": True}
    return h.send({**envelope, **more})


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
        "not_chosen"
    )
    assert h.room.seq == seq and "x" * 64 not in h.room.tokens


def test_a_socket_cannot_send_the_hand_over_commands() -> None:
    h = playing()
    answer = reply(h.cmd({"type": "hand_over", "principal": "banker"}))
    assert answer["code"] == "bad_message"
    assert h.room.tokens[BANKER_HASH] == "banker"


def test_votes_need_a_strict_majority_of_the_seats_and_two_voters() -> None:
    votes = Succession(votes={"ann": "ann"})
    assert votes.chosen(["ann", "bob"]) is None  # one player alone, even of two
    assert Succession(votes={"ann": "bob", "bob": "bob"}).chosen(["ann", "bob"]) == "bob"
    four = Succession(votes={"ann": "bob", "bob": "bob"})
    assert four.chosen(["ann", "bob", "cy", "dee"]) is None  # 2 of 4 is not a majority
    gone = Succession(votes={"ann": "bob", "zed": "bob", "bob": "bob"})
    assert gone.chosen(["ann", "bob", "cy", "dee"]) is None  # zed's vote no longer counts
    view = gone.view(["ann", "bob", "cy"], host_connected=False)
    assert view == {
        "host_connected": False,
        "offer": None,
        "votes": {"ann": "bob", "bob": "bob"},
        "needed": 2,
        "chosen": "bob",
    }


def test_a_vote_is_changed_or_withdrawn_and_the_votes_end_with_the_hand_over() -> None:
    h = playing()
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
