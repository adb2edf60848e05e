"""Check every draw of a room's fair dice (docs/fair-dice.md): curl …/log | verify_dice.py"""

import hmac
import json
import sys
from hashlib import sha256


def below(stream, bound):  # uniform in 0..bound-1: a byte >= 256 - 256 % bound is skipped
    return next(byte % bound for byte in stream if byte < 256 - 256 % bound)


def redraw(seed, clients, draw):  # draw n's bytes: HMAC-SHA256(seed, "n:block:c1,c2…"), block 0…
    msgs = (f"{draw['n']}:{b}:{','.join(clients)}".encode() for b in range(999))
    stream = (x for m in msgs for x in hmac.new(bytes.fromhex(seed), m, "sha256").digest())
    if not draw.get("shuffle"):
        return [below(stream, draw["sides"]) + 1 for _ in draw["values"]]
    order = list(range(len(draw["values"])))
    for i in range(len(order) - 1, 0, -1):  # Fisher-Yates
        j = below(stream, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def check(events):  # (rolls checked, None when all check out, else what is wrong first)
    clients, seated, waiting, count, commit = [], [], [], 0, None
    for e in events:
        fair, data, rev = e.get("fair", {}), e["data"], e.get("fair", {}).get("dice_reveal")
        commit, drawn = fair.get("dice_commit", commit), fair.get("drawn", [])
        shown = [seated.index(p) for p in sum(data.get("seating", []), [])] or data.get("dice")
        if drawn and shown not in (None, sum((d["values"] for d in drawn), [])):
            return count, f"event {e['seq']} does not show what was drawn"
        waiting += [(e["seq"], d, list(clients)) for d in drawn]
        seated = [p for p in seated if e["type"] != "kick" or p != data["player_id"]]
        seated += [data["player_id"]] if e["type"] == "join" else []
        clients += [fair["client_seed"]] if "client_seed" in fair else []
        if rev and sha256(bytes.fromhex(rev["seed"])).hexdigest() != commit:
            return count, f"the seed revealed at event {e['seq']} is not the one committed"
        for seq, draw, seeds in waiting if rev else []:
            if draw["n"] != count + 1 or redraw(rev["seed"], seeds, draw) != draw["values"]:
                return count, f"roll {count + 1} (event {seq}) does not check out"
            count += 1
        waiting, commit = ([], rev["next_commit"]) if rev else (waiting, commit)
    return count, f"{len(waiting)} rolls wait for their seed" if waiting else None


if __name__ == "__main__":
    count, wrong = check(json.load(sys.stdin)["events"])
    sys.exit(wrong or print(f"all {count} rolls check out"))  # exit 1 with what is wrong
