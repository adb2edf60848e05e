"""A group's season over the wire: HTTP for the group, sockets to play its games.

`Group` makes a group, seats members and starts games; `play_bank`, `play_bunco` and
`play_tournament` play one short game of each kind to its end with the host's token
(the banker or organiser of every game the group starts), members seated with one
tap (`POST /api/groups/{code}/games/{game}/players`) and guests as today."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx

from tests.client import Client

Message = dict[str, Any]


async def until(check: Callable[[], Any], what: str, timeout: float = 15) -> Any:
    """Call `check` (sync or async) until it returns something truthy (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if isinstance(value, Awaitable):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)


class Group:
    def __init__(self, base_url: str, ws_url: str, name: str = "Thursday club") -> None:
        self.base_url, self.ws_url = base_url, ws_url
        self.http = httpx.Client(base_url=base_url, timeout=10)
        made = self.http.post("/api/groups", json={"name": name})
        assert made.status_code == 201, made.text
        self.code: str = made.json()["code"]
        self.host_token: str = made.json()["host_token"]
        self.members: dict[str, tuple[str, str]] = {}  # name -> (member id, token)

    def move_to(self, base_url: str) -> None:
        """Ask another process from now on (the one that took over)."""
        self.http.close()
        self.http = httpx.Client(base_url=base_url, timeout=10)

    def join(self, name: str) -> str:
        answer = self.http.post(f"/api/groups/{self.code}/members", json={"name": name})
        assert answer.status_code == 201, answer.text
        self.members[name] = (answer.json()["member_id"], answer.json()["token"])
        return str(answer.json()["member_id"])

    def get(self) -> Message:
        answer = self.http.get(f"/api/groups/{self.code}")
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]

    def state(self) -> Message:
        return self.get()["state"]  # type: ignore[no-any-return]

    def log(self) -> list[Message]:
        return self.http.get(f"/api/groups/{self.code}/log").json()["events"]  # type: ignore[no-any-return]

    def host(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.host_token}"}

    def token_of(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.members[name][1]}"}

    async def start(self, game: str, **options: Any) -> str:
        """The host starts a game; its code once the group's state names it."""
        before = len(self.state()["games"])
        answer = self.http.post(
            f"/api/groups/{self.code}/games",
            json={"game": game, "options": options},
            headers=self.host(),
        )
        assert answer.status_code == 202, answer.text

        def made() -> str | None:
            games = self.state()["games"]
            return games[before]["code"] if len(games) > before else None

        return str(await until(made, f"the {game} game's code"))

    def seat(self, name: str, game_code: str) -> str:
        """A member's one tap: seated in the group's game as themselves."""
        answer = self.http.post(
            f"/api/groups/{self.code}/games/{game_code}/players", headers=self.token_of(name)
        )
        assert answer.status_code == 201, answer.text
        return str(answer.json()["player_id"])

    def guest(self, collection: str, game_code: str, name: str) -> str:
        answer = self.http.post(f"/api/{collection}/{game_code}/players", json={"name": name})
        assert answer.status_code == 201, answer.text
        return str(answer.json()["player_id"])

    async def recorded(self, game_code: str) -> Message:
        """The group's line of a finished game, once its result is recorded."""

        def line() -> Message | None:
            for game in self.state()["games"]:
                if game["code"] == game_code and game["result"] is not None:
                    return game  # type: ignore[no-any-return]
            return None

        return await until(line, f"the result of {game_code}")  # type: ignore[no-any-return]


async def host_socket(group: Group, code: str, collection: str = "rooms") -> Client:
    client = await Client.connect(group.ws_url, code, group.host_token, collection=collection)
    await client.wait_for(lambda m: m["type"] == "welcome")
    return client


