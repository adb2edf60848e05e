"""The pages of issue 21 in chromium, at 360x640 and on a laptop, with axe-core and the
phone audit: the "House rules" fold of the create forms, the house rules shown on the
pages, and "Verify these dice" recomputing every draw in the browser (@noble/hashes, so that
it works on the plain-http Wi-Fi address too, where WebCrypto is not there)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from websockets.sync.client import connect

from tests.conftest import start_server
from tests.e2e.axe import axe_results
from tests.e2e.conftest import ARGS, CHROMIUM, Table
from tests.fair import client_seed, draws_in

pytestmark = pytest.mark.e2e

SIZES: dict[str, ViewportSize] = {
    "360x640": {"width": 360, "height": 640},
    "laptop": {"width": 1280, "height": 800},
}
AUDIT = (Path(__file__).parent / "audit.js").read_text()


def accessible(page: Page, where: str) -> None:
    """axe-core finds no WCAG 2.2 AA violation, and the phone audit finds nothing."""
    found = axe_results(page)
    assert found.violations_count == 0, f"{where}: {found.generate_report()}"
    audit: dict[str, Any] = page.evaluate(AUDIT)
    assert audit["scrollWidth"] <= audit["width"], f"{where}: the page scrolls sideways"
    for kind in ("contrast", "overflow", "small", "unnamed"):
        assert audit[kind] == [], f"{where}: {kind}: {audit[kind]}"


def state_of(table: Table, code: str) -> dict[str, Any]:
    return httpx.get(f"{table.server.base_url}/api/rooms/{code}").json()["state"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("size", list(SIZES))
def test_the_bank_house_rules_fold_starts_at_the_seed_and_sends_what_differs(
    table: Table, size: str
) -> None:
    banker = table.open("/", viewport=SIZES[size])
    fold = banker.locator("details.house-rules")
    expect(fold).not_to_have_attribute("open", "")
    banker.get_by_text("House rules", exact=True).click()
    expect(banker.get_by_label("Safe rolls at the start of a round (1–5)")).to_have_value("3")
    expect(banker.get_by_label("A 7 during the safe rolls adds (0–1000)")).to_have_value("70")
    expect(banker.get_by_role("radio", name=re.compile("^Double the BANK"))).to_be_checked()
    accessible(banker, f"home, house rules open, {size}")

    banker.get_by_label("Safe rolls at the start of a round (1–5)").fill("9")
    banker.get_by_role("button", name="Create game").click()
    expect(banker.locator("#create-error")).to_have_text(
        "House rules: Safe rolls at the start of a round: a whole number from 1 to 5."
    )
    banker.get_by_label("Safe rolls at the start of a round (1–5)").fill("4")
    banker.get_by_label("Nobody may BANK below (empty: no minimum)").fill("100")
    banker.get_by_text("Double it and add the roll", exact=True).click()
    banker.get_by_role("button", name="Create game").click()
    expect(banker.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = banker.locator("#lobby-code").inner_text()
    rules = {"safe_rolls": 4, "min_bank": 100, "doubles": "double_add"}
    assert state_of(table, code)["house_rules"] == rules
    line = "House rules: 4 safe rolls, no BANK below 100, doubles double the BANK and add the roll."
    expect(banker.locator(".trust-house")).to_have_text(line)
    tv = table.open(f"/watch/{code}", viewport=SIZES["laptop"])
    expect(tv.locator(".trust-house")).to_have_text(line)
    accessible(banker, f"banker lobby with house rules, {size}")


def test_a_room_made_at_the_seed_rules_sends_none_and_shows_none(table: Table) -> None:
    banker = table.open("/")
    banker.get_by_text("House rules", exact=True).click()
    banker.get_by_role("button", name="Create game").click()
    expect(banker.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = banker.locator("#lobby-code").inner_text()
    created = httpx.get(f"{table.server.base_url}/api/rooms/{code}/log").json()["events"][0]
    assert created["data"] == {"game": "bank", "rounds": 20, "roll_entry": "banker"}
    expect(banker.locator(".trust")).to_be_hidden()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_bunco_fold_picks_the_common_movement(table: Table, size: str) -> None:
    host = table.open("/", viewport=SIZES[size])
    host.get_by_text("Bunco", exact=True).click()
    expect(host.get_by_label("Sets (1–10; a set is 6 rounds)")).to_be_visible()  # Bunco's form
    host.get_by_text("House rules", exact=True).click()
    expect(host.locator("details.house-rules")).to_have_attribute("open", "")
    expect(host.get_by_label("Points at the High table that end a round (5–100)")).to_have_value(
        "21"
    )
    expect(
        host.get_by_role("radio", name=re.compile("^High table's winners go to Low"))
    ).to_be_checked()
    host.get_by_text("High table's winners stay", exact=True).click()
    host.get_by_label("Three of a kind of another number scores (0–21)").fill("10")
    accessible(host, f"home, Bunco house rules, {size}")
    host.get_by_role("button", name="Create game").click()
    expect(host.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = host.locator("#lobby-code").inner_text()
    assert state_of(table, code)["house_rules"] == {"three_of_a_kind": 10, "movement": "common"}
    expect(host.locator(".trust-house")).to_have_text(
        "House rules: three of a kind scores 10, the High table's winners stay."
    )


def send(socket: Any, **command: Any) -> None:
    """One command over a banker's socket, answered with an ack."""
    command["id"] = f"c{id(command)}-{command['type']}"
    socket.send(json.dumps(command))
    while (answer := json.loads(socket.recv(timeout=10)))["type"] not in ("ack", "error"):
        pass
    assert answer["type"] == "ack", answer


