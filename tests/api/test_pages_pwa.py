"""The pages' extras over a real server: the service worker at the root (so that its
scope is the whole site), the manifest, and the late seat's QR code (from a POST body,
so that the token is in no address)."""

from __future__ import annotations

import re

import httpx

from tests.client import Table
from tests.conftest import ROOT, ServerProcess


def test_the_service_worker_is_served_from_the_root_as_javascript(server: ServerProcess) -> None:
    response = httpx.get(f"{server.base_url}/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["service-worker-allowed"] == "/"
    assert response.headers["cache-control"] == "no-cache"  # a new version is seen at once
    assert 'url.pathname.startsWith("/api/")' in response.text  # the game is network only


def test_every_file_the_service_worker_keeps_exists_and_every_shell_module_is_kept(
    server: ServerProcess,
) -> None:
    worker = httpx.get(f"{server.base_url}/sw.js").text
    kept = re.findall(r'"(/[^"]*)",', worker.split("const SHELL = [", 1)[1].split("];", 1)[0])
    for path in kept:
        assert httpx.get(f"{server.base_url}{path}").status_code == 200, path
    modules = [*(ROOT / "static/js/shell").glob("*.js"), *(ROOT / "static/vendor").rglob("*.js")]
    shell = sorted(f"/{f.relative_to(ROOT)}" for f in modules)  # the vendored ones they import too
    assert [path for path in shell if path not in kept] == []


def test_the_manifest_names_icons_that_exist(server: ServerProcess) -> None:
    response = httpx.get(f"{server.base_url}/static/manifest.webmanifest")
    assert response.headers["content-type"].startswith("application/manifest+json")
    for icon in response.json()["icons"]:
        image = httpx.get(f"{server.base_url}{icon['src']}")
        assert image.status_code == 200 and image.headers["content-type"] == icon["type"]


def test_a_seat_qr_code_carries_the_seat_link_and_is_not_cached(server: ServerProcess) -> None:
    table = Table(server.base_url)
    token = table.banker_token
    response = httpx.post(
        f"{server.base_url}/api/rooms/{table.code.lower()}/seat-qr.svg", json={"token": token}
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert response.headers["cache-control"] == "no-store"
    assert f"QR code to take a seat in {table.code}" in response.text
    assert token not in str(response.url)


def test_a_seat_qr_code_needs_a_token_shaped_body_and_a_room(server: ServerProcess) -> None:
    table = Table(server.base_url)
    for body in ({}, {"token": 5}, {"token": "short"}, {"token": "bad token with spaces"}, [1]):
        response = httpx.post(f"{server.base_url}/api/rooms/{table.code}/seat-qr.svg", json=body)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "bad_request"
    response = httpx.post(f"{server.base_url}/api/rooms/ZZZZ/seat-qr.svg", json={"token": "x" * 32})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_room"
