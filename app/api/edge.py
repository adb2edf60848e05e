"""The HTTP edge: what every request and answer goes through before any route.

- Every answer (pages, static files, the API, errors) carries the security headers:
  a Content-Security-Policy the pages pass with no inline script or style, nosniff,
  no referrer (a room's address is a secret worth keeping), no framing.
- A body larger than `BANKIT_MAX_BODY_BYTES` is refused 413 from its Content-Length,
  or, sent in chunks, as soon as the chunks read pass it: never read whole. (FastAPI's
  own `max_body_size` answers outside the app's middleware, in plain text with none
  of these headers.)
- A POST to the API with a body must say `Content-Type: application/json`: a form or
  `text/plain` is what another site's page can send without asking (CORS's "simple"
  requests), so reading those as JSON let other sites create rooms and join lobbies.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import error_response

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
    "connect-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
JSON_TYPES = (b"application/json",)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


class Edge:
    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = with_security_headers(message)
            await send(message)

        seen = 0

        async def bounded_receive() -> Message:
            """Counts the body as it comes: the route's read fails past the bound
            (FastAPI passes an HTTPException on, and the app's handler answers it)."""
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                raise HTTPException(413, f"A body is at most {self.max_body} bytes.")
            return message

        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, bounded_receive, send_with_headers)

    def _refusal(self, scope: Scope) -> ASGIApp | None:
        """An answer decided from the request's headers alone, or None."""
        length = _header(scope, b"content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.max_body:
            return error_response(413, "too_large", f"A body is at most {self.max_body} bytes.")
        if not_json(scope):
            message = "Send the body as JSON, with Content-Type: application/json."
            return error_response(415, "unsupported_media_type", message)
        return None


def with_security_headers(message: Message) -> Message:
    names = {name.lower() for name, _ in message.get("headers", [])}
    extra = [(name, value) for name, value in SECURITY_HEADERS if name not in names]
    return {**message, "headers": [*message.get("headers", []), *extra]}


def not_json(scope: Scope) -> bool:
    """A POST to the API whose body is not declared JSON."""
    if scope["method"] != "POST" or not scope["path"].startswith("/api/"):
        return False
    length = _header(scope, b"content-length")
    has_body = (length is not None and length.strip() not in (b"", b"0")) or (
        _header(scope, b"transfer-encoding") is not None
    )
    media = (_header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
    return has_body and media not in JSON_TYPES