@pytest.mark.parametrize("size", list(SIZES))
def test_the_movement_screen_says_which_movement_the_night_plays(table: Table, size: str) -> None:
    base = table.server.base_url
    made = httpx.post(
        f"{base}/api/rooms", json={"game": "bunco", "roll_entry": "banker", "movement": "common"}
    )
    code, token = made.json()["code"], made.json()["banker_token"]
    seats = [
        httpx.post(f"{base}/api/rooms/{code}/players", json={"name": f"P{n}"}).json()["token"]
        for n in range(8)
    ]
    phone = table.open(f"/r/{code}#token={seats[0]}", viewport=SIZES[size])
    with connect(f"ws://127.0.0.1:{table.server.port}/ws/rooms/{code}?token={token}") as socket:
        send(socket, type="start")
        send(socket, type="roll", table=1, dice=[1, 1, 2])  # the Low table: 2 points, no tie
        send(socket, type="roll", table=0, dice=[1, 1, 1])  # a Bunco at High: the bell
    rule = phone.locator("#b-movement-rule")
    expect(rule).to_have_text("House rules: the High table's winners stay, its losers go to Low.")
    expect(phone.locator("#b-next")).to_be_visible()
    accessible(phone, f"Bunco movement screen, {size}")


def finished_virtual_game(table: Table) -> tuple[str, str, list[dict[str, Any]]]:
    """A 1-round virtual game with two phones' seeds, rolled to its end over a socket."""
    base = table.server.base_url
    made = httpx.post(
        f"{base}/api/rooms", json={"rounds": 1, "roll_entry": "virtual", "safe_rolls": 2}
    )
    code, token = made.json()["code"], made.json()["banker_token"]
    tokens = []
    for n, name in enumerate(("Ann", "Bob")):
        body = {"name": name, "client_seed": client_seed(n + 1)}
        seated = httpx.post(f"{base}/api/rooms/{code}/players", json=body)
        tokens.append(seated.raise_for_status().json()["token"])
    with connect(f"{table.server.ws_url}/ws/rooms/{code}?token={token}") as socket:
        send(socket, type="start")
        for _ in range(500):
            send(socket, type="roll")
            if state_of(table, code)["status"] == "finished":
                break
    events = httpx.get(f"{base}/api/rooms/{code}/log").json()["events"]
    return code, tokens[0], events


@pytest.mark.parametrize("size", list(SIZES))
def test_verify_these_dice_rechecks_every_roll_in_the_browser(table: Table, size: str) -> None:
    code, ann, events = finished_virtual_game(table)
    rolls = draws_in(events)
    phone = table.open(f"/r/{code}#token={ann}", viewport=SIZES[size])  # Ann's final screen
    expect(phone.get_by_role("heading", name=re.compile("win|Game over"))).to_be_visible()
    verify = phone.get_by_role("button", name="Verify these dice")
    expect(verify).to_be_visible()
    expect(phone.locator(".trust-house")).to_have_text("House rules: 2 safe rolls.")
    verify.click()
    expect(phone.get_by_role("status").filter(has_text="check out")).to_have_text(
        f"All {rolls} rolls check out."
    )
    accessible(phone, f"final screen, verified, {size}")

    changed = copy.deepcopy(events)  # one die, changed with what was drawn for it
    second = [i for i, e in enumerate(changed) if e["type"] == "roll"][1]
    dice = changed[second]["data"]["dice"]
    dice[1] = dice[1] % 6 + 1
    changed[second]["fair"]["drawn"][0]["values"] = list(dice)
    said = phone.evaluate(
        """async (events) => {
            const { checkDice, verdict } = await import("/static/js/shell/fairdice.js");
            return verdict(await checkDice(events));
        }""",
        changed,
    )
    assert said == f"Roll 2 (event {changed[second]['seq']}) does not check out."
    if size == "laptop":  # the TV's final screen offers the same
        tv = table.open(f"/watch/{code}", viewport=SIZES[size])
        tv.get_by_role("button", name="Verify these dice").click()
        expect(tv.get_by_role("status").filter(has_text="check out")).to_have_text(
            f"All {rolls} rolls check out."
        )
        accessible(tv, "TV final screen, verified")


def test_verify_these_dice_works_on_the_wi_fi_address_over_plain_http(
    browser: Browser, tmp_path: Path
) -> None:
    """A phone that joined by the venue's address, as the README says: the server listens on
    127.0.0.2 and Chromium reaches it by a name (`bankit.lan`), an origin that is neither
    https nor localhost, so WebCrypto's `crypto.subtle` is not there (Chromium counts every
    127.x address as localhost: the name is what makes the page an ordinary http one)."""
    server = start_server(tmp_path, host="127.0.0.2")
    lan = browser.browser_type.launch(
        executable_path=CHROMIUM, args=[*ARGS, "--host-resolver-rules=MAP bankit.lan 127.0.0.2"]
    )
    table = Table(lan, server)
    try:
        code, ann, events = finished_virtual_game(table)
        phone = table.open(f"http://bankit.lan:{server.port}/r/{code}#token={ann}")
        assert phone.evaluate("[isSecureContext, typeof crypto.subtle]") == [False, "undefined"]
        phone.get_by_role("button", name="Verify these dice").click()
        verdict = f"All {draws_in(events)} rolls check out."
        expect(phone.locator(".trust-verdict")).to_have_text(verdict)
    finally:
        table.close()
        lan.close()
        server.stop()
    assert table.errors == [], "JavaScript errors on the page"
