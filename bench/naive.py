"""The naive baseline of issue 12: BANK! as a plain FastAPI loop, for bench/compare.py.

    python -m bench.naive [--host 127.0.0.1] [--port 8000]

One process; each room's state is a dict shaped like bankit's view (it grows with
`rounds_log` as bankit's does); an action is checked just enough to keep the game
valid, applied to the dict, `json.dumps`-ed once, and `await ws.send_text(...)`-ed to
each socket of the room in turn. No acks, no event log, no persistence, no presence
messages: what a first version written in an afternoon would do. The HTTP surface is
the part of bankit's that the load generator uses (create a room, seat players, the
WebSocket), so the same generator drives both servers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect

SAFE_ROLLS = 3
# bankit's uvicorn options (app/__main__.py) that shape a socket's cost (bench/floor.py too)
UVICORN: dict[str, Any] = {
    "access_log": False,
    "log_level": "warning",
    "ws_max_size": 4096,
    "ws_ping_interval": 20,
    "ws_per_message_deflate": False,
}


@dataclass
class Room:
    state: dict[str, Any]
    banker_token: str
    players: dict[str, str] = field(default_factory=dict)  # token -> player_id
    sockets: list[WebSocket] = field(default_factory=list)
    banked_now: list[dict[str, Any]] = field(default_factory=list)


rooms: dict[str, Room] = {}
app = FastAPI()


def new_state(code: str, rounds: int) -> dict[str, Any]:
    return {
        "code": code,
        "game": "bank",
        "status": "lobby",
        "rounds": rounds,
        "round": 0,
        "roll_count": 0,
        "bank": 0,
        "roll_entry": "banker",
        "turn": None,
        "last_roll": None,
        "players": [],
        "rounds_log": [],
        "winners": [],
        "seq": 1,  # last key, as in bankit's state: the load generator reads it off the end
    }


@app.get("/healthz")
@app.get("/readyz")
async def ready() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/api/rooms", status_code=201)
async def create_room(body: dict[str, Any]) -> dict[str, Any]:
    code = secrets.token_hex(2).upper()
    while code in rooms:
        code = secrets.token_hex(3).upper()
    room = Room(new_state(code, int(body.get("rounds", 20))), secrets.token_urlsafe(24))
    rooms[code] = room
    return {"code": code, "banker_token": room.banker_token, "state": room.state}


@app.post("/api/rooms/{code}/players", status_code=201)
async def join_room(code: str, body: dict[str, Any]) -> dict[str, Any]:
    room = rooms.get(code)
    if room is None:
        raise HTTPException(404, "no such room")
    if room.state["status"] != "lobby":
        raise HTTPException(409, "not in the lobby")
    player_id, token = secrets.token_hex(6), secrets.token_urlsafe(24)
    room.players[token] = player_id
    room.state["players"].append(
        {
            "id": player_id,
            "name": str(body["name"]),
            "score": 0,
            "banked": False,
            "connected": False,
        }
    )
    room.state["seq"] += 1
    return {"player_id": player_id, "token": token, "state": room.state}


def next_turn(state: dict[str, Any], after: str | None) -> str | None:
    players = state["players"]
    ids = [p["id"] for p in players]
    start = ids.index(after) if after in ids else -1
    for step in range(1, len(players) + 1):
        candidate = players[(start + step) % len(players)]
        if not candidate["banked"]:
            return str(candidate["id"])
    return None


def end_round(room: Room, ended_by: str) -> None:
    state = room.state
    state["rounds_log"].append(
        {
            "round": state["round"],
            "ended_by": ended_by,
            "bank": state["bank"],
            "banked": room.banked_now,
        }
    )
    room.banked_now = []
    for player in state["players"]:
        player["banked"] = False
    state["roll_count"], state["bank"] = 0, 0
    if state["round"] >= state["rounds"]:
        state["status"], state["turn"] = "finished", None
        top = max(p["score"] for p in state["players"])
        state["winners"] = [p["id"] for p in state["players"] if p["score"] == top]
    else:
        state["round"] += 1
        state["turn"] = next_turn(state, state["last_roll"]["by"] if state["last_roll"] else None)


def apply(room: Room, who: str | None, message: dict[str, Any]) -> str | None:
    """Apply one command to the room's dict; the reason it was refused, or None."""
    state = room.state
    kind = message.get("type")
    if kind == "start":
        if who != "banker" or state["status"] != "lobby" or not state["players"]:
            return "cannot start"
        state["status"], state["round"] = "playing", 1
        state["turn"] = state["players"][0]["id"]
    elif state["status"] != "playing":
        return "not playing"
    elif kind == "roll":
        dice = message.get("dice")
        if who != "banker" or not isinstance(dice, list) or len(dice) != 2:
            return "bad roll"
        state["roll_count"] += 1
        state["last_roll"] = {"dice": dice, "by": state["turn"], "seq": state["seq"] + 1}
        total = dice[0] + dice[1]
        if state["roll_count"] <= SAFE_ROLLS:
            state["bank"] += 70 if total == 7 else total
        elif total == 7:
            state["seq"] += 1
            end_round(room, "seven")
            return None
        elif dice[0] == dice[1]:
            state["bank"] *= 2
        else:
            state["bank"] += total
        state["turn"] = next_turn(state, state["turn"])
    elif kind == "bank":
        target = message.get("player_id") if who == "banker" else who
        player = next((p for p in state["players"] if p["id"] == target), None)
        if player is None or player["banked"] or state["roll_count"] == 0:
            return "cannot bank"
        player["score"] += state["bank"]
        player["banked"] = True
        room.banked_now.append(
            {"player_id": target, "amount": state["bank"], "seq": state["seq"] + 1}
        )
        if all(p["banked"] for p in state["players"]):
            state["seq"] += 1
            end_round(room, "all_banked")
            return None
        if state["turn"] == target:
            state["turn"] = next_turn(state, target)
    else:
        return "unknown type"
    state["seq"] += 1
    return None


def set_connected(room: Room, player_id: str | None, connected: bool) -> None:
    for player in room.state["players"]:
        if player["id"] == player_id:
            player["connected"] = connected


@app.websocket("/ws/rooms/{code}")
async def room_socket(ws: WebSocket, code: str, token: str = "") -> None:
    await ws.accept()
    room = rooms.get(code)
    if room is None:
        await ws.close(4404)
        return
    who = "banker" if token == room.banker_token else room.players.get(token) if token else None
    if token and who is None:
        await ws.close(4401)
        return
    set_connected(room, who, True)
    room.sockets.append(ws)
    try:
        await ws.send_text(json.dumps({"type": "welcome", "state": room.state}))
        while True:
            message = json.loads(await ws.receive_text())
            if who is None:
                continue  # spectators only read
            refused = apply(room, who, message)
            if refused is not None:
                await ws.send_text(json.dumps({"type": "error", "message": refused}))
                continue
            text = json.dumps({"type": "state", "state": room.state})
            for other in list(room.sockets):
                with contextlib.suppress(Exception):  # a dead socket: its own loop removes it
                    await other.send_text(text)
    except WebSocketDisconnect:
        pass
    finally:
        room.sockets.remove(ws)
        set_connected(room, who, False)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.naive", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    # bankit's uvicorn options (app/__main__.py), with uvicorn's own sans-I/O protocol
    # (the class bankit's RoomSocketProtocol extends) and none of its tuning.
    uvicorn.run(app, host=args.host, port=args.port, ws="websockets-sansio", **UVICORN)


if __name__ == "__main__":
    main()
