"""The page routes and the QR code endpoint (no browser needed)."""

from __future__ import annotations

import httpx

from tests.conftest import ServerProcess


def test_the_qr_code_carries_the_join_link_of_the_address_in_use(server: ServerProcess) -> None:
    code = httpx.post(f"{server.base_url}/api/rooms", json={}).json()["code"]
    response = httpx.get(f"{server.base_url}/api/rooms/{code.lower()}/qr.svg")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert response.headers["x-join-link"] == f"{server.base_url}/r/{code}"
    assert response.text.startswith("<svg") and "<path" in response.text
    missing = httpx.get(f"{server.base_url}/api/rooms/ZZZZ/qr.svg")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "unknown_room"


def test_room_and_watch_addresses_serve_their_pages(server: ServerProcess) -> None:
    for path, marker in (
        ("/", "Join a game"),
        ("/r/ABCD", 'id="view-join"'),
        ("/watch/abcd", 'id="tv-lobby"'),
        ("/t/ABCD", 'id="view-join"'),
        ("/watch/t/abcd", 'id="tv-lobby"'),
    ):
        response = httpx.get(f"{server.base_url}{path}")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert marker in response.text
