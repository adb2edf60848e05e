"""Request bodies of the API are JSON by contract, whatever Content-Type a client sends.

FastAPI parses a body as JSON only under a JSON content type; `curl -d` and many
HTTP libraries send another by default. This middleware tells it the truth.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

JSON = (b"content-type", b"application/json")


class AssumeJsonBodies:
    def __init__(self, app: ASGIApp, prefix: str = "/api/") -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"].startswith(self.prefix)
        ):
            headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-type"]
            scope = {**scope, "headers": [*headers, JSON]}
        await self.app(scope, receive, send)
