"""Screenshots of fair dice and house rules for the README ("## Dice anyone can verify").

    .venv/bin/python scripts/screenshots_trust.py [--out docs/screenshots] [--chromium PATH]

Starts its own server, opens the home page's "House rules" fold (4 safe rolls), then
plays a 1-round virtual game with house rules through a banker socket to its end and
checks its dice on a phone's final screen; writes house-rules.png, house-rules-lobby.png
and verify-dice.png.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
from playwright.sync_api import expect
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.screenshots import SMALL_PHONE, Shots, run  # noqa: E402


def play(shots: Shots) -> None:
    home = shots.page(SMALL_PHONE)
    home.get_by_text("House rules", exact=True).click()
    home.get_by_label("Safe rolls at the start of a round (1–5)").fill("4")
    home.get_by_label("Nobody may BANK below (empty: no minimum)").fill("50")
    home.locator("details.house-rules").scroll_into_view_if_needed()
    shots.take(home, "house-rules")
    home.get_by_role("button", name="Create game").click()
    expect(home.locator(".trust-house")).to_be_visible()
    shots.take(home, "house-rules-lobby")

    api = shots.base.replace("bankit.localhost", "127.0.0.1")
    made = httpx.post(
        f"{api}/api/rooms", json={"rounds": 1, "roll_entry": "virtual", "safe_rolls": 4}
    )
    code, token = made.json()["code"], made.json()["banker_token"]
    seats = [
        httpx.post(f"{api}/api/rooms/{code}/players", json={"name": name}).json()["token"]
        for name in ("Ann", "Bob")
    ]
    with connect(f"{api.replace('http', 'ws')}/ws/rooms/{code}?token={token}") as socket:
        for n in range(500):
            socket.send(json.dumps({"type": "start" if n == 0 else "roll", "id": f"s{n}"}))
            while json.loads(socket.recv(timeout=10))["type"] not in ("ack", "error"):
                pass
            if httpx.get(f"{api}/api/rooms/{code}").json()["state"]["status"] == "finished":
                break
    phone = shots.page(SMALL_PHONE, f"/r/{code}#token={seats[0]}")
    phone.get_by_role("button", name="Verify these dice").click()
    expect(phone.locator(".trust-verdict")).to_contain_text("check out")
    phone.locator(".trust").scroll_into_view_if_needed()
    shots.take(phone, "verify-dice")


def main() -> None:
    run(play, __doc__ or "")


if __name__ == "__main__":
    main()
