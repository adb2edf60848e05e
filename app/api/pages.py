"""The pages people see: the phone and TV app in static/, served by this app.

Three HTML pages, no build step:
- `/`             home: create a game (become its banker) or join one by code;
- `/r/{code}`     the room page of a phone: join form, lobby, player or banker board;
                  its address is the join link that the QR code carries;
- `/watch/{code}` the TV page for spectators (landscape, read only).

`/api/rooms/{code}/qr.svg` draws the room's join link as a QR code, server-side
with segno, so that the pages need no QR library.
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


def join_link(request: Request, code: str) -> str:
    """The address a phone opens to join: built from the address this request came to."""
    return f"{str(request.base_url).rstrip('/')}/r/{code}"


@router.get("/api/rooms/{code}/qr.svg")
async def room_qr(code: str, request: Request) -> Response:
    """The room's join link as an SVG QR code (dark on white, with its quiet zone)."""
    code = code.upper()
    if not CODE.match(code):
        raise ApiError("unknown_room", "No such room.")
    if await request.app.state.services.registry.snapshot(code) is None:
        raise ApiError("unknown_room", "No such room.")
    link = join_link(request, code)
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
        title=f"QR code to join room {code}",
    )
    return Response(
        buffer.getvalue(),
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=300", "X-Join-Link": link},
    )


def mount_static(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
