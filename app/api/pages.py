"""The pages people see: the phone and TV app in static/, served by this app.

Three HTML pages, no build step, shared by every game (the page loads the game's
own views from static/js/games/<game>/ by the state's `game`):
- `/`             home: create a game (become its banker) or join one by code;
- `/r/{code}`     the room page of a phone: join form, lobby, player or banker board;
                  its address is the join link that the QR code carries;
- `/watch/{code}` the TV page for spectators (landscape, read only);
A game may bring pages at addresses of its own (its bundle's `routes`), served by
the same shell through `page` and `qr` here.

`/api/rooms/{code}/qr.svg` draws the join link as
a QR code, server-side with segno, so that the pages need no QR library;
`POST /api/rooms/{code}/seat-qr.svg` draws a seat's link (`/r/{code}#token=...`, the
banker hands a late seat to a phone) from the body, so the token is in no address;
only for a token the room knows (no open drawing service). Links start with the
site's address (app/api/site.py: `BANKIT_PUBLIC_URL`, or an allowed Host); codes are
drawn in a worker thread (a drawing takes milliseconds the loop owes its sockets).

`/sw.js` is the service worker (at the root, so that its scope is the whole site): it
keeps the pages' shell for bad Wi-Fi; the game itself always comes from the server.
"""

from __future__ import annotations

import functools
import io
import re
from pathlib import Path
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Body, FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from app.api.errors import ApiError
from app.api.site import site_url
from app.rooms.tokens import hash_token

STATIC = Path(__file__).resolve().parents[2] / "static"
CODE = re.compile(r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}$")
NO_STORE = {"Cache-Control": "no-cache"}
TOKEN = re.compile(r"^[A-Za-z0-9_-]{8,128}$")

router = APIRouter(include_in_schema=False)


def page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, headers=NO_STORE)


@router.get("/")
async def home() -> FileResponse:
    return page("index.html")


@router.get("/r/{code}")
async def room_page(code: str) -> FileResponse:
    """The phone page of one room (the page reads the code from its own address)."""
    return page("room.html")


@router.get("/watch/{code}")
async def watch_page(code: str) -> FileResponse:
    """The TV page of one room."""
    return page("watch.html")


@router.get("/sw.js")
async def service_worker() -> FileResponse:
    """The service worker, served from the root so that it may serve every page."""
    return FileResponse(
        STATIC / "sw.js",
        media_type="text/javascript",
        headers={**NO_STORE, "Service-Worker-Allowed": "/"},
    )


def join_link(request: Request, code: str, prefix: str = "r") -> str:
    """The address a phone opens to join (a forged Host never reaches it)."""
    settings = request.app.state.services.settings
    scope = request.scope
    base = site_url(scope["scheme"], request.headers.get("host"), scope.get("server"), settings)
    return f"{base}/{prefix}/{code}"


@router.get("/api/rooms/{code}/qr.svg")
async def room_qr(code: str, request: Request) -> Response:
    """The room's join link as an SVG QR code (dark on white, with its quiet zone)."""
    return await qr(request, code, "r", "room")


@router.post("/api/rooms/{code}/seat-qr.svg")
async def seat_qr(code: str, request: Request, body: Annotated[Any, Body()] = None) -> Response:
    """A seat's link, `/r/{code}#token=<token>`, as a QR code (no-store: it opens a seat)."""
    return await token_qr(request, code, body, "r", "room")


async def token_qr(request: Request, code: str, body: Any, prefix: str, kind: str) -> Response:
    """The link `/{prefix}/{code}#token=<the body's token>` as a no-store QR code."""
    token = body.get("token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not TOKEN.match(token):
        raise ApiError("bad_request", 'The body is {"token": "<a seat\'s token>"}.')
    code, snapshot = await known(request, code, kind)
    if hash_token(token) not in snapshot["tokens"]:
        raise ApiError("not_allowed", f"This token holds no seat in this {kind}.", 403)
    link = f"{join_link(request, code, prefix)}#token={token}"
    response = await svg(link, f"QR code to take a seat in {code}")
    response.headers["Cache-Control"] = "no-store"
    return response


async def known(request: Request, code: str, kind: str) -> tuple[str, dict[str, Any]]:
    """The code (upper case) and the room's record, or 404."""
    code = code.upper()
    snapshot = None
    if CODE.match(code):
        snapshot = await request.app.state.services.registry.snapshot(code)
    if snapshot is None:
        raise ApiError(f"unknown_{kind}", f"No such {kind}.", 404)
    return code, snapshot


async def qr(request: Request, code: str, prefix: str, kind: str) -> Response:
    code, _ = await known(request, code, kind)
    link = join_link(request, code, prefix)
    response = await svg(link, f"QR code to join {kind} {code}", remember=True)
    response.headers["X-Join-Link"] = link
    return response


async def svg(link: str, title: str, remember: bool = False) -> Response:
    """The link as an SVG QR code, drawn off the event loop; a join link's drawing is
    `remember`ed (every phone and TV of a room asks for the same one), never a seat's
    (its link holds a token, which the server keeps only as a hash)."""
    drawing = await run_in_threadpool(remembered if remember else draw, link, title)
    return Response(
        drawing,
        media_type="image/svg+xml",
        headers={"Cache-Control": "private, max-age=300"},  # never a shared cache's
    )


def draw(link: str, title: str) -> bytes:
    buffer = io.BytesIO()
    segno.make(link, error="m").save(
        buffer,
        kind="svg",
        scale=8,
        border=4,
        dark="#000",
        light="#fff",
        xmldecl=False,
        omitsize=True,
        title=title,
    )
    return buffer.getvalue()


remembered = functools.lru_cache(maxsize=512)(draw)


def mount_static(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
