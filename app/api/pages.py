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
banker hands a late seat to a phone) from the body, so the token is in no address.

`/sw.js` is the service worker (at the root, so that its scope is the whole site): it
keeps the pages' shell for bad Wi-Fi; the game itself always comes from the server.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Body, FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app.api.errors import ApiError

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
    """The address a phone opens to join: built from the address this request came to."""
    return f"{str(request.base_url).rstrip('/')}/{prefix}/{code}"


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
    code = await known(request, code, kind)
    link = f"{join_link(request, code, prefix)}#token={token}"
    response = svg(link, f"QR code to take a seat in {code}")
    response.headers["Cache-Control"] = "no-store"
    return response


async def known(request: Request, code: str, kind: str) -> str:
    code = code.upper()
    if not CODE.match(code):
        raise ApiError(f"unknown_{kind}", f"No such {kind}.", 404)
    if await request.app.state.services.registry.snapshot(code) is None:
        raise ApiError(f"unknown_{kind}", f"No such {kind}.", 404)
    return code


async def qr(request: Request, code: str, prefix: str, kind: str) -> Response:
    code = await known(request, code, kind)
    link = join_link(request, code, prefix)
    response = svg(link, f"QR code to join {kind} {code}")
    response.headers["X-Join-Link"] = link
    return response


def svg(link: str, title: str) -> Response:
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
    return Response(
        buffer.getvalue(),
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=300"},
    )


def mount_static(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
