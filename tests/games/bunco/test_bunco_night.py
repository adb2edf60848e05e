"""A classic Bunco night (12 players, 3 tables, one set) over real WebSockets.

Seating is drawn at random at `start`, so everyone is named by the seat drawn: the
High table starts as A B C D, the Middle E F G H, the Low I J K L (seats 0..3,
clockwise; teams are seats 0+2 and 1+3). Dice are entered by each roller
(`roll_entry: roller`) and scripted per seat, so the hand computation below decides
who wins where. Moves: the High table's winners go to Low, Middle's and Low's one
table up; the two who stayed take seats 0 and 1, the two arrivals seats 2 and 3
(each pair in its old seat order), so every partnership changes.
"""

from __future__ import annotations

from typing import Any

from tests.client import Client
from tests.conftest import ServerProcess
from tests.games.bunco.bunco_night import (
    BuncoNight,
    Round,
    assert_bunco_replays,
    dice,
    http_for,
    play_night,
    refused_unchanged,
    seat_letters,
    tally,
)

# Rolls: "F1" F scores one point (one die shows the round's number), "AB" A rolls a
# Bunco (21), "I5" three of a kind of another number, "E-" nothing (the dice pass to
# the next seat). Any scoring roll keeps the dice.
CLASSIC_NIGHT = (
    # Round 1. High A B C D: A's Bunco rings the bell, 21-0 (A: 1 Bunco).
    # Middle E F G H: E nothing, F one point: F+H win 1-0... as team 1 (0-1).
    # Low I J K L: I one point: I+K win 1-0.
    # Moves: A+C (High) to Low; F+H (Middle) up to High; I+K (Low) up to Middle.
    #   High: B D stay, F H arrive -> B D F H; Middle: E G + I K -> E G I K;
    #   Low: J L + A C -> J L A C. B, a High player now, rings round 2.
    Round("ABCD EFGH IJKL", "E- F1 I1 AB", "AC FH IK", ringer="B"),
    # Round 2. Middle: E rolls a Bunco (21 at a lower table rings nothing; E: 1 Bunco).
    # Low: J nothing, L one point: L+C win 0-1. High: B nothing, D's Bunco rings the
    # bell: D+H win (D: 1 Bunco). L, who holds the dice at Low, rolls right after the
    # bell: round_over. Moves: D H to Low; E I up to High; L C up to Middle.
    #   High: B F + E I -> B F E I; Middle: G K + L C -> G K L C; Low: J A + D H -> J A D H.
    Round("BDFH EGIK JLAC", "EB J- L1 B- DB", "DH EI CL", late="L"),
    # Round 3. Middle: G nothing, K one point: K+C win 0-1. Low: J one point, J nothing,
    # A one point, A nothing: 1-1 and D holds the dice. High: B's Bunco rings the bell
    # (B: 1 Bunco). Low is tied: roll-off from D (seat 2): D one point then nothing,
    # H, J, A nothing: 4 turns, 2-1, J+D win. K rolls at Middle during the roll-off:
    # round_over. Moves: B E to Low; K C up to High; J D up to Middle.
    #   High: F I + K C -> F I K C; Middle: G L + J D -> G L J D; Low: A H + B E -> A H B E.
    Round(
        "BFEI GKLC JADH",
        "G- K1 J1 J- A1 A- BB",
        "BE CK DJ",
        late="K",
        rolloff="D1 D- H- J- A-",
        ringer="F",
    ),
    # Round 4. Middle: G one point: G+J win. Low: A nothing, H one point: H+E win 0-1.
    # High, no Bunco: F nothing; I three 1s (5), nothing; K one point (1-5), nothing;
    # C three 1s three times (20) and one point: 21, C+I win 1-21.
    # Moves: I C to Low; G J up to High; H E up to Middle.
    #   High: F K + G J -> F K G J; Middle: L D + H E -> L D H E; Low: A B + I C -> A B I C.
    Round(
        "FIKC GLJD AHBE",
        "G1 A- H1 F- I5 I- K1 K- C5 C5 C5 C1",
        "CI GJ EH",
    ),
    # Round 5. Middle: L nothing, D one point: D+E win. Low: A one point: A+I win.
    # High: F's Bunco (F: 1 Bunco): F+G win. D rolls right after the bell: round_over.
    # Moves: F G to Low; D E up to High; A I up to Middle.
    #   High: K J + D E -> K J D E; Middle: L H + A I -> L H A I; Low: B C + F G -> B C F G.
    Round("FKGJ LDHE ABIC", "L- D1 A1 FB", "FG DE AI", late="D", ringer="K"),
    # Round 6, the last: Middle: L one point: L+A win. Low: B nothing, C one point: C+G
    # win. High: K nothing, J's Bunco (J: 1 Bunco): J+E win. The night is finished:
    # nobody moves.
    Round("KJDE LHAI BCFG", "L1 B- C1 K- JB", "EJ AL CG", ringer=None),
)
CLASSIC_BELLS = "ADBCFJ"  # who rang each round's bell
# Winners per round: R1 A C F H I K; R2 D H E I L C; R3 B E K C J D; R4 I C G J H E;
# R5 F G D E A I; R6 J E L A C G. Counted per player (wins, losses, Buncos):
CLASSIC_TALLY = {
    "A": (3, 3, 1),  # R1 R5 R6
    "B": (1, 5, 1),  # R3
    "C": (5, 1, 0),  # R1 R2 R3 R4 R6
    "D": (3, 3, 1),  # R2 R3 R5
    "E": (5, 1, 1),  # R2 R3 R4 R5 R6
    "F": (2, 4, 1),  # R1 R5
    "G": (3, 3, 0),  # R4 R5 R6
    "H": (3, 3, 0),  # R1 R2 R4
    "I": (4, 2, 0),  # R1 R2 R4 R5
    "J": (3, 3, 1),  # R3 R4 R6
    "K": (2, 4, 0),  # R1 R3
    "L": (2, 4, 0),  # R2 R6
}
CLASSIC_WINNERS = "CE"  # the most wins, 5 each: both win


