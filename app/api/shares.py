"""The API's per-address shares (app/api/limits.py), applied by path before any route.

`/api/{collection}` (POST) creates a room: a rate and a quota of live rooms;
`/api/{collection}/{code}/players` (POST) takes a seat, `/api/groups/{code}/members` (POST)
a group's membership: a rate and a share of the room.
Both shares are taken BEFORE the route runs and given back on any answer but a 2xx, so
requests from one address that come together never pass a quota (issue 29);
any other `/api/{collection}/{code}...` names a room code: an address whose unknown
codes ran out its allowance waits (429 with Retry-After) before naming any code again,
and each 404 there spends one. Deciding by path keeps every collection's routes (the
games' own, too) under the same shares with no code in them.
"""

from __future__ import annotations

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import error_response
from app.api.limits import AddressLimits, Refused, retry_after
from app.bus.base import BusUnavailable


class FairShares:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = getattr(scope["app"].state, "services", None) if "app" in scope else None
        parts = scope["path"].strip("/").split("/") if scope["type"] == "http" else []
        if services is None or len(parts) < 2 or parts[0] != "api":
            await self.app(scope, receive, send)
            return
        if parts[1] not in {game.collection for game in services.games}:
            await self.app(scope, receive, send)
            return
        limits: AddressLimits = services.limits
        key = limits.key(scope["client"][0] if scope.get("client") else None)
        creating = len(parts) == 2 and scope["method"] == "POST"
        seats = ("players", "members")  # a seat in a room; a membership of a group
        joining = len(parts) == 4 and parts[3] in seats and scope["method"] == "POST"
        reservation = None
        try:
            if creating:
                reservation = await limits.check_create(key)
            elif len(parts) >= 3:
                limits.check_lookup(key)
                if joining:
                    await limits.check_join(key, parts[2])
        except Refused as refused:
            answer = error_response(429, refused.code, refused.message)
            answer.headers["Retry-After"] = retry_after(refused.wait)
            await answer(scope, receive, send)
            return
        except BusUnavailable:  # the shares are counted in Redis, out of reach
            message = "The game store is unreachable; retrying helps."
            await error_response(503, "unavailable", message)(scope, receive, send)
            return
        status = 0
        body = bytearray()

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body" and creating and status == 201:
                body.extend(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:  # the shares taken before the route: kept on a 2xx, else given back
            if status == 404 and len(parts) >= 3:
                limits.missed(key)
            if joining and not 200 <= status < 300:
                limits.not_joined(key, parts[2])
            if creating:
                limits.created(key, reservation, _made_code(body) if status == 201 else None)


def _made_code(body: bytearray) -> str | None:
    try:
        made = orjson.loads(bytes(body))
    except orjson.JSONDecodeError:
        return None
    code = made.get("code") if isinstance(made, dict) else None
    return code if isinstance(code, str) else None
