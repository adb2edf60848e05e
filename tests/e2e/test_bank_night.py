"""BANK game night in the browser (issue 11): corrections that say what they do, late
arrivals, play again, honest rolls, the round so far, the rounds picker, sound, the
installable shell, and stale links; every new view through the in-page audit."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import PHONE, TV, Table
from tests.e2e.people import (
    bank,
    bank_for,
    create_game,
    expect_bank,
    join_by_link,
    roll,
    roll_total,
)
from tests.e2e.test_bunco_night import SlowLink
from tests.e2e.test_phone import audit
from tests.e2e.test_stale import until

pytestmark = pytest.mark.e2e

DESKTOP = {"width": 1280, "height": 800}


def start(table: Table, *names: str, rounds: int | None = None) -> tuple[str, Page, list[Page]]:
    banker = table.open("/")
    code = create_game(banker, rounds=rounds)
    phones = []
    for name in names:
        phone = table.open("/")
        join_by_link(phone, code, name)
        phones.append(phone)
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    expect(banker.locator("#view-play")).to_be_visible()
    return code, banker, phones


def audit_both(page: Page, where: str) -> None:
    """The audit at 360x640 and on a laptop."""
    audit(page, f"{where} (phone)")
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    audit(page, f"{where} (desktop)")
    page.set_viewport_size(PHONE)


def room_log(table: Table, code: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = httpx.get(
        f"{table.server.base_url}/api/rooms/{code}/log"
    ).json()["events"]
    return events


def feed(page: Page) -> Any:
    return page.locator("#feed li")


def test_the_banker_reads_what_undo_takes_back_and_takes_back_a_mistaken_bank(
    table: Table,
) -> None:
    code, banker, (ann, bob) = start(table, "Ann", "Bob")
    tv = table.open(f"/watch/{code}", viewport=TV)
    roll_total(banker, 8)  # Ann's
    roll_total(banker, 9)  # Bob's
    expect_bank(ann, "17")
    # Totals are sent as totals: no dice on any screen, none in the log.
    expect(banker.locator("#last-roll")).to_have_text("Bob rolled 9")
    expect(banker.locator("#last-roll .die")).to_have_count(0)
    expect(tv.locator("#tv-last")).to_have_text("Bob rolled 9")
    expect(tv.locator("#tv-last .die")).to_have_count(0)
    rolls = [e["data"] for e in room_log(table, code) if e["type"] == "roll"]
    assert [("dice" in r, r["total"]) for r in rolls] == [(False, 8), (False, 9)]
    expect(feed(ann).first).to_have_text("Bob rolled 9: +9.")

    # On the phone the per-player Bank buttons sit above the pad, not under the doubles.
    bank_for_ann = banker.get_by_role("button", name="Bank for Ann")
    pad = banker.locator(".dicepad")
    assert bank_for_ann.bounding_box()["y"] < pad.bounding_box()["y"]  # type: ignore[index]
    bank_for(banker, "Ann")  # meant for Bob
    expect(banker.locator("#undo-what")).to_have_text("takes back Bob's 9 and Ann's BANK of 17")
    audit_both(banker, "banker with a correction to make")
    take_back = banker.get_by_role("button", name="Take back Ann's BANK of 17")
    expect(take_back).to_be_visible()
    take_back.click()
    expect(ann.locator("#bank-btn")).to_have_text("BANK 17")
    expect(feed(bob).first).to_have_text("The banker took back Ann's BANK of 17.")
    expect(tv.locator("#tv-event")).to_have_text("The banker took back Ann's BANK of 17.")
    expect(banker.get_by_role("button", name="Bank for Ann")).to_be_enabled()
    bank_for(banker, "Bob")
    expect(bob.locator("#bank-btn")).to_have_text("✓ You banked 17")

    expect(banker.locator("#undo-what")).to_have_text(
        "takes back Bob's 9, Ann's BANK of 17, the take-back of Ann's BANK of 17"
        " and Bob's BANK of 17"
    )
    banker.get_by_role("button", name="Undo last roll").click()
    expect_bank(ann, "8")
    expect(feed(ann).first).to_have_text(
        "The banker took back Bob's 9, Ann's BANK of 17, the take-back of Ann's BANK of 17"
        " and Bob's BANK of 17."
    )
    expect(tv.locator("#tv-event")).to_contain_text("The banker took back Bob's 9")
    expect(banker.locator("#undo-what")).to_have_text("takes back Ann's 8")
    audit(tv, "TV after an undo")


def test_the_bankers_undo_sits_near_the_pad_on_a_laptop(table: Table) -> None:
    banker = table.open("/", viewport=DESKTOP)  # type: ignore[arg-type]
    code = create_game(banker)
    ann = table.open("/")
    join_by_link(ann, code, "Ann")
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    roll(banker, 3, 3)
    pad = banker.locator(".dicepad").bounding_box()
    undo = banker.get_by_role("button", name="Undo last roll").bounding_box()
    assert pad and undo
    assert 0 <= undo["y"] - (pad["y"] + pad["height"]) < 40  # right under the doubles
    audit(banker, "banker on a laptop")


def test_a_late_player_is_seated_mid_game_from_the_bankers_link(table: Table) -> None:
    code, banker, (ann,) = start(table, "Ann")
    roll_total(banker, 5)

    # A latecomer who scans the room's code is told at once that the banker seats them.
    dee = table.open(f"/r/{code}")
    expect(dee.get_by_text("This game has already started.")).to_be_visible()
    expect(dee.get_by_label("Your name")).to_be_hidden()
    expect(dee.locator("#conn")).to_be_hidden()  # no "Connecting…" before a seat
    audit_both(dee, "join page of a game under way")

    banker.get_by_role("button", name="Seat a late player").click()
    dialog = banker.get_by_role("dialog", name="Seat a late player")
    dialog.get_by_label("Their name").fill("Dee")
    dialog.get_by_role("button", name="Seat them").click()
    qr = dialog.get_by_role("img", name=f"QR code: Dee's seat in game {code}")
    expect(qr).to_be_visible()
    banker.wait_for_function("() => document.querySelector('#late-qr').naturalWidth > 0")
    link = dialog.get_by_role("link", name="Copy this link to their phone").get_attribute("href")
    assert link and re.search(rf"/r/{code}#token=[\w-]+$", link)
    audit_both(banker, "the late seat's QR code")
    dialog.get_by_role("button", name="Done").click()
    expect(banker.locator(".row", has_text="Dee")).to_contain_text("joined late")

    dee.goto(link.replace(table.server.base_url, ""))
    expect(dee.locator("#view-play")).to_be_visible()
    assert "token" not in dee.url  # the seat left the address bar
    expect(dee.locator("#bank-btn")).to_have_text("BANK opens after the next roll")
    audit_both(dee, "a late player before the next roll")
    roll_total(banker, 6)
    expect(dee.locator("#bank-btn")).to_have_text("BANK 11")
    bank(dee)
    expect(banker.locator(".row", has_text="Dee")).to_contain_text("✓ banked 11")
    dee.reload()  # the seat is this phone's now
    expect(dee.locator("#bank-btn")).to_have_text("✓ You banked 11")

    # Someone without a phone: "no phone", never "offline".
    banker.get_by_role("button", name="Seat a late player").click()
    dialog.get_by_label("Their name").fill("Eve")
    dialog.get_by_text("No phone", exact=True).click()
    dialog.get_by_role("button", name="Seat them").click()
    expect(dialog).to_be_hidden()
    eve = banker.locator(".row", has_text="Eve")
    expect(eve).to_contain_text("no phone")
    expect(eve).not_to_contain_text("offline")
    expect(ann.locator(".row", has_text="Eve")).to_contain_text("no phone")


def test_play_again_takes_three_phones_and_the_tv_to_the_new_game(table: Table) -> None:
    old, banker, phones = start(table, "Ann", "Bob", "Cy", rounds=1)
    tv = table.open(f"/watch/{old}", viewport=TV)
    roll_total(banker, 8)
    for phone in phones:
        bank(phone)
    ann = phones[0]
    expect(ann.locator("#view-final")).to_be_visible()
    expect(ann.get_by_role("heading", name="Every round")).to_be_visible()
    expect(ann.locator("#final-history tr")).to_have_count(1)
    audit_both(ann, "a player's final screen")
    again = banker.get_by_role("button", name=re.compile("^Play again"))
    expect(again).to_have_text("Play again (3 players)")
    banker.get_by_text("Leave someone out first").click()
    banker.get_by_label("Leave out Cy").check()
    expect(again).to_have_text("Play again (2 players)")
    banker.get_by_label("Leave out Cy").uncheck()
    audit_both(banker, "the banker's final screen")
    again.click()

    expect(banker.get_by_role("heading", name="Your game is ready")).to_be_visible()
    new = banker.locator("#lobby-code").inner_text()
    assert new != old and banker.url.endswith(f"/r/{new}")
    for phone, name in zip(phones, ("Ann", "Bob", "Cy"), strict=True):
        expect(phone.get_by_role("heading", name=f"You're in, {name}!")).to_be_visible()
        assert phone.url.endswith(f"/r/{new}")
    expect(tv.locator("#tv-code")).to_have_text(new)
    expect(tv.locator("#tv-lobby-players li")).to_have_text(["Ann", "Bob", "Cy"])
    assert tv.url.endswith(f"/watch/{new}")

    # The finished game stays viewable, from a link in the new one.
    previous = ann.get_by_role("link", name=re.compile(f"game {old}"))
    expect(previous).to_be_visible()
    previous.click()
    expect(ann.locator("#view-final")).to_be_visible()
    assert ann.url.endswith(f"/r/{old}?stay")
    expect(ann.locator("#final-history tr")).to_have_count(1)
    ann.go_back()
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    expect(ann.locator("#view-play")).to_be_visible()


def test_a_reload_mid_round_shows_the_feed_of_the_round_so_far(table: Table) -> None:
    code, banker, (ann, _bob) = start(table, "Ann", "Bob")
    roll_total(banker, 8)
    roll_total(banker, 9)
    roll(banker, 5, 5)  # safe doubles: +10
    bank_for(banker, "Bob")
    expect_bank(ann, "27")
    ann.reload()
    expect(feed(ann)).to_have_text(
        ["Bob banked 27.", "Ann rolled 5+5: +10.", "Bob rolled 9: +9.", "Ann rolled 8: +8."]
    )
    audit_both(ann, "a player after a reload")


def test_a_tv_opened_mid_round_draws_the_round_and_keeps_how_it_ended(table: Table) -> None:
    code, banker, (_ann, bob) = start(table, "Ann", "Bob")
    roll_total(banker, 8)
    roll_total(banker, 9)
    roll(banker, 5, 5)
    bank(bob)
    tv = table.open(f"/watch/{code}", viewport=TV)
    chart = tv.get_by_role("img", name=re.compile("^BANK growth"))
    expect(chart).to_have_attribute(
        "aria-label",
        "BANK growth this round. after roll 0: 0, after roll 1: 8, after roll 2: 17, "
        "after roll 3: 27",
    )
    expect(tv.locator("#tv-board .row", has_text="Bob")).to_contain_text("✓ banked 27")
    roll_total(banker, 7)  # the fourth roll: the end of round 1
    ended = "Round 1 ended on a 7 at 27: Bob had banked."
    expect(tv.locator("#tv-ended")).to_have_text(ended)
    late = table.open(f"/watch/{code}", viewport=TV)
    expect(late.locator("#tv-ended")).to_have_text(ended)
    expect(late.get_by_role("img", name=re.compile("^BANK growth"))).to_have_attribute(
        "aria-label", re.compile("after roll 3: 27, then a 7 at roll 4$")
    )
    expect(late.locator("#tv-chart .seven")).to_have_count(1)  # the ending 7 is plotted
    expect(late.locator("#tv-last")).to_have_text(re.compile("rolled 7$"))
    audit(late, "a TV opened between rounds")
    roll_total(banker, 4)
    expect(tv.locator("#tv-ended")).to_be_hidden()
    expect(late.locator("#tv-ended")).to_be_hidden()
    expect(late.get_by_role("img", name=re.compile("^BANK growth"))).to_have_attribute(
        "aria-label", re.compile("after roll 1: 4$")
    )


def test_a_bank_after_a_seven_reads_too_late(table: Table) -> None:
    _code, banker, (ann, _bob) = start(table, "Ann", "Bob")
    for total in (8, 9, 10):
        roll_total(banker, total)
    link = SlowLink("bank")  # Ann's BANK is on its way while the banker enters a 7
    ann.route_web_socket(re.compile(r"/ws/rooms/"), link.route)
    ann.clock.install()  # the phone's timers wait for the test: its BANK is not given up
    ann.reload()
    expect_bank(ann, "27")
    ann.clock.pause_at(time.time() + 0.5)
    link.holding = True
    bank(ann)
    until(lambda: link.held, ann)
    roll_total(banker, 7)  # the 7 reaches the server first
    expect(banker.locator("#round-info")).to_have_text("Round 2 of 20")
    link.release()
    expect(ann.get_by_role("alert").filter(has_text="Too late")).to_have_text(
        "Too late — the 7 came first."
    )
    expect(ann.locator("#banner")).to_contain_text("Too late — the 7 came first")

    ann.context.set_offline(True)  # a long outage: the badge says so and stays in the bar
    badge = ann.locator("#conn")
    ann.clock.run_for(20_000)
    expect(badge).to_contain_text("(try", timeout=5_000)
    box = badge.bounding_box()
    assert box and box["x"] + box["width"] <= PHONE["width"] - 44  # the sound toggle is after it


def test_the_rounds_picker_shows_3_and_one_choice_wins(table: Table) -> None:
    home = table.open("/")
    three = home.locator("label[for='r3']")
    expect(three).to_be_visible()
    home.locator("label[for='r10']").click()
    home.get_by_label("Other: any number of rounds").fill("5")
    expect(home.locator("#r-other")).to_be_checked()  # typing picks "Other" visibly
    expect(home.locator("#r10")).not_to_be_checked()
    home.locator("label[for='r15']").click()  # a visible 15 wins over the typed 5
    home.get_by_role("button", name="Create game").click()
    expect(home.locator("#lobby-settings")).to_have_text(re.compile("^15 rounds"))
    home.goto("/")
    home.get_by_label("Other: any number of rounds").fill("5")
    audit_both(home, "home with a custom number of rounds")
    home.get_by_role("button", name="Create game").click()
    expect(home.locator("#lobby-settings")).to_have_text(re.compile("^5 rounds"))


def test_a_stale_back_to_your_game_link_is_dropped(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker)
    banker.evaluate(
        """localStorage.setItem('bankit:seat:ZZZZ', JSON.stringify({token: 'x'.repeat(32),
             role: 'player', player_id: 'p', name: 'Ann', saved: Date.now()}))"""
    )
    banker.goto("/")
    recent = banker.locator("#recent-list li")
    expect(recent).to_have_count(1)
    expect(recent).to_have_text(f"{code} · as the banker")
    assert banker.evaluate("localStorage.getItem('bankit:seat:ZZZZ')") is None
    banker.goto("/r/ZZZZ")
    expect(banker.locator("#gone-text")).to_have_text(
        "Game ZZZZ is not on this server any more. It may have ended a while ago."
    )
    expect(banker.get_by_role("link", name="Go to the start page")).to_be_visible()
    audit_both(banker, "a game that is not here")


def test_a_player_lobby_puts_waiting_first_and_the_qr_code_away(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker)
    ann = table.open("/")
    join_by_link(ann, code, "Ann")
    expect(ann.get_by_text("Waiting for the banker to start…")).to_be_in_viewport()
    expect(ann.locator("#lobby-qr")).to_be_hidden()
    expect(ann.get_by_text("Phones cannot reach")).to_be_hidden()
    ann.get_by_text(f"Invite others (room {code})").click()
    expect(ann.locator("#lobby-invite-qr")).to_be_visible()
    audit_both(ann, "a player's lobby")
    expect(banker.locator("#lobby-qr")).to_be_visible()
    expect(banker.get_by_text("Phones cannot reach")).to_be_visible()


def test_sound_is_off_until_tapped_and_then_beeps_for_a_bank(table: Table) -> None:
    code, banker, (ann, bob) = start(table, "Ann", "Bob")
    toggle = ann.get_by_role("button", name="Sound off")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    roll_total(banker, 8)
    bank(bob)
    expect(ann.locator(".row", has_text="Bob")).to_contain_text("✓ banked 8")
    assert ann.evaluate("window.__bankitBeeps || 0") == 0  # off by default
    toggle.click()
    expect(ann.get_by_role("button", name="Sound on")).to_have_attribute("aria-pressed", "true")
    before = ann.evaluate("window.__bankitBeeps")
    roll(banker, 4, 4)
    ann.wait_for_function("(n) => window.__bankitBeeps > n", arg=before)  # the double
    ann.reload()
    expect(ann.get_by_role("button", name="Sound on")).to_be_visible()  # remembered
    for page in (banker, table.open("/"), table.open(f"/watch/{code}", viewport=TV)):
        expect(page.get_by_role("button", name=re.compile("^Sound (on|off)$"))).to_be_visible()


def test_the_shell_is_installable_and_reopens_offline(table: Table) -> None:
    home = table.open("/", service_worker=True)
    manifest = home.locator("link[rel=manifest]").get_attribute("href")
    assert manifest
    body = httpx.get(f"{table.server.base_url}{manifest}").json()
    assert body["display"] == "standalone"
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in body["icons"]}
    scope = home.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == f"{table.server.base_url}/"
    home.reload()  # now controlled by the worker
    home.wait_for_function("() => navigator.serviceWorker.controller !== null")
    home.wait_for_function(
        "() => caches.open('bankit-shell-v1').then((c) => c.match('/static/room.html'))"
        ".then(Boolean)"
    )
    home.context.set_offline(True)
    home.goto("/r/ABCD")  # never opened: the cached room page answers, the game cannot
    expect(home.get_by_role("heading", name=re.compile("^Join game"))).to_be_visible()
    home.context.set_offline(False)