def classic_night(base_url: str) -> BuncoNight:
    night = BuncoNight(base_url, sets=1, roll_entry="roller")
    for n in range(12):
        night.join(f"Player {n + 1}")
    return night


def assert_classic_result(final: dict[str, Any], letter: dict[str, str]) -> None:
    assert final["status"] == "finished" and final["phase"] is None
    assert tally(final, letter) == CLASSIC_TALLY
    assert "".join(sorted(letter[pid] for pid in final["winners"])) == CLASSIC_WINNERS
    assert "".join(letter[r["bell_by"]] for r in final["rounds_log"]) == CLASSIC_BELLS
    assert [(r["set"], r["round"]) for r in final["rounds_log"]] == [(1, n) for n in range(1, 7)]


async def test_a_classic_night_of_twelve_moves_and_counts_as_computed_by_hand(
    server: ServerProcess,
) -> None:
    night = classic_night(server.base_url)
    banker, players, spectator = await night.connect([server.ws_url])
    letter, final = await play_night(night, banker, players, spectator, CLASSIC_NIGHT)

    assert_classic_result(final, letter)
    assert final == night.state()
    assert_bunco_replays(night.log(), final)
    for client in (banker, spectator, *players.values()):
        assert await client.state_at_least(final["seq"]) == final
    await refused_unchanged(night, banker, "game_over", type="ring")
    await refused_unchanged(night, banker, "round_over", type="roll", table=0, dice=[1, 2, 3])


