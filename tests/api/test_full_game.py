"""A whole 20-round game over WebSockets with scripted dice, scored by hand."""

from __future__ import annotations

from app.rooms.eventlog import verify
from tests.client import Client, Table, assert_replays_to
from tests.conftest import ServerProcess

# Ann, Bob and Cat play from phones; Dan has no phone: the banker banks for him.
# Each step is a roll (a, b) or the name of who banks. The running BANK is in the comments.
R1 = [(3, 4), "Ann", (2, 2), (6, 5), (1, 1), "Bob", (5, 2)]
# 70 (safe 7), Ann banks 70, 74, 85, roll 4 doubles: 170, Bob banks 170, 7: round over.
R2 = [(1, 1), (6, 6), (3, 3), (4, 5), "Ann", "Bob", "Cat", "Dan"]
# safe doubles add their face: 2, 14, 20; then 29: everyone banks 29, round over.
R3 = [(6, 1), (5, 2), (4, 3), "Cat", (2, 5)]
# three safe 7s: 70, 140, 210; Cat banks 210; 7 on roll 4.
R4 = [(2, 3), (2, 3), (2, 3), (3, 3), (4, 4), (5, 5), "Ann", "Dan", (6, 2), "Bob", (1, 6)]
# 5, 10, 15, doubles 30, 60, 120; Ann and Dan bank 120; 128; Bob banks 128; 7.
R5 = [(1, 2), "Bob", (1, 2), (1, 2), (3, 4)]
# Bob banks 3 during the safe rolls; 6, 9; 7 on roll 4.
X = [(4, 6), (5, 5), (6, 1), (2, 2), "Ann", (6, 6), "Cat", (3, 4)]
# 10, 20, 90, doubles 180: Ann banks 180; doubles 360: Cat banks 360; 7.
Y = [(1, 3), (2, 4), (3, 5), (4, 6), "Bob", "Dan", (1, 1), "Ann", "Cat"]
# 4, 10, 18, 28: Bob and Dan bank 28; doubles 56: Ann and Cat bank 56, all banked.
Z = [(3, 4), (3, 4), (3, 4), (3, 4)]
# 70, 140, 210, then the 7 of roll 4 takes it all: nobody banked.
SCRIPT = [R1, R2, R3, R4, R5] + [X, Y, Z] * 5

EXPECTED = {
    "Ann": 70 + 29 + 120 + 5 * 180 + 5 * 56,  # 1399
    "Bob": 170 + 29 + 128 + 3 + 5 * 28,  # 470
    "Cat": 29 + 210 + 5 * 360 + 5 * 56,  # 2319
    "Dan": 29 + 120 + 5 * 28,  # 289
}


async def test_twenty_round_game_scores_match_the_hand_computation(server: ServerProcess) -> None:
    table = Table(server.base_url, rounds=20)
    ids = {name: table.join(name) for name in EXPECTED}
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    phones = {
        name: await Client.connect(server.ws_url, table.code, table.players[name][1])
        for name in ("Ann", "Bob", "Cat")
    }
    spectator = await Client.connect(server.ws_url, table.code)
    await banker.ok(type="start")

    for number, steps in enumerate(SCRIPT, start=1):
        for step in steps:
            if isinstance(step, tuple):
                seq = await banker.ok(type="roll", dice=list(step))
            elif step in phones:
                seq = await phones[step].ok(type="bank")
            else:
                seq = await banker.ok(type="bank", player_id=ids[step])
        state = await spectator.state_at_least(seq)
        assert len(state["rounds_log"]) == number

    final = await spectator.state_at_least(seq)
    scores = {p["name"]: p["score"] for p in final["players"]}
    assert scores == EXPECTED == {"Ann": 1399, "Bob": 470, "Cat": 2319, "Dan": 289}
    assert final["status"] == "finished"
    assert final["winners"] == [ids["Cat"]]
    assert (final["round"], final["roll_count"], final["bank"], final["turn"]) == (20, 0, 0, None)
    assert [r["ended_by"] for r in final["rounds_log"][:5]] == [
        "seven",
        "all_banked",
        "seven",
        "seven",
        "seven",
    ]
    assert final["rounds_log"][1]["bank"] == 29 and final["rounds_log"][0]["bank"] == 170
    for client in (banker, spectator, *phones.values()):
        assert (await client.state_at_least(final["seq"])) == final

    events = table.log()
    assert verify(events)
    assert_replays_to(events, final)
