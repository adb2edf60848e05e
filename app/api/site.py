"""What this site is: the origins whose pages may open its sockets, and the address its
join links and QR codes carry (docs/security.md).

A browser sends `Origin` with every WebSocket handshake, and another site's page may
open one with the visitor's cookies and network; a socket whose Origin is neither this
site (the Host it was asked for, or `BANKIT_PUBLIC_URL`) nor listed in
`BANKIT_ALLOWED_ORIGINS` is refused 403. Clients that are not browsers send no Origin
and are let in (a token, not the Origin, is what admits a seat).

A link is built from `BANKIT_PUBLIC_URL` when it is set; else from the request's Host
when that is an IP address, `localhost` or a name in `BANKIT_ALLOWED_HOSTS` (a venue's
LAN address works with nothing set); else from the address the server listens on, so
that a forged Host never reaches a QR code.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from app.config import Settings


def _listed(value: str) -> set[str]:
    return {item.strip().lower().rstrip("/") for item in value.split(",") if item.strip()}


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of a URL, lower-case."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme}://{parts.netloc}".lower()


def header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    """A request header's value from ASGI's raw header list (the first one)."""
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def origin_allowed(origin: str | None, host: str | None, settings: Settings) -> bool:
    """Whether a WebSocket handshake's Origin may open a socket here."""
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False  # `null` (a sandboxed frame, a file) and anything stranger
    if host is not None and parts.netloc == host.strip().lower():
        return True
    if settings.public_url and origin == origin_of(settings.public_url):
        return True
    return origin in _listed(settings.allowed_origins)


def host_allowed(host: str, settings: Settings) -> bool:
    """A Host a link may carry without `BANKIT_PUBLIC_URL`."""
    name = urlsplit(f"//{host}").hostname or ""
    if name == "localhost" or name in _listed(settings.allowed_hosts):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def site_url(
    scheme: str, host: str | None, server: tuple[str, int] | None, settings: Settings
) -> str:
    """The base of join links: `scheme://host[:port]`, no trailing slash."""
    if settings.public_url:
        return settings.public_url.strip().rstrip("/")
    if host and host_allowed(host, settings):
        return f"{scheme}://{host.strip().lower()}"
    if server is not None:
        name, port = server
        name = f"[{name}]" if ":" in name else name
        return f"{scheme}://{name}:{port}"
    return f"{scheme}://localhost"