async def play_bank(group: Group, code: str, ids: Mapping[str, str]) -> None:
    """One round: bank 10, 20, 30 after three safe rolls; the first named banks at 10,
    the second at 30, the others (if any) lose their bank to the 7 that ends the round."""
    banker = await host_socket(group, code)
    names = list(ids)
    await banker.ok(type="start")
    await banker.ok(type="roll", dice=[6, 4])
    await banker.ok(type="bank", player_id=ids[names[0]])
    await banker.ok(type="roll", dice=[6, 4])
    await banker.ok(type="roll", dice=[6, 4])
    await banker.ok(type="bank", player_id=ids[names[1]])
    if len(names) > 2:
        await banker.ok(type="roll", dice=[3, 4])  # a 7 after the safe rolls: over
    await banker.close()


async def play_bunco(group: Group, code: str) -> None:
    """A night of one set entered by the host: each round the Low table's first roller
    scores one point and the High table rolls a Bunco (the bell); roll-offs roll a point."""
    host = await host_socket(group, code)
    await host.ok(type="start")
    for _ in range(200):
        state = host.states()[-1]
        if state["status"] == "finished":
            break
        target = state["round"]
        point = [target, target % 6 + 1, (target + 1) % 6 + 1]
        if state["phase"] == "waiting":
            answer = await host.command(type="ring")
        elif state["phase"] == "rolloff":
            table = next(i for i, t in enumerate(state["tables"]) if t["rolloff"])
            answer = await host.command(type="roll", table=table, dice=point)
        elif state["tables"][1]["scores"][0] == state["tables"][1]["scores"][1]:
            answer = await host.command(type="roll", table=1, dice=point)
        else:
            answer = await host.command(type="roll", table=0, dice=[target] * 3)
        assert answer["type"] == "ack", answer
        await host.state_at_least(int(answer["seq"]))
    assert host.states()[-1]["status"] == "finished"
    await host.close()


async def play_tournament(group: Group, code: str, order: list[str]) -> None:
    """One game of one round at one table: the players bank at 10, 20, 30... in `order`
    (ids), so the last banks most; then the organiser scores it."""
    organiser = await host_socket(group, code, "tournaments")
    await organiser.ok(type="next")
    table = (await organiser.wait_for(lambda m: m["type"] == "state" and m["state"]["tables"]))[
        "state"
    ]["tables"][0]["code"]
    banker = await host_socket(group, table)
    await banker.ok(type="start")
    for player in order:
        await banker.ok(type="roll", dice=[6, 4])
        await banker.ok(type="bank", player_id=player)
    await organiser.wait_for(
        lambda m: m["type"] == "state" and m["state"]["status"] == "scoring", timeout=15
    )
    await organiser.ok(type="score")
    await organiser.wait_for(
        lambda m: m["type"] == "state" and m["state"]["status"] == "finished", timeout=15
    )
    await organiser.close()
    await banker.close()


async def play_season(group: Group) -> dict[str, str]:
    """Three nights of members Ann, Bob, Cy and Dee, and guests: a BANK game (Ann, Bob,
    Gus), a Bunco night (the four and Gus, Hal, Ivy, Jo), a tournament (Ann, Cy, Gus:
    Ann banks last, so most). The members join the group first. Returns the codes by kind."""
    ids = {name: group.join(name) for name in ("Ann", "Bob", "Cy", "Dee")}
    bank = await group.start("bank", rounds=1)
    seated = {name: group.seat(name, bank) for name in ("Ann", "Bob")}
    assert seated == {"Ann": ids["Ann"], "Bob": ids["Bob"]}, "seated as themselves"
    await play_bank(group, bank, {**seated, "Gus": group.guest("rooms", bank, "Gus")})
    bunco = await group.start("bunco", roll_entry="banker")
    for name in ids:
        group.seat(name, bunco)
    for name in ("Gus", "Hal", "Ivy", "Jo"):
        group.guest("rooms", bunco, name)
    await play_bunco(group, bunco)
    tournament = await group.start("tournament", games=1, rounds=1)
    for name in ("Ann", "Cy"):
        group.seat(name, tournament)
    gus = group.guest("tournaments", tournament, "Gus")
    await play_tournament(group, tournament, [ids["Cy"], gus, ids["Ann"]])
    return {"bank": bank, "bunco": bunco, "tournament": tournament}
