"""Screenshots of a group's pages for the README (docs/screenshots/group-*.png).

    .venv/bin/python scripts/screenshots_group.py [--out docs/screenshots]

Starts its own server, plays a season of three nights over real sockets (a BANK game,
a Bunco night, a tournament: tests/games/group/season.py) with four members and
guests, then shows Ann's phone, the host's phone and the TV's standings."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import Page, ViewportSize, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import start_server  # noqa: E402
from tests.e2e.conftest import ARGS, CHROMIUM  # noqa: E402
from tests.games.group.season import Group, play_season  # noqa: E402

PHONE: ViewportSize = {"width": 390, "height": 844}
TV: ViewportSize = {"width": 1280, "height": 720}


async def season(base_url: str, ws_url: str) -> Group:
    group = Group(base_url, ws_url, "Thursday club")
    await group.recorded((await play_season(group))["tournament"])
    await group.start("bank", rounds=10)  # tonight's game, waiting for its players
    return group


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    out = parser.parse_args().out
    with tempfile.TemporaryDirectory() as logs:
        server = start_server(Path(logs))
        try:
            made: list[Group] = []
            thread = threading.Thread(
                target=lambda: made.append(asyncio.run(season(server.base_url, server.ws_url)))
            )
            thread.start()
            thread.join(120)
            group = made[0]
            ann_id, ann_token = group.members["Ann"]
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                shots = [
                    (
                        "group-phone",
                        PHONE,
                        {"token": ann_token, "member_id": ann_id, "name": "Ann"},
                    ),
                    ("group-host", PHONE, {"host_token": group.host_token}),
                    ("group-tv", TV, None),
                ]
                for name, viewport, kept in shots:
                    context = browser.new_context(
                        viewport=viewport, device_scale_factor=2, base_url=server.base_url
                    )
                    if kept:
                        saved = json.dumps(json.dumps(kept))
                        context.add_init_script(
                            f"localStorage.setItem('bankit:group:{group.code}', {saved})"
                        )
                    page: Page = context.new_page()
                    page.goto(f"/watch/g/{group.code}" if kept is None else f"/g/{group.code}")
                    expect(page.locator("table.standings").first).to_be_visible()
                    path = out / f"{name}.png"
                    page.screenshot(path=str(path), full_page=name != "group-tv")
                    print(f"wrote {path}")
                    context.close()
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
