"""Screenshots of hand-over (docs/protocol.md, "Extension: hand-over").

    .venv/bin/python scripts/screenshots_handover.py [--out docs/screenshots] [--chromium ...]

Starts its own server, plays a few rolls, and writes handover-*.png: the banker's
hand-over dialog, the QR code that moves Ann's seat, and (the banker's phone gone)
Ann's "The banker has been away for 2 minutes: take over?" card and her "Become the
banker" once the table chose her.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.screenshots import PHONE, Shots, bank_total, roll, run  # noqa: E402


def play(shots: Shots) -> None:
    banker = shots.page(PHONE)
    banker.get_by_role("button", name="Create game").click()
    expect(banker.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = banker.locator("#lobby-code").inner_text()
    phones = {}
    for name in ("Ann", "Bob", "Cy"):
        phone = shots.page(PHONE, "/")
        phone.clock.install()  # "away for 2 minutes", without waiting for them
        phone.goto(f"/r/{code}")
        phone.get_by_label("Your name").fill(name)
        phone.get_by_role("button", name="Join the game").click()
        expect(phone.get_by_role("heading", name=f"You're in, {name}!")).to_be_visible()
        phones[name] = phone
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    roll(banker, 3, 4)
    roll(banker, 2, 2)
    bank_total(phones["Ann"], "74")

    banker.get_by_role("button", name="Hand over: banker role or a player's phone").click()
    expect(banker.get_by_role("dialog", name="Hand over")).to_be_visible()
    shots.take(banker, "handover-banker")
    banker.get_by_role("button", name="Move Cy's seat to another phone").click()
    banker.wait_for_function("document.querySelector('#handover-qr')?.naturalWidth > 0")
    shots.take(banker, "handover-seat-qr")
    banker.context.close()  # the banker's phone dies

    ann, bob = phones["Ann"], phones["Bob"]
    for phone in (ann, bob):
        expect(phone.locator("body")).to_have_attribute("data-host", "away")
        phone.clock.fast_forward("02:10")
    expect(ann.locator("#takeover")).to_be_visible()
    ann.get_by_role("button", name=re.compile("^I'll be the banker")).click()
    expect(bob.get_by_role("button", name=re.compile("^Ann should be the banker"))).to_be_visible()
    shots.take(bob, "handover-away")
    bob.get_by_role("button", name=re.compile("^Ann should be the banker")).click()
    expect(ann.get_by_role("button", name="Become the banker")).to_be_visible()
    shots.take(ann, "handover-chosen")


if __name__ == "__main__":
    run(play, __doc__ or "")
