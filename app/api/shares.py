"""The API's per-address shares (app/api/limits.py), applied by path before any route.

`/api/{collection}` (POST) creates a room: a rate and a quota of live rooms;
`/api/{collection}/{code}/players` (POST) takes a seat, `/api/groups/{code}/members` (POST)
a group's membership: a rate and a share of the room;
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
        try:
            if creating:
                await limits.check_create(key)
            elif len(parts) >= 3:
                limits.check_lookup(key)
                if joining:
                    limits.check_join(key, parts[2])
        except Refused as refused:
            answer = error_response(429, refused.code, refused.message)
            answer.headers["Retry-After"] = retry_after(refused.wait)
            await answer(scope, receive, send)
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

        await self.app(scope, receive, watch)
        if status == 404 and len(parts) >= 3:
            limits.missed(key)
        elif status == 201 and joining:
            limits.joined(key, parts[2])
        elif status == 201 and creating:
            made = orjson.loads(bytes(body))
            if isinstance(made, dict) and isinstance(made.get("code"), str):
                limits.created(key, made["code"])
