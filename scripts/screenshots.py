"""Screenshots of the real pages for the README and docs/ui.md.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--chromium /usr/bin/chromium]

Starts its own server (`python -m app` on a free loopback port), plays a little of a
3-round game with a banker, three phones, a phoneless player, a latecomer and a TV, then
plays again, and writes PNGs: home, lobby-banker, lobby-player, player, player-banked,
player-too-late, banker, banker-correction, banker-desktop, late-seat, player-late,
join-closed, watch, watch-ended, watch-lobby, final, final-banker, watch-final and
lobby-again.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import start_server  # noqa: E402  (the same server the tests run)
from tests.e2e.conftest import ARGS  # noqa: E402  (the same browser flags)

PHONE: ViewportSize = {"width": 390, "height": 844}
SMALL_PHONE: ViewportSize = {"width": 360, "height": 640}
TV: ViewportSize = {"width": 1280, "height": 720}


@contextmanager
def running_server() -> Iterator[str]:
    """The app on a free loopback port, as the tests start it."""
    with tempfile.TemporaryDirectory() as logs:
        server = start_server(Path(logs))
        try:
            # Chromium resolves *.localhost to loopback: the pages show a name, as a LAN host would.
            yield f"http://bankit.localhost:{server.port}"
        finally:
            server.stop()


class Shots:
    def __init__(self, browser: Browser, base: str, out: Path) -> None:
        self.browser, self.base, self.out = browser, base, out

    def page(self, viewport: ViewportSize, path: str = "/", scale: float = 2) -> Page:
        context = self.browser.new_context(
            viewport=viewport, device_scale_factor=scale, base_url=self.base, has_touch=True
        )
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.goto(path)
        return page

    def take(self, page: Page, name: str) -> None:
        page.evaluate(
            "document.getElementById('flash')?.classList.remove('on');"
            "document.activeElement?.blur?.()"
        )
        path = self.out / f"{name}.png"
        page.screenshot(path=str(path))
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def roll(banker: Page, a: int, b: int) -> None:
    name = rf"^Double {a}s, {a + b}:" if a == b else rf"^Roll {a + b}:"
    banker.get_by_role("button", name=re.compile(name)).click()


def drawn(page: Page, selector: str) -> None:
    """The image is in and drawn (wait_for_function would evaluate a string: the CSP refuses)."""
    image = page.locator(selector)
    expect(image).to_have_attribute("src", re.compile("."))
    image.evaluate("img => img.decode()")


def bank_total(page: Page, text: str) -> None:
    expect(page.locator("#bank-total")).to_have_text(text)


def play(shots: Shots) -> None:
    home = shots.page(SMALL_PHONE)
    shots.take(home, "home")

    banker = shots.page(PHONE)
    banker.locator("label[for='r3']").click()
    banker.get_by_role("button", name="Create game").click()
    expect(banker.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = banker.locator("#lobby-code").inner_text()
    tv = shots.page(TV, f"/watch/{code}", scale=1.5)

    phones = {}
    for name in ("Ann", "Bob", "Cy"):
        phone = shots.page(PHONE, f"/r/{code}")
        phone.get_by_label("Your name").fill(name)
        phone.get_by_role("button", name="Join the game").click()
        expect(phone.get_by_role("heading", name=f"You're in, {name}!")).to_be_visible()
        phones[name] = phone
    banker.get_by_label("Add a player without a phone").fill("Dee")
    banker.get_by_role("button", name="Add", exact=True).click()
    expect(banker.locator("#lobby-players li")).to_have_count(4)
    expect(tv.locator("#tv-lobby-players li")).to_have_count(4)
    drawn(banker, "#lobby-qr")
    shots.take(banker, "lobby-banker")
    shots.take(phones["Bob"], "lobby-player")
    drawn(tv, "#tv-qr")
    shots.take(tv, "watch-lobby")

    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    ann, bob, cy = phones["Ann"], phones["Bob"], phones["Cy"]
    # Round 1: Ann banks, then a 7 after the third roll wipes Bob, Cy and Dee.
    for dice in ((4, 4), (1, 6), (2, 6)):
        roll(banker, *dice)
    bank_total(ann, "86")
    ann.get_by_role("button", name=re.compile(r"^BANK \d")).click()
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 86")
    roll(banker, 1, 4)
    roll(banker, 3, 4)
    expect(bob.locator("#banner")).to_contain_text("Too late")
    shots.take(bob, "player-too-late")

    # Round 2: the BANK grows into danger; Cy banks; Bob waits.
    for dice in ((5, 6), (3, 3), (4, 5), (2, 2), (4, 6)):
        roll(banker, *dice)
    bank_total(bob, "62")
    cy.get_by_role("button", name=re.compile(r"^BANK \d")).click()
    expect(cy.locator("#bank-btn")).to_have_text("✓ You banked 62")
    banker.get_by_role("button", name="Bank for Dee").click()
    expect(banker.get_by_role("button", name=re.compile("^Take back Dee's BANK"))).to_be_visible()
    shots.take(banker, "banker-correction")
    roll(banker, 5, 3)
    bank_total(bob, "70")
    expect(tv.locator("#tv-chart circle")).to_have_count(7)
    shots.take(bob, "player")
    shots.take(cy, "player-banked")
    banker.mouse.wheel(0, -2000)  # back to the top of the page, as a thumb would
    expect(banker.locator("#round-info")).to_be_in_viewport(ratio=1)
    shots.take(banker, "banker")
    shots.take(tv, "watch")
    desk = shots.page({"width": 1280, "height": 800}, f"/r/{code}", scale=1)
    desk.evaluate(
        "([code, token]) => localStorage.setItem('bankit:seat:' + code,"
        " JSON.stringify({token, role: 'banker', player_id: null, name: 'Banker'}))",
        [code, banker.evaluate(f"JSON.parse(localStorage.getItem('bankit:seat:{code}')).token")],
    )
    desk.reload()
    expect(desk.locator("#bank-total")).to_have_text("70")
    shots.take(desk, "banker-desktop")

    roll(banker, 1, 6)  # a 7: Ann and Bob lose 70
    expect(tv.locator("#tv-ended")).to_be_visible()
    shots.take(tv, "watch-ended")
    # Round 3, the last: Eve arrives late, seated by the banker; everyone banks.
    roll(banker, 6, 6)
    late = shots.page(PHONE, f"/r/{code}")
    expect(late.get_by_text("This game has already started.")).to_be_visible()
    shots.take(late, "join-closed")
    banker.get_by_role("button", name="Seat a late player").click()
    banker.get_by_label("Their name").fill("Eve")
    banker.get_by_role("button", name="Seat them").click()
    drawn(banker, "#late-qr")
    shots.take(banker, "late-seat")
    link = banker.locator("#late-link").get_attribute("href") or ""
    banker.get_by_role("button", name="Done").click()
    eve = shots.page(PHONE, link.replace(shots.base, ""))
    expect(eve.locator("#bank-btn")).to_have_text("BANK opens after the next roll")
    shots.take(eve, "player-late")
    roll(banker, 3, 4)
    bank_total(ann, "82")
    for phone in (ann, bob, cy, eve):
        phone.get_by_role("button", name=re.compile(r"^BANK \d")).click()
    expect(banker.get_by_role("button", name="Bank for Dee")).to_be_enabled()
    roll(banker, 1, 2)
    banker.get_by_role("button", name="Bank for Dee").click()
    expect(ann.locator("#final-title")).to_be_visible()
    shots.take(ann, "final")
    expect(tv.locator("#tv-winner")).to_be_visible()
    shots.take(tv, "watch-final")
    banker.get_by_text("Leave someone out first").click()
    banker.get_by_label("Leave out Eve").check()
    expect(banker.locator("#again-btn")).to_have_text("Play again (4 players)")
    shots.take(banker, "final-banker")
    banker.locator("#again-btn").click()
    expect(banker.get_by_role("heading", name="Your game is ready")).to_be_visible()
    expect(ann.get_by_role("heading", name="You're in, Ann!")).to_be_visible()
    expect(tv.locator("#tv-lobby-players li")).to_have_count(4)
    shots.take(ann, "lobby-again")


def run(play: Callable[[Shots], None], description: str) -> None:
    """Every screenshot script's command line: a server and a browser as the tests start
    them, then `play` through the pages, taking the shots into --out."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with running_server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=ARGS)
        try:
            play(Shots(browser, base, args.out))
        finally:
            browser.close()


def main() -> None:
    run(play, __doc__ or "")


if __name__ == "__main__":
    main()