async def test_bad_input_on_every_message_is_refused_with_the_contract_code_and_changes_nothing(
    server: ServerProcess,
) -> None:
    night = BuncoNight(server.base_url, roll_entry="roller")
    for n in range(5):
        night.join(f"P{n}")
    banker, players, spectator = await night.connect([server.ws_url])
    anyone = next(iter(players.values()))

    # The lobby.
    await refused_unchanged(night, banker, "bad_player_count", type="start")
    await refused_unchanged(night, anyone, "not_allowed", type="start")
    await refused_unchanged(night, anyone, "not_started", type="roll", dice=[1, 2, 3])
    await refused_unchanged(night, anyone, "not_allowed", type="ring")  # not at the High table
    await refused_unchanged(night, banker, "not_started", type="ring")
    await refused_unchanged(night, banker, "nothing_to_undo", type="undo")
    await refused_unchanged(night, banker, "unknown_player", type="kick", player_id="nobody")
    kicked = night.players["P0"][0]
    await banker.ok(type="kick", player_id=kicked)  # 4 left: still no night
    players.pop(kicked)
    assert kicked not in [p["id"] for p in night.state()["players"]]
    await refused_unchanged(night, banker, "bad_player_count", type="start")
    for n in range(5, 9):
        pid = night.join(f"P{n}")
        players[pid] = await Client.connect(server.ws_url, night.code, night.players[f"P{n}"][1])
    start = await banker.ok(type="start")
    state = await spectator.state_at_least(start)
    letter = seat_letters(state)  # High A B C D, Low E F G H
    seat = {letter[pid]: client for pid, client in players.items()}

    # Messages the edge or the rules cannot read: bad_message with the command's id.
    for bad in ([1, 2], [1, 2, 3, 4], [0, 1, 1], [7, 1, 1], ["1", "2", "3"], [1.5, 2, 3], "123"):
        await refused_unchanged(night, seat["A"], "bad_message", type="roll", dice=bad)
    await refused_unchanged(night, seat["A"], "bad_message", type="roll")  # no dice, roller mode
    await refused_unchanged(night, seat["A"], "bad_message", type="roll", dice=None)
    await refused_unchanged(night, banker, "bad_message", type="roll", dice=[1, 2, 3])  # no table
    for table in ("0", 0.5, True, [0]):
        await refused_unchanged(
            night, banker, "bad_message", type="roll", table=table, dice=[1, 2, 3]
        )
    await refused_unchanged(night, seat["A"], "bad_message", type="toss")
    await refused_unchanged(night, spectator, "bad_message", type="roll", dice=[0, 0, 0])

    # Who may do what, and when.
    await refused_unchanged(night, spectator, "not_allowed", type="roll", dice=[1, 2, 3])
    await refused_unchanged(night, seat["A"], "not_allowed", type="roll", table=1, dice=[1, 2, 3])
    await refused_unchanged(night, seat["A"], "not_allowed", type="undo")
    await refused_unchanged(night, seat["A"], "not_allowed", type="kick", player_id="x")
    await refused_unchanged(night, banker, "unknown_table", type="roll", table=2, dice=[1, 2, 3])
    await refused_unchanged(night, banker, "unknown_table", type="roll", table=-1, dice=[1, 2, 3])
    await refused_unchanged(night, banker, "already_started", type="start")
    pid_of_a = next(pid for pid, ltr in letter.items() if ltr == "A")
    await refused_unchanged(night, banker, "not_in_lobby", type="kick", player_id=pid_of_a)
    await refused_unchanged(night, seat["B"], "not_your_turn", type="roll", dice=[1, 2, 3])
    await refused_unchanged(night, seat["F"], "not_your_turn", type="roll", dice=[1, 2, 3])
    await refused_unchanged(night, seat["E"], "not_allowed", type="ring")  # Low, not High
    await refused_unchanged(night, banker, "round_in_progress", type="ring")
    await refused_unchanged(night, seat["A"], "round_in_progress", type="ring")

    # Low is tied 0-0 when A's Bunco rings the bell: a roll-off from E.
    bell = await seat["A"].ok(type="roll", dice=dice("B", 1))
    assert (await spectator.state_at_least(bell))["phase"] == "rolloff"
    await refused_unchanged(night, seat["A"], "round_over", type="roll", dice=[1, 2, 3])
    await refused_unchanged(night, banker, "round_over", type="roll", table=0, dice=[1, 2, 3])
    await refused_unchanged(night, seat["F"], "not_your_turn", type="roll", dice=[1, 2, 3])
    await refused_unchanged(night, banker, "round_in_progress", type="ring")
    for roll in ("E1", "E-", "F-", "G-", "H-"):  # 4 full turns: 1-0, E+G win
        last = await seat[roll[0]].ok(type="roll", dice=dice(roll[1], 1))
    state = await spectator.state_at_least(last)
    assert state["phase"] == "waiting" and state["round"] == 2

    # Between rounds: no roll before the ring; the High table or the host rings.
    await refused_unchanged(night, seat["C"], "round_over", type="roll", dice=[2, 2, 2])
    await refused_unchanged(night, banker, "round_over", type="roll", table=1, dice=[2, 2, 2])
    high = state["tables"][0]["seats"]
    low_player = state["tables"][1]["seats"][0]
    await refused_unchanged(night, players[low_player], "not_allowed", type="ring")
    await players[high[3]].ok(type="ring")
    await refused_unchanged(night, players[high[3]], "round_in_progress", type="ring")
    await refused_unchanged(night, players[high[1]], "not_your_turn", type="roll", dice=[2, 1, 1])
    assert_bunco_replays(night.log(), night.state())


