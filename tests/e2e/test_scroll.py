"""Every view scrolls as a finger expects (issue 30): at 360x640, 390x844 and 430x932 on a
touch phone, turning the wheel over the middle of the screen (never `scrollIntoView`)
brings every heading and every enabled control onto the screen with nothing on top of it
(sticky bars, cards and toasts cover nothing for good), on every view of every game
(tests/e2e/gallery.py) and with each transient card shown: house rules, the banker-role
offer, a refusal's toast, the reconnecting top bar (offline), "Not sent".

One browser, every view made once on a page of its own; each view is one test that
scrolls it at the three sizes (tests/e2e/reach.js marks what each turn reached)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerProcess
from tests.e2e.conftest import Table
from tests.e2e.gallery import NAMES, Made, View, open_page, seen

pytestmark = pytest.mark.e2e

SIZES = [(360, 640), (390, 844), (430, 932)]
REACH = (Path(__file__).parent / "reach.js").read_text()
TURNS = 80  # a bound: the longest page is a few dozen turns long at the smallest size

CARDS = [
    "house rules, banker",
    "house rules, player",
    "house rules, TV",
    "banker-role offer, player",
    "refusal toast, player",
    "offline, banker",
    "not sent, player",
]


def live_round(base: str, **options: object) -> Made:
    room = Made.create(base, "rooms", game="bank", rounds=10, roll_entry="banker", **options)
    room.join("Ann", "Bob", "Cy")
    room.send({"type": "start"}, {"type": "roll", "total": 8}, {"type": "roll", "total": 9})
    return room


def offline(page: Page) -> None:
    """The phone loses the network: the socket drops and the top bar says so."""
    page.context.set_offline(True)
    expect(page.locator("#conn")).to_have_attribute("data-phase", "reconnecting")


def card_views(table: Table) -> dict[str, View]:
    base = table.server.base_url
    views: dict[str, View] = {}
    p = lambda path, seats=None: open_page(table, path, seats)  # noqa: E731

    house = live_round(base, safe_rolls=4, min_bank=10)
    views["house rules, banker"] = (
        p(f"/r/{house.code}", {house.code: house.seat(None)}),
        seen(".trust-house", "House rules"),
    )
    views["house rules, player"] = (
        p(f"/r/{house.code}", {house.code: house.seat("Ann")}),
        seen(".trust-house", "House rules"),
    )

    views["house rules, TV"] = (p(f"/watch/{house.code}"), seen(".trust-house", "House rules"))

    room = live_round(base)
    views["banker-role offer, player"] = (
        p(f"/r/{room.code}", {room.code: room.seat("Ann")}),
        seen("#takeover-title", "offers you"),
    )
    httpx.post(
        f"{base}/api/rooms/{room.code}/host/offer",
        json={"player_id": room.id("Ann")},
        headers={"Authorization": f"Bearer {room.token}"},
    ).raise_for_status()

    refused = p(f"/r/{room.code}", {room.code: room.seat("Bob")})
    seen("#bank-btn", "BANK")(refused)

    refused.on("dialog", lambda dialog: dialog.accept())  # "Switch to this seat?" Yes
    loads = iter(range(len(SIZES)))

    def refusal(page: Page) -> None:
        """A seat link the server refuses: the page keeps its seat and says so in a toast."""
        page.goto(f"/r/{room.code}?load={next(loads)}#token=not-a-token")  # a load of its own
        expect(page.locator("#toast")).to_contain_text("not valid")

    views["refusal toast, player"] = (refused, refusal)

    banker = p(f"/r/{room.code}", {room.code: room.seat(None)})
    seen("#bank-total", "17")(banker)
    offline(banker)
    views["offline, banker"] = (banker, seen("#tap-note", "Offline"))

    cy = p(f"/r/{room.code}", {room.code: room.seat("Cy")})
    seen("#bank-btn", "BANK 17")(cy)
    offline(cy)
    cy.locator("#bank-btn").click()
    views["not sent, player"] = (cy, seen("#tap-note", "Not sent"))
    return views


@pytest.fixture(scope="module")
def views(
    gallery: dict[str, View], browser: Browser, server: ServerProcess
) -> Iterator[dict[str, View]]:
    """The package's gallery (shared with test_axe.py) and the transient cards."""
    table = Table(browser, server)
    cards = card_views(table)
    assert sorted(cards) == sorted(CARDS)
    yield {**gallery, **cards}
    table.close()
    assert table.errors == [], "JavaScript errors on the pages"


