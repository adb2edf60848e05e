"""The room's share of one action, without sockets: `Room.handle` and the patch.

    python -m bench.hotpath [--actions 20000] [--profile]

One BANK room of 8 players (banker's manual dice) plays a random valid game (40 %
rolls, 60 % BANKs, the generator of bench/load.py's `random` plan), as the actor
feeds it, and each state is turned into the patch the hub sends. Prints µs per
action for the room (decide, evolve, the view, the log entry) and for the patch.
CPU time of this process only, so a loaded machine slows both sides alike.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

import orjson

from app.api.hub import Hub
from app.config import Settings
from app.games.bank import make_game
from app.rooms.envelope import CommandEnvelope, PresenceEnvelope
from app.rooms.room import Room

PLAYERS = [f"p{i}" for i in range(8)]


def commands(rng: random.Random, room: Room) -> CommandEnvelope:
    view = room.view
    if view["status"] == "finished":
        raise StopIteration
    unbanked = [p["id"] for p in view["players"] if not p["banked"]]
    if unbanked and (view["roll_count"] >= 3 and rng.random() < 0.6):
        pid = rng.choice(unbanked)
        return CommandEnvelope("player", pid, None, '{"type":"bank"}', "n", "k")
    dice = [rng.randint(1, 6), rng.randint(1, 6)]
    text = orjson.dumps({"type": "roll", "dice": dice}).decode()
    return CommandEnvelope("banker", None, None, text, "n", "k")


def new_room() -> Room:
    game = make_game(Settings())
    room, _ = Room.create("ABCD", game, {"rounds": 100}, ["b" * 64], 0, 16)
    for pid in PLAYERS:
        join = orjson.dumps({"type": "join", "player_id": pid, "name": pid.upper()}).decode()
        room.handle(CommandEnvelope("player", pid, None, join, "n", "k", th=pid, server=True), 0)
        room.handle(PresenceEnvelope("n", pid, 1), 0)
    room.handle(CommandEnvelope("banker", None, None, '{"type":"start"}', "n", "k"), 0)
    return room


def play(actions: int, seed: int = 1) -> tuple[float, float, int]:
    rng = random.Random(seed)
    hub = Hub.__new__(Hub)
    hub._views = {}
    room = new_room()
    room_s = patch_s = 0.0
    done = 0
    while done < actions:
        try:
            envelope = commands(rng, room)
        except StopIteration:
            room = new_room()
            hub._views = {}
            continue
        t0 = time.process_time()
        outcome = room.handle(envelope, 1)
        t1 = time.process_time()
        for frame in outcome.frames:
            if frame.kind == "state":
                hub._patch(room.code, frame)
        t2 = time.process_time()
        room_s += t1 - t0
        patch_s += t2 - t1
        done += 1
    return room_s, patch_s, done


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.hotpath", description=__doc__)
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(play, args.actions)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
        return
    play(2000)  # warm-up
    room_s, patch_s, done = play(args.actions)
    print(f"room {room_s / done * 1e6:.1f} µs/action, patch {patch_s / done * 1e6:.1f} µs/action")


if __name__ == "__main__":
    main()
