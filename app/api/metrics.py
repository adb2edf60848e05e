"""`GET /metrics`: this process's metrics in Prometheus's text format.

Live rooms and connections tell a code-guesser its odds, so the page is not public:
with `BANKIT_METRICS_TOKEN` set it needs `Authorization: Bearer <token>`; without it,
only the host itself (`BANKIT_EXEMPT_ADDRESSES`) may read it.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Header, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST

from app.api.errors import ApiError

router = APIRouter(include_in_schema=False)


def may_read(request: Request, authorization: str | None) -> bool:
    expected = request.app.state.services.settings.metrics_token
    if expected:
        scheme, _, given = (authorization or "").partition(" ")
        return scheme.lower() == "bearer" and secrets.compare_digest(
            given.strip().encode(), expected.encode()
        )
    limits = request.app.state.services.limits
    return limits.key(request.client.host if request.client else None) is None  # the host


@router.get("/metrics")
async def metrics(
    request: Request, authorization: Annotated[str | None, Header()] = None
) -> Response:
    if not may_read(request, authorization):
        raise ApiError("not_allowed", "The metrics need the operator's token.", 403)
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE_LATEST)