def finger_scan(page: Page, width: int, height: int, shows: Callable[[Page], None]) -> list[str]:
    """From the top of the page to its end, a third of a screen per wheel turn over the
    middle of the screen: what was never reached."""
    page.set_viewport_size({"width": width, "height": height})
    shows(page)
    page.mouse.move(width / 2, height / 2)
    at = None
    while (now := page.evaluate(REACH, True)["at"]) != at:  # to the top, as a finger would
        at = now
        page.mouse.wheel(0, -100 * height)
    result = page.evaluate(REACH, True)
    for _ in range(TURNS):
        if not result["pending"]:
            break
        page.mouse.wheel(0, height / 3)
        before, result = result["at"], page.evaluate(REACH, False)
        if result["at"] == before:
            break  # the end: nothing moved
    return result["pending"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("view", NAMES + CARDS)
def test_every_heading_and_control_is_reached_by_scrolling(
    views: dict[str, View], view: str
) -> None:
    page, shows = views[view]
    missed = {f"{w}x{h}": pending for w, h in SIZES if (pending := finger_scan(page, w, h, shows))}
    assert missed == {}, f"{view}: not reached by scrolling, or covered: {missed}"


@pytest.mark.parametrize("view", ["offline, banker", "not sent, player"])
def test_the_top_bar_stays_one_line_while_reconnecting(views: dict[str, View], view: str) -> None:
    page, shows = views[view]
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        shows(page)
        expect(page.locator("#conn")).to_contain_text("Reconnecting")
        bar = page.locator(".topbar").bounding_box()
        assert bar and bar["height"] < 60, f"{view} at {width}x{height}: the top bar wraps ({bar})"


WHOLE = """() => [...document.querySelectorAll(".segmented label")].flatMap((label) => {
  const words = [];
  const walk = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    for (const match of walk.currentNode.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(walk.currentNode, match.index);
      range.setEnd(walk.currentNode, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) words.push(match[0]);
    }
  }
  return words;
})"""


def test_the_home_page_never_breaks_a_word(views: dict[str, View]) -> None:
    page, shows = views["home"]
    for width, height in [*SIZES, (195, 422)]:  # 195x422: 390x844 at 200 % zoom
        page.set_viewport_size({"width": width, "height": height})
        shows(page)
        expect(page.locator("#game-list label")).to_have_count(3)
        assert page.evaluate(WHOLE) == [], f"words broken at {width}x{height}"


INSIDE = """(selectors) => selectors.filter((selector) =>
  [...document.querySelectorAll(selector)].some((el) => {
    const r = el.getBoundingClientRect();
    const out = r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5;
    return r.width && (r.top < 0 || r.left < 0 || out);
  }))"""


@pytest.mark.parametrize(
    ("view", "parts"),
    [
        ("bank TV lobby", ["#tv-code", "#tv-code-big", "#tv-qr"]),
        ("bank TV play", ["#tv-code", ".chart", ".tv-bank-total"]),
        ("house rules, TV", ["#tv-code", ".chart", ".trust-house"]),
        ("tournament TV playing", ["#tv-code", "#tt-title"]),
    ],
)
def test_a_tv_shows_its_code_and_chart_whole_at_1280x720(
    views: dict[str, View], view: str, parts: list[str]
) -> None:
    page, shows = views[view]
    page.set_viewport_size({"width": 1280, "height": 720})
    shows(page)
    page.evaluate("scrollTo(0, 0)")
    assert page.evaluate(INSIDE, parts) == [], f"{view}: cut at the screen's edge"


ON_TOP = """(selectors) => selectors.filter((selector) => {
  const el = document.querySelector(selector);
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !(r.top >= 0 && r.bottom <= innerHeight && hit && el.contains(hit));
})"""


@pytest.mark.parametrize("view", ["bank play, banker", "house rules, banker"])
def test_the_bankers_round_and_bank_are_on_screen_as_the_page_opens(
    views: dict[str, View], view: str
) -> None:
    page, shows = views[view]
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.reload()  # as a phone opens it: nobody has scrolled
        shows(page)
        hidden = page.evaluate(ON_TOP, ["#round-info", "#bank-total", ".dicepad", "#undo-btn"])
        assert hidden == [], f"{view} at {width}x{height}: under a bar or off the screen"
