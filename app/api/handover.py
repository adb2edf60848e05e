"""Moving a role to another phone (docs/protocol.md, "Hand-over"): the HTTP half.

Every route carries the caller's token as `Authorization: Bearer`, and the room checks
it again when it applies the command (the envelope's `auth`), so a token handed over a
moment ago is refused even by a process whose snapshot is older. The new token is
made here and returned once; the room stores only its hash (app/rooms/succession.py).
Routes for both collections: `/api/rooms/{code}/…` and `/api/tournaments/{code}/…`.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Body, Header, Request, Response
from pydantic import BaseModel

from app.api.errors import ApiError
from app.api.http import ERRORS, JOIN_TIMEOUT_SECONDS, bearer_principal, services_of, stored
from app.api.pages import token_qr
from app.games.seam import PLAYER
from app.rooms.envelope import CommandEnvelope
from app.rooms.tokens import hash_token, new_token

COLLECTIONS = {"rooms": "r", "tournaments": "t"}  # and the prefix of their phone pages
STATUS = {
    "bad_token": 401,
    "not_allowed": 403,
    "unknown_player": 404,
    "not_chosen": 409,
    "host_present": 409,
    "already_voted": 409,
    "already_offered": 409,
    "too_many_votes": 429,
}

router = APIRouter(responses={**ERRORS, 401: ERRORS[400], 403: ERRORS[400]})


class HandedOver(BaseModel):
    principal: str  # "banker", "organiser", or the player id whose seat moved
    token: str  # the new token: the only one that holds `principal` from now on
    seq: int


class Applied(BaseModel):
    seq: int


class HandOverBody(BaseModel):
    player_id: str | None = None  # a seat to move; none: the host's own role


class ChoiceBody(BaseModel):
    player_id: str | None  # a seated player; null withdraws the offer or the vote


async def _send(
    request: Request,
    collection: str,
    code: str,
    authorization: str | None,
    command: dict[str, Any],
    new: str | None = None,
) -> tuple[str, int]:
    """Submit `command` as the bearer; (its principal, the seq of its event)."""
    services = services_of(request)
    snapshot = await stored(services, code, collection)
    principal = bearer_principal(snapshot, authorization)
    if principal is None:
        raise ApiError("bad_token", "Send Authorization: Bearer <your token in this room>.", 401)
    host = principal == snapshot["creator"]
    envelope = CommandEnvelope(
        role=principal if host else PLAYER,
        pid=None if host else principal,
        id=None,
        cmd=orjson.dumps(command).decode(),
        th=hash_token(new) if new else None,
        server=True,
        auth=hash_token((authorization or "").partition(" ")[2].strip()),
    )
    try:
        reply = await services.hub.request(code.upper(), envelope, JOIN_TIMEOUT_SECONDS)
    except TimeoutError:
        raise ApiError("unavailable", "The room did not answer in time; retry.") from None
    if reply["type"] == "error":
        raise ApiError(reply["code"], reply["message"], STATUS.get(reply["code"]))
    return principal, int(reply["seq"])


def _routes(collection: str, prefix: str) -> None:
    base = f"/api/{collection}/{{code}}"

    @router.post(f"{base}/handover", status_code=201, response_model=HandedOver)
    async def hand_over(
        code: str,
        request: Request,
        body: HandOverBody | None = None,
        authorization: Annotated[str | None, Header()] = None,
    ) -> HandedOver:
        """The host hands its role (no body) or a player's seat (`player_id`) to a new
        token; the tokens that held it stop working at once."""
        snapshot = await stored(services_of(request), code, collection)
        target = body.player_id if body and body.player_id else snapshot["creator"]
        token = new_token()
        command = {"type": "hand_over", "principal": target}
        _, seq = await _send(request, collection, code, authorization, command, token)
        return HandedOver(principal=target, token=token, seq=seq)

    @router.post(f"{base}/host/offer", response_model=Applied)
    async def offer(
        code: str,
        body: ChoiceBody,
        request: Request,
        authorization: Annotated[str | None, Header()] = None,
    ) -> Applied:
        """The host offers its role to a seated player, who takes it with `host/claim`."""
        command = {"type": "host_offer", "to": body.player_id}
        _, seq = await _send(request, collection, code, authorization, command)
        return Applied(seq=seq)

    @router.post(f"{base}/host/vote", response_model=Applied)
    async def vote(
        code: str,
        body: ChoiceBody,
        request: Request,
        authorization: Annotated[str | None, Header()] = None,
    ) -> Applied:
        """A seated player votes for who should take the host's role (its phone is gone)."""
        command = {"type": "host_vote", "for": body.player_id}
        _, seq = await _send(request, collection, code, authorization, command)
        return Applied(seq=seq)

    @router.post(f"{base}/host/claim", status_code=201, response_model=HandedOver)
    async def claim(
        code: str,
        request: Request,
        authorization: Annotated[str | None, Header()] = None,
    ) -> HandedOver:
        """The player offered the role, or chosen by the table, takes it: a new host token."""
        snapshot = await stored(services_of(request), code, collection)
        token = new_token()
        _, seq = await _send(
            request, collection, code, authorization, {"type": "claim_host"}, token
        )
        return HandedOver(principal=snapshot["creator"], token=token, seq=seq)

    if collection != "rooms":  # the rooms' seat QR code is app/api/pages.py's

        @router.post(f"{base}/seat-qr.svg", include_in_schema=False)
        async def seat_qr(
            code: str, request: Request, body: Annotated[Any, Body()] = None
        ) -> Response:
            """A hand-over link (`/t/{code}#token=…`) as a QR code."""
            return await token_qr(request, code, body, prefix, collection[:-1])


for _collection, _prefix in COLLECTIONS.items():
    _routes(_collection, _prefix)
