"""A Bunco night over HTTP and real WebSockets, for the tests that play one.

`BuncoNight` makes the room and seats the players; `seat_letters` names everyone by
the seat the random `start` drew (table 0 seats 0..3 are A B C D, table 1 E F G H, ...),
so that a test can script its dice per seat and write its hand computation in letters.
`Dice` turns a roll's intent ("B" Bunco, "1" one point, "5" three of a kind of another
number, "-" nothing) into three dice for the round's number.
"""

from __future__ import annotations

import atexit
import string
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from app.config import Settings
from app.games.bunco import make_game
from app.rooms.eventlog import verify
from app.rooms.timeline import Timeline
from tests.client import Client, Message
from tests.fair import assert_dice_check_out

BUNCO = make_game(Settings())
_HTTP: dict[str, httpx.Client] = {}


def http_for(base_url: str, source: str | None = None) -> httpx.Client:
    """One keep-alive HTTP client per server and source address (a fresh connection per
    call costs ~30 ms), closed when the test process exits."""
    key = f"{base_url} {source}"
    if key not in _HTTP:
        transport = httpx.HTTPTransport(local_address=source) if source else None
        _HTTP[key] = httpx.Client(base_url=base_url, transport=transport)
    return _HTTP[key]


@atexit.register
def _close_http() -> None:
    while _HTTP:
        _HTTP.popitem()[1].close()


class BuncoNight:
    """A Bunco room made over HTTP: its banker token, its players by name."""

    def __init__(self, base_url: str, *, source: str | None = None, **options: Any) -> None:
        """`source`: the local address every request and socket comes from."""
        self.base_url = base_url
        self.source = source
        response = http_for(base_url, source).post("/api/rooms", json={"game": "bunco", **options})
        assert response.status_code == 201, response.text
        body = response.json()
        self.code: str = body["code"]
        self.banker_token: str = body["banker_token"]
        self.players: dict[str, tuple[str, str]] = {}  # name -> (player_id, token)
        self.http = http_for(base_url, source)
        self.prefix = f"/api/rooms/{self.code}"

    def join(self, name: str) -> str:
        response = self.http.post(f"{self.prefix}/players", json={"name": name})
        assert response.status_code == 201, response.text
        body = response.json()
        self.players[name] = (body["player_id"], body["token"])
        return str(body["player_id"])

    def get(self, path: str = "") -> httpx.Response:
        return self.http.get(self.prefix + path)

    def state(self) -> Message:
        return self.get().json()["state"]  # type: ignore[no-any-return]

    def log(self) -> list[Message]:
        return self.get("/log").json()["events"]  # type: ignore[no-any-return]

    async def connect(self, ws_urls: Sequence[str]) -> tuple[Client, dict[str, Client], Client]:
        """The banker, every player (by id) and a spectator; the n-th socket goes to
        `ws_urls[n % len(ws_urls)]` (banker first, spectator last)."""
        urls = iter(ws_urls[n % len(ws_urls)] for n in range(len(self.players) + 2))
        source = self.source
        banker = await Client.connect(next(urls), self.code, self.banker_token, source=source)
        players = {
            pid: await Client.connect(next(urls), self.code, token, source=source)
            for pid, token in self.players.values()
        }
        spectator = await Client.connect(next(urls), self.code, source=source)
        for client in (banker, *players.values(), spectator):
            await client.wait_for(lambda m: m["type"] == "welcome")
        return banker, players, spectator


def seat_letters(state: Mapping[str, Any]) -> dict[str, str]:
    """Player id -> letter, by the seating of the state (read it right after `start`)."""
    seats = [pid for table in state["tables"] for pid in table["seats"]]
    return dict(zip(seats, string.ascii_uppercase, strict=False))


def tables_in_letters(state: Mapping[str, Any], letter: Mapping[str, str]) -> str:
    """The seating as "ABCD EFGH IJKL" (High first, seats clockwise)."""
    return " ".join("".join(letter[pid] for pid in t["seats"]) for t in state["tables"])


def dice(intent: str, target: int) -> list[int]:
    """Three dice that score `intent` in round `target`."""
    others = [die for die in range(1, 7) if die != target]
    if intent == "B":
        return [target] * 3
    if intent == "5":
        return [others[0]] * 3
    if intent == "1":
        return [target, others[0], others[1]]
    if intent == "-":
        return others[:3]
    raise ValueError(intent)


