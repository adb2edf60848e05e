"""The pages people see: the phone and TV app in static/, served by this app.

Three HTML pages, no build step, shared by every game (the page loads the game's
own views from static/js/games/<game>/ by the state's `game`):
- `/`             home: create a game (become its banker) or join one by code;
- `/r/{code}`     the room page of a phone: join form, lobby, player or banker board;
                  its address is the join link that the QR code carries;
- `/watch/{code}` the TV page for spectators (landscape, read only);
- `/t/{code}`, `/watch/t/{code}`: the same two pages for a tournament.

`/api/rooms/{code}/qr.svg` (`/api/tournaments/{code}/qr.svg`) draws the join link as
a QR code, server-side with segno, so that the pages need no QR library.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import segno
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app.api.errors import ApiError

STATIC = Path(__file__).resolve().parents[2] / "static"
CODE = re.compile(r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}$")
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
NO_STORE = {"Cache-Control": "no-cache"}

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


@router.get("/t/{code}")
async def tournament_page(code: str) -> FileResponse:
    """The phone page of one tournament: the same shell as a room's."""
    return page("room.html")


@router.get("/watch/t/{code}")
async def tournament_watch_page(code: str) -> FileResponse:
    """The TV page of one tournament."""
    return page("watch.html")


def join_link(request: Request, code: str, prefix: str = "r") -> str:
    """The address a phone opens to join: built from the address this request came to."""
    return f"{str(request.base_url).rstrip('/')}/{prefix}/{code}"


@router.get("/api/rooms/{code}/qr.svg")
async def room_qr(code: str, request: Request, token: str | None = None) -> Response:
    """The room's join link as an SVG QR code (dark on white, with its quiet zone).

    With `?token=` the link hands that seat over (`/r/{code}#token=...`): a tournament
    table's banker link shown to a second scorekeeper. The token is not checked here (the
    room's socket does that); it only has to look like one."""
    if token is not None and not TOKEN.match(token):
        raise ApiError("bad_request", "That is not a token.")
    return await qr(request, code, "r", "room", f"#token={token}" if token else "")


@router.get("/api/tournaments/{code}/qr.svg")
async def tournament_qr(code: str, request: Request) -> Response:
    """The tournament's join link (/t/{code}) as an SVG QR code."""
    return await qr(request, code, "t", "tournament")


async def qr(request: Request, code: str, prefix: str, kind: str, hand: str = "") -> Response:
    code = code.upper()
    if not CODE.match(code):
        raise ApiError(f"unknown_{kind}", f"No such {kind}.")
    if await request.app.state.services.registry.snapshot(code) is None:
        raise ApiError(f"unknown_{kind}", f"No such {kind}.")
    link = join_link(request, code, prefix) + hand
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
        title=f"QR code to join {kind} {code}",
    )
    return Response(
        buffer.getvalue(),
        media_type="image/svg+xml",
        headers={
            "Cache-Control": "private, no-store" if hand else "public, max-age=300",
            "X-Join-Link": link,
        },
    )


def mount_static(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
