"""What people at the table do, in the words the pages show (roles, labels, names)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect


def create_game(banker: Page, rounds: int | None = None, entry: str = "banker") -> str:
    """On the home page: create a game (a custom number of rounds when given); returns its code."""
    banker.get_by_text(_ENTRY_LABELS[entry], exact=True).click()
    expect(banker.get_by_role("radio", name=_ENTRY_LABELS[entry])).to_be_checked()
    if rounds in (3, 10, 15, 20):
        banker.locator(f"label[for='r{rounds}']").click()
        expect(banker.locator(f"#r{rounds}")).to_be_checked()
    elif rounds is not None:
        banker.get_by_label("Other: any number of rounds").fill(str(rounds))
        expect(banker.get_by_role("radio", name="Other")).to_be_checked()
    banker.get_by_role("button", name="Create game").click()
    expect(banker.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = banker.locator("#lobby-code").inner_text()
    assert len(code) == 4
    return code


_ENTRY_LABELS = {"banker": "The banker", "roller": "Each roller", "virtual": "Virtual dice"}


def join_by_link(page: Page, code: str, name: str) -> None:
    """What a phone that scanned the QR code does: /r/CODE, type a name, join."""
    page.goto(f"/r/{code}")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Join the game").click()
    expect(page.get_by_role("heading", name=f"You're in, {name}!")).to_be_visible()


def join_by_code(page: Page, code: str, name: str) -> None:
    """From the home page: type the room code and a name."""
    page.get_by_label("Room code").fill(code.lower())
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page.get_by_role("heading", name=f"You're in, {name}!")).to_be_visible()


def roll(banker: Page, a: int, b: int) -> None:
    """One tap on the dice pad, found by its spoken name ("Roll 8: ...", "Double 4s, 8: ...")."""
    name = rf"^Double {a}s, {a + b}:" if a == b else rf"^Roll {a + b}:"
    banker.get_by_role("button", name=re.compile(name)).click()


def bank(phone: Page) -> None:
    """The player's own huge BANK button."""
    phone.get_by_role("button", name=re.compile(r"^BANK \d")).click()


def roll_total(banker: Page, total: int) -> None:
    """One tap on a total key (3..11), sent as a total: no dice are invented."""
    banker.get_by_role("button", name=re.compile(rf"^Roll {total}:")).click()


def bank_for(banker: Page, name: str) -> None:
    """The banker banks on behalf of a player (who called BANK out loud, or has no phone)."""
    banker.get_by_role("button", name=f"Bank for {name}").click()


def expect_bank(page: Page, total: str) -> None:
    expect(page.locator("#bank-total")).to_have_text(total)