async def test_each_roll_entry_mode_takes_dice_only_from_whom_it_names(
    server: ServerProcess,
) -> None:
    for mode in ("virtual", "banker"):
        night = BuncoNight(server.base_url, roll_entry=mode)
        for n in range(8):
            night.join(f"P{n}")
        banker, players, spectator = await night.connect([server.ws_url])
        start = await banker.ok(type="start")
        state = await spectator.state_at_least(start)
        first = players[state["tables"][1]["seats"][0]]
        if mode == "virtual":
            await refused_unchanged(night, first, "not_allowed", type="roll", dice=[1, 2, 3])
            rolled = await first.ok(type="roll")  # the server rolls
            await banker.ok(type="roll", table=0)  # the host too, without dice
        else:
            await refused_unchanged(night, first, "not_allowed", type="roll", dice=[1, 2, 3])
            await refused_unchanged(night, banker, "bad_message", type="roll", table=0)
            rolled = await banker.ok(type="roll", table=1, dice=[1, 2, 3])
        events = night.log()
        roll = next(e for e in events if e["seq"] == rolled)
        assert roll["type"] == "roll" and roll["data"]["table"] == 1
        assert len(roll["data"]["dice"]) == 3 and all(1 <= d <= 6 for d in roll["data"]["dice"])
        assert_bunco_replays(events, night.state())


async def test_undo_takes_back_the_bell_roll_and_the_ring_after_it(server: ServerProcess) -> None:
    night = BuncoNight(server.base_url, roll_entry="roller")
    for n in range(8):
        night.join(f"P{n}")
    banker, players, spectator = await night.connect([server.ws_url])
    nothing = await refused_unchanged(night, banker, "nothing_to_undo", type="undo")
    assert nothing["message"] == "There is no roll to take back."
    await banker.ok(type="start")
    seat = {ltr: players[pid] for pid, ltr in seat_letters(night.state()).items()}
    await seat["E"].ok(type="roll", dice=dice("1", 1))  # Low: E+G ahead 1-0
    before = {k: v for k, v in night.state().items() if k != "seq"}
    bell = await seat["A"].ok(type="roll", dice=dice("B", 1))
    await banker.ok(type="ring")
    assert (await spectator.state_at_least(bell + 1))["round"] == 2
    refusal = await refused_unchanged(night, seat["A"], "not_allowed", type="undo")
    assert refusal["message"] == "Only the host can undo."

    undo = await banker.ok(type="undo")
    after = await spectator.state_at_least(undo)
    assert {k: v for k, v in after.items() if k != "seq"} == before
    events = night.log()
    assert (events[-1]["type"], events[-1]["data"]) == ("undo", {"undone_seq": bell})
    assert_bunco_replays(events, night.state())
    again = await seat["A"].ok(type="roll", dice=dice("B", 1))  # A still holds the dice
    assert (await spectator.state_at_least(again))["rounds_log"][0]["bell_by"] == next(
        pid for pid, client in players.items() if client is seat["A"]
    )


def test_create_and_join_refuse_what_bunco_cannot_seat(server: ServerProcess) -> None:
    http, rooms = http_for(server.base_url), "/api/rooms"
    for bad in ({"sets": 0}, {"sets": 11}, {"sets": "2"}, {"sets": 2.0}, {"roll_entry": "dealer"}):
        made = http.post(rooms, json={"game": "bunco", **bad})
        assert made.status_code == 422, bad
        assert made.json()["error"]["code"] == "bad_request"
        assert made.json()["error"]["message"].startswith(next(iter(bad)))
    made = http.post(rooms, json={"game": "bunco", "colour": "red"})  # other keys are ignored
    assert made.status_code == 201
    assert (made.json()["state"]["sets"], made.json()["state"]["roll_entry"]) == (1, "virtual")
    assert [e["data"] for e in http.get(f"{rooms}/{made.json()['code']}/log").json()["events"]] == [
        {"game": "bunco", "sets": 1, "roll_entry": "virtual"}
    ]

    night = BuncoNight(server.base_url, sets=10, roll_entry="banker")
    for n in range(24):
        night.join(f"P{n}")
    full = night.http.post(f"{night.prefix}/players", json={"name": "P24"})
    assert (full.status_code, full.json()["error"]["code"]) == (409, "room_full")
    taken = night.http.post(f"{night.prefix}/players", json={"name": "p0"})
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "name_taken")
    assert len(night.state()["players"]) == 24
