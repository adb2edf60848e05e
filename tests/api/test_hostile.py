"""A hostile client over real sockets on loopback: each probe of issue 19's table, bounded.

Different clients are different source addresses in 127.0.0.0/8 (127.0.0.1 is the
host itself, which no share limits). Every probe is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus

from app.rooms.eventlog import verify
from tests.client import Client, Table
from tests.conftest import ServerProcess, start_server

MakeServer = Callable[..., ServerProcess]
SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


@contextmanager
def http_from(proc: ServerProcess, source: str) -> Iterator[httpx.Client]:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=proc.base_url, transport=transport, timeout=10) as client:
        yield client


def raw_from(proc: ServerProcess, source: str) -> socket.socket:
    sock = socket.create_connection(
        ("127.0.0.1", proc.port), timeout=10, source_address=(source, 0)
    )
    return sock


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes `sock` (EOF or reset) within `seconds`."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return True


async def refused_socket(
    proc: ServerProcess, code: str, token: str | None = None, source: str | None = None
) -> int | None:
    """Connect and return the close code of a socket the server refuses after the upgrade."""
    client = await Client.connect(proc.ws_url, code, token, source=source)
    return await client.wait_closed()


async def welcomed(
    proc: ServerProcess,
    code: str,
    token: str | None = None,
    source: str | None = None,
    headers: dict[str, str] | None = None,
) -> Client:
    client = await Client.connect(proc.ws_url, code, token, source=source, headers=headers)
    await client.wait_for(lambda m: m["type"] == "welcome")
    return client


# -- 1: spectator sockets cannot fill the server; token holders keep their room -----------
async def test_1_one_address_meets_its_spectator_share_and_seats_still_open(
    fresh_server: MakeServer,
) -> None:
    proc = fresh_server()  # defaults: 60 spectator sockets an address
    table = Table(proc.base_url)
    table.join("Ann")
    watchers = [await welcomed(proc, table.code, source="127.0.0.2") for _ in range(60)]
    assert await refused_socket(proc, table.code, source="127.0.0.2") == 1013
    ann = await welcomed(proc, table.code, table.players["Ann"][1], source="127.0.0.2")
    other = await welcomed(proc, table.code, source="127.0.0.3")
    await watchers[0].close()
    deadline = time.monotonic() + 10
    while True:  # the freed place is the address's again once the server saw the close
        again = await Client.connect(proc.ws_url, table.code, source="127.0.0.2")
        try:
            first = await again.wait_for(lambda m: True)
        except ConnectionError:  # closed 1013: the server had not seen the close yet
            first = {}
        if first.get("type") == "welcome" or time.monotonic() > deadline:
            break
    assert first.get("type") == "welcome"
    assert ann.close_code is None and other.close_code is None


async def test_1_spectators_never_take_the_seats_share_of_the_server(
    fresh_server: MakeServer,
) -> None:
    proc = fresh_server(BANKIT_MAX_CONNECTIONS="20")  # 25 % (5) kept for token holders
    table = Table(proc.base_url)
    for n in range(5):
        table.join(f"P{n}")
    for n in range(15):
        await welcomed(proc, table.code, source=f"127.0.0.{2 + n % 5}")
    assert await refused_socket(proc, table.code, source="127.0.0.9") == 1013
    for name, (_, token) in table.players.items():
        seat = await welcomed(proc, table.code, token, source="127.0.0.9")
        assert seat.close_code is None, name


async def test_1_a_room_has_a_bound_on_spectators(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_SPECTATORS_PER_ROOM="3")
    busy, quiet = Table(proc.base_url), Table(proc.base_url)
    for n in range(3):
        await welcomed(proc, busy.code, source=f"127.0.0.{2 + n}")
    assert await refused_socket(proc, busy.code, source="127.0.0.7") == 1013
    await welcomed(proc, quiet.code, source="127.0.0.7")
    busy.join("Ann")
    await welcomed(proc, busy.code, busy.players["Ann"][1], source="127.0.0.7")


async def test_1_sockets_per_address(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_SOCKETS_PER_ADDRESS="4")
    table = Table(proc.base_url)
    table.join("Ann")
    token = table.players["Ann"][1]
    for _ in range(4):
        await welcomed(proc, table.code, token, source="127.0.0.2")
    assert await refused_socket(proc, table.code, token, source="127.0.0.2") == 1013
    await welcomed(proc, table.code, token, source="127.0.0.3")


# -- 2: room creations: a rate and a quota of live rooms per address -----------------------
def test_2_room_creations_have_a_rate_per_address(fresh_server: MakeServer) -> None:
    proc = fresh_server()  # defaults: 30 at once
    with http_from(proc, "127.0.0.2") as flood, http_from(proc, "127.0.0.3") as friend:
        made = [flood.post("/api/rooms", json={}).status_code for _ in range(30)]
        assert made == [201] * 30
        refused = flood.post("/api/rooms", json={})
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        assert friend.post("/api/rooms", json={}).status_code == 201


def test_2_live_rooms_per_address_have_a_quota(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_ROOMS_PER_ADDRESS="3")
    with http_from(proc, "127.0.0.2") as host, http_from(proc, "127.0.0.3") as friend:
        assert [host.post("/api/rooms", json={}).status_code for _ in range(3)] == [201] * 3
        refused = host.post("/api/rooms", json={})
        assert (refused.status_code, refused.json()["error"]["code"]) == (429, "too_many_rooms")
        assert "retry-after" in refused.headers
        assert friend.post("/api/rooms", json={}).status_code == 201


# -- 3: rooms in memory and on disk have caps that hold on every path --------------------
def rooms_owned(proc: ServerProcess) -> int:
    for line in httpx.get(f"{proc.base_url}/metrics").text.splitlines():
        if line.startswith("bankit_rooms_owned "):
            return int(float(line.split()[1]))
    raise AssertionError("no bankit_rooms_owned")


def test_3_max_rooms_bounds_memory_on_create_restore_and_restart(tmp_path: Path) -> None:
    env = {"BANKIT_MAX_ROOMS": "3", "BANKIT_DATA_DIR": str(tmp_path / "data")}
    proc = start_server(tmp_path, env)
    try:
        codes = []
        for n in range(8):  # from several addresses: no share of one address is met
            with http_from(proc, f"127.0.0.{2 + n}") as client:
                made = client.post("/api/rooms", json={})
                assert made.status_code == 201, made.text
                codes.append(made.json()["code"])
            assert rooms_owned(proc) <= 3
        for code in codes:  # each read brings a room back from disk: others make way
            assert httpx.get(f"{proc.base_url}/api/rooms/{code}").status_code == 200
            assert rooms_owned(proc) <= 3
    finally:
        proc.stop()
    again = start_server(tmp_path, env, port=proc.port)
    try:
        assert rooms_owned(again) <= 3, "adopting the stored rooms keeps the cap"
        assert all(
            httpx.get(f"{again.base_url}/api/rooms/{code}").status_code == 200 for code in codes
        )
    finally:
        again.kill()


def test_3_rooms_on_disk_have_a_bound(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_MAX_STORED_ROOMS="4")
    made = [Table(proc.base_url) for _ in range(4)]
    refused = httpx.post(f"{proc.base_url}/api/rooms", json={})
    assert (refused.status_code, refused.json()["error"]["code"]) == (503, "server_full")
    assert all(httpx.get(f"{proc.base_url}/api/rooms/{t.code}").status_code == 200 for t in made)


# -- 4: slowloris: a request that does not finish is closed; connections per address -----
def test_4_half_sent_requests_and_handshakes_are_closed_by_the_deadline(
    fresh_server: MakeServer,
) -> None:
    proc = fresh_server(BANKIT_REQUEST_SECONDS="1")
    table = Table(proc.base_url)
    slow = []
    for n in range(10):
        sock = raw_from(proc, f"127.0.0.{2 + n % 3}")
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        slow.append(sock)
    for _ in range(5):
        sock = raw_from(proc, "127.0.0.5")
        sock.sendall(f"GET /ws/rooms/{table.code} HTTP/1.1\r\nUpgrade: websocket\r\n".encode())
        slow.append(sock)
    silent = raw_from(proc, "127.0.0.6")  # sends nothing at all
    started = time.monotonic()
    assert httpx.get(f"{proc.base_url}/healthz").status_code == 200
    assert all(closed_within(sock, 8) for sock in [*slow, silent])
    assert time.monotonic() - started < 10
    for sock in slow:
        sock.close()
    silent.close()


def test_4_one_address_holds_a_bounded_number_of_connections(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_CONNECTIONS_PER_ADDRESS="5", BANKIT_REQUEST_SECONDS="30")
    held = [raw_from(proc, "127.0.0.2") for _ in range(5)]
    for sock in held:  # each is accepted: a request on it is answered
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(5)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    extra = raw_from(proc, "127.0.0.2")
    assert closed_within(extra, 5), "the sixth connection of one address is closed at once"
    with http_from(proc, "127.0.0.3") as other:
        assert other.get("/healthz").status_code == 200
    for sock in [*held, extra]:
        sock.close()


def test_4_open_connections_have_a_bound(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_MAX_OPEN_CONNECTIONS="4", BANKIT_REQUEST_SECONDS="30")
    held = [raw_from(proc, f"127.0.0.{2 + n}") for n in range(4)]
    with http_from(proc, "127.0.0.9") as late:
        assert late.get("/healthz").status_code == 503
    for sock in held:
        sock.close()


# -- 5: bodies over 16 KB are refused before they are read whole ---------------------------
def test_5_a_huge_declared_body_is_refused_before_it_is_sent(server: ServerProcess) -> None:
    sock = raw_from(server, "127.0.0.2")
    sock.sendall(
        b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 60000000\r\n\r\n" + b" " * 1024
    )
    sock.settimeout(5)
    answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    sock.close()


def test_5_bodies_over_16_kb_are_413_and_smaller_ones_are_read(server: ServerProcess) -> None:
    table = Table(server.base_url)
    name = '{"name": "' + "x" * 2 * 1024 * 1024 + '"}'
    join = httpx.post(
        f"{server.base_url}/api/rooms/{table.code}/players",
        content=name.encode(),
        headers={"content-type": "application/json"},
    )
    assert join.status_code == 413 and join.json()["error"]["code"] == "too_large"

    def chunks() -> Iterator[bytes]:
        yield b'{"rounds": 3, "pad": "'
        for _ in range(10):
            yield b"x" * 4096
        yield b'"}'

    chunked = httpx.post(
        f"{server.base_url}/api/rooms",
        content=chunks(),
        headers={"content-type": "application/json"},
    )
    assert chunked.status_code == 413
    assert table.state()["players"] == []


# -- 6: guessing codes is slowed down; one address cannot fill a lobby ---------------------
def test_6_unknown_codes_run_out_and_then_every_code_waits(server: ServerProcess) -> None:
    table = Table(server.base_url)
    with http_from(server, "127.0.0.20") as guesser, http_from(server, "127.0.0.21") as friend:
        codes = [f"Z{n:03d}".replace("0", "Z").replace("1", "Y") for n in range(30)]
        assert [guesser.get(f"/api/rooms/{c}").status_code for c in codes] == [404] * 30
        throttled = guesser.get(f"/api/rooms/{table.code}")
        assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) >= 1
        assert guesser.get(f"/api/rooms/{table.code}/qr.svg").status_code == 429
        assert friend.get(f"/api/rooms/{table.code}").status_code == 200


async def test_6_socket_guesses_count_as_unknown_codes(server: ServerProcess) -> None:
    table = Table(server.base_url)
    for n in range(30):
        assert await refused_socket(server, f"ZZZ{n % 10}", source="127.0.0.22") == 4404
    assert await refused_socket(server, table.code, source="127.0.0.22") == 1013
    await welcomed(server, table.code, source="127.0.0.23")


def test_6_one_address_takes_a_bounded_share_of_a_lobby(server: ServerProcess) -> None:
    table = Table(server.base_url)
    with http_from(server, "127.0.0.24") as filler, http_from(server, "127.0.0.25") as friend:
        joins = [
            filler.post(f"/api/rooms/{table.code}/players", json={"name": f"Bot {n}"})
            for n in range(33)
        ]
        assert [j.status_code for j in joins] == [201] * 32 + [429]
        assert joins[-1].json()["error"]["code"] == "too_many_seats"
        real = friend.post(f"/api/rooms/{table.code}/players", json={"name": "Real friend"})
        assert real.status_code == 201


def test_6_joins_have_a_rate_per_address(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_JOIN_BURST="5")
    tables = [Table(proc.base_url) for _ in range(3)]
    with http_from(proc, "127.0.0.2") as joiner, http_from(proc, "127.0.0.3") as friend:
        statuses = [
            joiner.post(f"/api/rooms/{tables[n % 3].code}/players", json={"name": f"P{n}"})
            for n in range(6)
        ]
        assert [s.status_code for s in statuses] == [201] * 5 + [429]
        assert "retry-after" in statuses[-1].headers
        assert friend.post(f"/api/rooms/{tables[0].code}/players", json={"name": "F"}).is_success


# -- 9: a room's log has a bound, and is read in pages ------------------------------------
async def test_9_a_log_at_its_bound_takes_no_more_and_says_so(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_MAX_LOG_EVENTS="100", BANKIT_LOG_PAGE="40")
    table = Table(proc.base_url, rounds=20)
    table.join("Ann")
    banker = await welcomed(proc, table.code, table.banker_token)
    seq = await banker.ok(type="start")
    for _ in range(60):  # roll and undo, as issue 19's probe did, until the bound
        if seq >= 100:
            break
        seq = await banker.ok(type="roll", dice=[2, 3])
        if seq < 100:
            seq = await banker.ok(type="undo")
    assert seq == 100
    before = table.state()
    refused = await banker.refused("log_full", type="roll", dice=[2, 3])
    assert "new game" in refused["message"]
    late = httpx.post(f"{proc.base_url}/api/rooms/{table.code}/players", json={"name": "Bob"})
    assert (late.status_code, late.json()["error"]["code"]) == (409, "log_full")
    assert table.state() == before

    url = f"{proc.base_url}/api/rooms/{table.code}/log"
    pages, after = [], 0
    for _ in range(10):
        page = httpx.get(url, params={"after": after}).json()
        pages += page["events"]
        if page["next_after"] is None:
            break
        after = page["next_after"]
    assert [e["seq"] for e in pages] == list(range(1, 101))
    assert verify(pages)
    small = httpx.get(url, params={"after": 95, "limit": 3}).json()
    assert [e["seq"] for e in small["events"]] == [96, 97, 98] and small["next_after"] == 98
    assert httpx.get(url, params={"after": -1}).status_code in (400, 422)


# -- 10: sockets from another site's pages are refused -------------------------------------
UVICORN = ("-m", "uvicorn", "--factory", "app.main:create_app", "--ws", "websockets-sansio")


@pytest.fixture
def asgi_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """Plain uvicorn: room sockets through the ASGI route (app/api/ws.py)."""
    proc = start_server(tmp_path, {"BANKIT_SPECTATORS_PER_ADDRESS": "3"}, command=UVICORN)
    yield proc
    proc.kill()


async def test_1_the_asgi_route_keeps_the_shares_too(asgi_server: ServerProcess) -> None:
    table = Table(asgi_server.base_url)
    table.join("Ann")
    for _ in range(3):
        await welcomed(asgi_server, table.code, source="127.0.0.2")
    assert await refused_socket(asgi_server, table.code, source="127.0.0.2") == 1013
    await welcomed(asgi_server, table.code, table.players["Ann"][1], source="127.0.0.2")
    await welcomed(asgi_server, table.code, source="127.0.0.3")


async def origins_hold(proc: ServerProcess) -> None:
    table = Table(proc.base_url)
    host = f"127.0.0.1:{proc.port}"
    for origin in ("https://evil.example", "null", f"http://{host}.evil.example"):
        with pytest.raises(InvalidStatus) as refused:
            await Client.connect(
                proc.ws_url, table.code, table.banker_token, headers={"Origin": origin}
            )
        assert refused.value.response.status_code == 403
    for headers in ({"Origin": f"http://{host}"}, {}):
        await welcomed(proc, table.code, table.banker_token, headers=headers)


async def test_10_a_foreign_origin_is_refused_403(server: ServerProcess) -> None:
    await origins_hold(server)


async def test_10_a_foreign_origin_is_refused_403_on_the_asgi_route(
    asgi_server: ServerProcess,
) -> None:
    await origins_hold(asgi_server)


async def test_10_a_listed_origin_may_open_sockets(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_ALLOWED_ORIGINS="https://tv.example.org")
    table = Table(proc.base_url)
    await welcomed(proc, table.code, headers={"Origin": "https://tv.example.org"})


# -- 11: security headers on pages, static files and API answers ---------------------------
def test_11_every_answer_carries_the_security_headers(server: ServerProcess) -> None:
    table = Table(server.base_url)
    paths = [
        "/",
        f"/r/{table.code}",
        f"/watch/{table.code}",
        "/static/js/shell/room.js",
        "/static/css/base.css",
        "/sw.js",
        "/api/games",
        f"/api/rooms/{table.code}",
        "/api/rooms/ZZZZ",
        "/no-such-page",
    ]
    for path in paths:
        response = httpx.get(f"{server.base_url}{path}")
        for name, value in SECURITY_HEADERS.items():
            assert response.headers.get(name) == value, (path, name)
        csp = response.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp


# -- 12: links and QR codes never carry a forged Host --------------------------------------
def test_12_a_forged_host_never_reaches_a_join_link(server: ServerProcess) -> None:
    table = Table(server.base_url)
    response = httpx.get(
        f"{server.base_url}/api/rooms/{table.code}/qr.svg", headers={"Host": "evil.example"}
    )
    assert response.status_code == 200
    assert "evil.example" not in response.headers["x-join-link"]
    assert response.headers["x-join-link"] == f"http://127.0.0.1:{server.port}/r/{table.code}"
    assert response.headers["cache-control"].startswith("private")
    lan = httpx.get(
        f"{server.base_url}/api/rooms/{table.code}/qr.svg", headers={"Host": "192.168.1.20:8000"}
    )
    assert lan.headers["x-join-link"] == f"http://192.168.1.20:8000/r/{table.code}"


def test_12_links_come_from_the_public_url_when_set(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_PUBLIC_URL="https://dice.example.org/")
    table = Table(proc.base_url)
    response = httpx.get(f"{proc.base_url}/api/rooms/{table.code}/qr.svg")
    assert response.headers["x-join-link"] == f"https://dice.example.org/r/{table.code}"


# -- 13: a seat's QR code needs a token of the room ----------------------------------------
def test_13_a_seat_qr_code_needs_a_token_the_room_knows(server: ServerProcess) -> None:
    table = Table(server.base_url)
    url = f"{server.base_url}/api/rooms/{table.code}/seat-qr.svg"
    stranger = httpx.post(url, json={"token": "x" * 32})
    assert stranger.status_code == 403 and stranger.json()["error"]["code"] == "not_allowed"
    assert httpx.post(url, json={"token": table.banker_token}).status_code == 200


def test_13_qr_codes_in_a_loop_leave_the_loop_free(server: ServerProcess) -> None:
    table = Table(server.base_url)
    qr, seat_qr = (
        f"{server.base_url}/api/rooms/{table.code}/{n}" for n in ("qr.svg", "seat-qr.svg")
    )
    stop = time.monotonic() + 3

    def loop(seat: bool) -> int:
        drawn = 0
        with httpx.Client(timeout=10) as client:
            while time.monotonic() < stop:
                if seat:
                    answer = client.post(seat_qr, json={"token": table.banker_token})
                else:
                    answer = client.get(qr)
                assert answer.status_code == 200
                drawn += 1
        return drawn

    with ThreadPoolExecutor(10) as pool:
        loops = [pool.submit(loop, n % 2 == 0) for n in range(10)]
        slowest = 0.0
        while time.monotonic() < stop:
            started = time.monotonic()
            assert httpx.get(f"{server.base_url}/healthz").status_code == 200
            slowest = max(slowest, time.monotonic() - started)
        drawn = sum(f.result() for f in loops)
    assert drawn > 10
    assert slowest < 1.0, f"/healthz waited {slowest:.2f} s behind {drawn} QR codes"


# -- 14: /metrics is not public ------------------------------------------------------------
def test_14_metrics_answer_the_host_only(server: ServerProcess) -> None:
    with http_from(server, "127.0.0.2") as outsider:
        assert outsider.get("/metrics").status_code == 403
    assert httpx.get(f"{server.base_url}/metrics").status_code == 200


def test_14_metrics_behind_a_bearer_token(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_METRICS_TOKEN="scrape-me-please")
    assert httpx.get(f"{proc.base_url}/metrics").status_code == 403
    wrong = httpx.get(f"{proc.base_url}/metrics", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    with http_from(proc, "127.0.0.2") as scraper:
        scraped = scraper.get("/metrics", headers={"Authorization": "Bearer scrape-me-please"})
        assert scraped.status_code == 200 and "bankit_connections" in scraped.text


# -- 15: look-alike and zalgo names over the wire -------------------------------------------
def test_15_look_alike_and_zalgo_names_are_refused(server: ServerProcess) -> None:
    table = Table(server.base_url)
    table.join("Bob")
    url = f"{server.base_url}/api/rooms/{table.code}/players"
    for twin in ("Воb", "Ｂｏｂ", "BOB"):  # Cyrillic В and о; full-width letters
        answer = httpx.post(url, json={"name": twin})
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "name_taken"), twin
    zalgo = httpx.post(url, json={"name": "Z" + "\u0301\u0302\u0303\u0304" * 3})
    assert (zalgo.status_code, zalgo.json()["error"]["code"]) == (422, "bad_name")
    assert [p["name"] for p in table.state()["players"]] == ["Bob"]


# -- 16: no server's access log prints a token ---------------------------------------------
async def test_16_plain_uvicorn_logs_no_token(asgi_server: ServerProcess) -> None:
    table = Table(asgi_server.base_url)
    await welcomed(asgi_server, table.code, table.banker_token)
    httpx.get(f"{asgi_server.base_url}/api/rooms/{table.code}?token={table.banker_token}")
    deadline = time.monotonic() + 5
    while "token=<redacted>" not in asgi_server.log() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    log = asgi_server.log()
    assert "token=<redacted>" in log, log[-2000:]
    assert table.banker_token not in log
