"""Screenshots of the Bunco pages for docs/ui.md ("## Bunco pages").

    .venv/bin/python scripts/screenshots_bunco.py [--out docs/screenshots] [--chromium PATH]

Starts its own server, seats 12 players (over HTTP) on three tables, opens a host, a
TV and the phones that matter, plays round 1 on the phones' dice pads to a Bunco and
the bell (one phone's roll arriving too late), then the rest of the night through a
banker socket, and writes bunco-*.png: phone-play, phone-bell, phone-too-late, host,
host-desktop, tv, tv-bell, tv-final, phone-final, print.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, ViewportSize, expect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.screenshots import TV, Shots, run  # noqa: E402
from tests.e2e.test_bunco_night import SlowLink  # noqa: E402
from tests.games.bunco.bunco_night import BuncoNight  # noqa: E402

PHONE: ViewportSize = {"width": 390, "height": 844}
LAPTOP: ViewportSize = {"width": 1366, "height": 900}
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu"]

# Commands on a socket of the page's own, one at a time (the rest of the night).
DRIVE = (ROOT / "tests" / "e2e" / "bunco_drive.js").read_text()


def seat_page(shots: Shots, viewport: ViewportSize, code: str, seat: dict[str, Any] | None) -> Page:
    context = shots.browser.new_context(
        viewport=viewport, device_scale_factor=2, base_url=shots.base, has_touch=True
    )
    context.set_default_timeout(10_000)
    if seat is not None:
        saved = json.dumps({**seat, "collection": "rooms", "saved": 0})
        context.add_init_script(f"localStorage.setItem('bankit:seat:{code}', {json.dumps(saved)})")
    page = context.new_page()
    page.goto(f"/watch/{code}" if seat is None else f"/r/{code}")
    return page


def pad(phone: Page, dice: tuple[int, int, int], submit: bool = True) -> None:
    for value in dice:
        phone.get_by_role("button", name=f"Die {value}", exact=True).click()
    if submit:
        phone.get_by_role("button", name=re.compile(r"^Roll \d · \d · \d$")).click()


def play(shots: Shots) -> None:
    # httpx does not resolve *.localhost as Chromium does: the same server by its address.
    night = BuncoNight(
        shots.base.replace("bankit.localhost", "127.0.0.1"), sets=1, roll_entry="roller"
    )
    code = night.code
    ids = {name: night.join(name) for name in NAMES}
    name_of = {pid: name for name, pid in ids.items()}
    banker = {"token": night.banker_token, "role": "banker", "player_id": None, "name": "Banker"}
    host = seat_page(shots, PHONE, code, banker)
    tv = seat_page(shots, TV, code, None)
    host.get_by_role("button", name=re.compile("^Start the night")).click()
    expect(host.locator("#h-round")).to_have_text("Round 1 of 6")
    state = night.state()
    tables = state["tables"]

    def phone(pid: str) -> Page:
        name = name_of[pid]
        seat = {"token": night.players[name][1], "role": "player", "player_id": pid, "name": name}
        page = seat_page(shots, PHONE, code, seat)
        expect(page.locator("#b-mine")).to_be_visible()
        return page

    high0, high1 = phone(tables[0]["seats"][0]), phone(tables[0]["seats"][1])
    mid0, low0 = phone(tables[1]["seats"][0]), phone(tables[2]["seats"][0])
    pad(mid0, (2, 1, 5))
    pad(low0, (1, 4, 5))
    pad(high0, (1, 3, 4))
    expect(high0.locator("#b-mine .last-text")).to_have_text("You: +1")
    pad(high0, (1, 1, 6), submit=False)
    shots.take(high0, "bunco-phone-play")
    high0.get_by_role("button", name="Take back the 6").click()
    shots.take(tv, "bunco-tv")
    shots.take(host, "bunco-host")
    laptop = seat_page(shots, LAPTOP, code, banker)
    expect(laptop.locator("#view-host")).to_be_visible()
    shots.take(laptop, "bunco-host-desktop")

    link = SlowLink()  # low0's roll is on its way while High rings the bell
    low0.route_web_socket(re.compile(r"/ws/rooms/"), link.route)
    low0.clock.install()
    low0.reload()
    expect(low0.locator("#conn")).to_have_text("● Live")
    low0.clock.pause_at(time.time() + 0.5)
    link.holding = True
    pad(low0, (2, 3, 4))
    high0.get_by_role("button", name="Die 1", exact=True).click()
    high0.get_by_role("button", name=re.compile(r"^Roll 1 · 1 · 1$")).click()
    expect(high0.locator("#b-next")).to_contain_text("Go to the Low table")
    expect(high1.locator("#b-next")).to_be_visible()
    link.release()
    expect(low0.locator("#b-banner")).to_have_text("Too late: the bell rang")
    shots.take(high0, "bunco-phone-bell")
    shots.take(low0, "bunco-phone-too-late")
    expect(tv.locator("#tv-moves")).to_be_visible()
    shots.take(tv, "bunco-tv-bell")

    # The rest of the night: a point at each lower table, then a Bunco at High.
    commands: list[dict[str, Any]] = [{"type": "ring"}]
    for target in range(2, 7):
        others = [d for d in range(1, 7) if d != target]
        commands += [
            {"type": "roll", "table": 1, "dice": [target, others[0], others[1]]},
            {"type": "roll", "table": 2, "dice": [target, others[1], others[2]]},
            {"type": "roll", "table": 0, "dice": [target] * 3},
        ]
        if target < 6:
            commands.append({"type": "ring"})
    answers = host.evaluate(
        DRIVE, {"code": code, "token": night.banker_token, "commands": commands}
    )
    assert all(a["type"] == "ack" for a in answers), answers
    expect(tv.locator("#tv-winner")).to_be_visible()
    shots.take(tv, "bunco-tv-final")
    expect(high1.locator("#final-sheet table")).to_be_visible()
    shots.take(high1, "bunco-phone-final")
    printed = seat_page(shots, {"width": 794, "height": 1123}, code, banker)
    expect(printed.locator("#final-sheet table")).to_be_visible()
    printed.emulate_media(media="print")
    shots.take(printed, "bunco-print")


def main() -> None:
    run(play, __doc__ or "")


if __name__ == "__main__":
    main()