def assert_bunco_replays(events: list[Message], state: Mapping[str, Any]) -> None:
    """The chain verifies and the log alone rebuilds the served state (presence aside)."""
    assert verify(events), "the hash chain of the log is broken"
    rules = BUNCO.rules
    rebuilt = rules.view(Timeline.replay(rules, events).state, lambda _: False)
    served = {k: v for k, v in state.items() if k not in ("code", "seq", "handover")}
    served["players"] = [{**p, "connected": False} for p in state["players"]]
    assert rebuilt == served
    assert events[-1]["seq"] == state["seq"]
    assert_dice_check_out(events)  # every fair draw re-checks (docs/fair-dice.md)


async def refused_unchanged(
    night: BuncoNight, client: Client, code: str, **command: Any
) -> Message:
    """Send a command that must be refused with `code`: its error names the command's
    id, and the room's state and log are exactly as they were."""
    before, log_before = night.state(), night.log()
    command_id = f"bad-{code}-{len(client.messages)}"
    answer = await client.command(id=command_id, **command)
    assert answer["type"] == "error" and answer["code"] == code, (command, answer)
    assert answer["id"] == command_id
    assert night.state() == before, f"{command} changed the state"
    assert night.log() == log_before, f"{command} changed the log"
    return answer


class Round:
    """One round of a scripted night, in seat letters.

    `seating`: the tables as the round finds them ("ABCD EFGH IJKL", High first);
    `rolls`: the rolls in the order sent, each a letter and an intent ("F1": F rolls
    one point), the High table's bell last; `late`: who rolls right after the bell
    (refused `round_over`); `rolloff`: the rolls of the roll-offs after the bell;
    `winners`: each table's winning pair; `ringer`: who rings the next round."""

    def __init__(
        self,
        seating: str,
        rolls: str,
        winners: str,
        *,
        late: str | None = None,
        rolloff: str = "",
        ringer: str | None = "banker",
    ) -> None:
        self.seating = seating
        self.rolls = rolls.split()
        self.winners = winners
        self.late = late
        self.rolloff = rolloff.split()
        self.ringer = ringer


async def play_night(
    night: BuncoNight,
    banker: Client,
    players: Mapping[str, Client],
    spectator: Client,
    rounds: Sequence[Round],
) -> tuple[dict[str, str], Message]:
    """Start the night and play `rounds` as scripted, checking each round's seating and
    winners; the letters by player id and the last state."""
    last = await banker.ok(type="start")
    state = await spectator.state_at_least(last)
    letter = seat_letters(state)
    by_letter = {letter[pid]: client for pid, client in players.items()}
    for played, scripted in enumerate(rounds, start=1):
        assert tables_in_letters(state, letter) == scripted.seating, f"round {played}"
        assert state["phase"] == "playing" and [t["scores"] for t in state["tables"]] == [
            [0, 0] for _ in state["tables"]
        ]
        target = state["round"]
        for roll in scripted.rolls:
            last = await by_letter[roll[0]].ok(type="roll", dice=dice(roll[1], target))
        if scripted.late is not None:
            await refused_unchanged(
                night, by_letter[scripted.late], "round_over", type="roll", dice=dice("1", target)
            )
        if scripted.rolloff:
            state = await spectator.state_at_least(last)
            assert state["phase"] == "rolloff", f"round {played} has no roll-off"
        for roll in scripted.rolloff:
            last = await by_letter[roll[0]].ok(type="roll", dice=dice(roll[1], target))
        state = await spectator.state_at_least(last)
        result = state["rounds_log"][-1]
        assert len(state["rounds_log"]) == played
        won = " ".join("".join(sorted(letter[p] for p in t["winners"])) for t in result["tables"])
        assert won == scripted.winners, f"round {played}"
        if scripted.ringer is None:
            break
        assert state["phase"] == "waiting"
        ringer = banker if scripted.ringer == "banker" else by_letter[scripted.ringer]
        last = await ringer.ok(type="ring")
        state = await spectator.state_at_least(last)
    return letter, state


def tally(state: Mapping[str, Any], letter: Mapping[str, str]) -> dict[str, tuple[int, int, int]]:
    """Letter -> (wins, losses, buncos)."""
    return {letter[p["id"]]: (p["wins"], p["losses"], p["buncos"]) for p in state["players"]}
