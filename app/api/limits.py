"""Fair shares per client address: what one address may hold or do, so that no client
can take the server away from the others (issue 19, docs/security.md).

A client is the address its connection comes from (`client_key`): X-Forwarded-For is
believed only from the proxies uvicorn trusts (FORWARDED_ALLOW_IPS); an IPv6 client is
its /64, since one home or phone gets a whole /64 to pick addresses from. Every table
here is bounded: an address not seen for long enough is forgotten.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from app.config import Settings

MAX_ADDRESSES = 65_536  # addresses remembered per table; the oldest idle one goes first
QUOTA_RETRY_SECONDS = 60.0  # a quota (not a rate) frees when a room goes: ask again later


def client_key(host: str | None) -> str:
    """The address limits are counted by: the IPv4 address, or the IPv6 /64."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # a unix socket or a test client's name
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class Buckets:
    """A token bucket per address: `burst` at once, then `per_minute`."""

    def __init__(self, per_minute: float, burst: int) -> None:
        self.rate = per_minute / 60
        self.burst = float(burst)
        self._levels: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def _level(self, key: str, now: float) -> float:
        level, stamp = self._levels.get(key, (self.burst, now))
        return min(self.burst, level + (now - stamp) * self.rate)

    def wait(self, key: str) -> float:
        """Seconds until `key` may act again (0: now), taking nothing."""
        level = self._level(key, time.monotonic())
        return 0.0 if level >= 1 else (1 - level) / self.rate

    def take(self, key: str) -> float:
        """Take one: 0 when allowed, else the seconds to wait (nothing taken)."""
        now = time.monotonic()
        level = self._level(key, now)
        if level < 1:
            return (1 - level) / self.rate
        self._levels[key] = (level - 1, now)
        self._levels.move_to_end(key)
        if len(self._levels) > MAX_ADDRESSES:
            self._levels.popitem(last=False)  # the longest unused: full again by now, mostly
        return 0.0


class Counts:
    """Open things per key (sockets per address, spectators per room); zeros dropped."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self.total = 0

    def __getitem__(self, key: str) -> int:
        return self._counts.get(key, 0)

    def add(self, key: str, delta: int) -> None:
        count = self._counts.get(key, 0) + delta
        if count > 0:
            self._counts[key] = count
        else:
            self._counts.pop(key, None)
        self.total += delta


def retry_after(seconds: float) -> str:
    """The Retry-After header's value: whole seconds, at least one."""
    return str(max(1, math.ceil(seconds)))


class Refused(Exception):
    """A limit met: the protocol's error code, a message, and when to try again."""

    def __init__(self, code: str, message: str, wait: float) -> None:
        super().__init__(message)
        self.code, self.message, self.wait = code, message, wait


class AddressLimits:
    """Every per-address share of one process, and the sockets' share of the server."""

    def __init__(self, settings: Settings, alive: Callable[[str], Awaitable[bool]]) -> None:
        self.settings = settings
        self.exempt = {client_key(a.strip()) for a in settings.exempt_addresses.split(",")}
        self.alive = alive  # whether a room still exists (freed rooms leave the quota)
        self.creates = Buckets(settings.room_creates_per_minute, settings.room_create_burst)
        self.joins = Buckets(settings.joins_per_minute, settings.join_burst)
        self.misses = Buckets(settings.unknown_codes_per_minute, settings.unknown_code_burst)
        self.rooms: OrderedDict[str, list[str]] = OrderedDict()  # address -> codes created
        self.seats: OrderedDict[tuple[str, str], int] = OrderedDict()  # (address, code) -> joins
        self.sockets = Counts()  # by address
        self.spectators = Counts()  # by address
        self.room_spectators = Counts()  # by room code

    def key(self, host: str | None) -> str | None:
        """The address a client is counted by; None for the host itself (not limited)."""
        key = client_key(host)
        return None if key in self.exempt else key

    # -- room codes --------------------------------------------------------------------
    def check_lookup(self, key: str | None) -> None:
        """An address that tried too many unknown codes waits before naming any code
        (were only unknown codes refused, a refusal would still tell the guesser)."""
        wait = self.misses.wait(key) if key is not None else 0.0
        if wait:
            raise Refused("rate_limited", "Too many unknown room codes: wait.", wait)

    def missed(self, key: str | None) -> None:
        if key is not None:
            self.misses.take(key)

    # -- rooms and seats -----------------------------------------------------------------
    async def check_create(self, key: str | None) -> None:
        if key is None:
            return
        codes = self.rooms.get(key, [])
        if len(codes) >= self.settings.rooms_per_address:
            codes[:] = [code for code in codes if await self.alive(code)]
            if len(codes) >= self.settings.rooms_per_address:
                message = "This address runs as many rooms as it may: finish one first."
                raise Refused("too_many_rooms", message, QUOTA_RETRY_SECONDS)
        wait = self.creates.take(key)
        if wait:
            raise Refused("rate_limited", "Too many rooms created: wait.", wait)

    def created(self, key: str | None, code: str) -> None:
        if key is None:
            return
        self.rooms.setdefault(key, []).append(code)
        self.rooms.move_to_end(key)
        if len(self.rooms) > MAX_ADDRESSES:
            self.rooms.popitem(last=False)

    def check_join(self, key: str | None, code: str) -> None:
        if key is None:
            return
        if self.seats.get((key, code.upper()), 0) >= self.settings.seats_per_address_in_room:
            message = "This address has taken as many seats in this room as it may."
            raise Refused("too_many_seats", message, QUOTA_RETRY_SECONDS)
        wait = self.joins.take(key)
        if wait:
            raise Refused("rate_limited", "Too many joins: wait.", wait)

    def joined(self, key: str | None, code: str) -> None:
        if key is None:
            return
        seat = (key, code.upper())
        self.seats[seat] = self.seats.get(seat, 0) + 1
        self.seats.move_to_end(seat)
        if len(self.seats) > MAX_ADDRESSES:
            self.seats.popitem(last=False)

    # -- sockets ------------------------------------------------------------------------
    def open_socket(self, key: str | None, code: str, spectator: bool) -> str | None:
        """Count a socket in, or say why it may not open. Token holders meet only the
        server's own bound: a share of it (`seat_reserve`) spectators never get."""
        settings = self.settings
        if self.sockets.total >= settings.max_connections:
            return "This server is full; try again shortly."
        if key is not None and self.sockets[key] >= settings.sockets_per_address:
            return "This address holds as many sockets as it may."
        if spectator:
            seats_kept = math.ceil(settings.max_connections * settings.seat_reserve)
            if self.spectators.total >= settings.max_connections - seats_kept:
                return "No room for more spectators on this server; try again shortly."
            if key is not None and self.spectators[key] >= settings.spectators_per_address:
                return "This address watches with as many sockets as it may."
            if self.room_spectators[code] >= settings.spectators_per_room:
                return "This room has as many spectators as it takes."
        self._count(key, code, spectator, +1)
        return None

    def close_socket(self, key: str | None, code: str, spectator: bool) -> None:
        self._count(key, code, spectator, -1)

    def _count(self, key: str | None, code: str, spectator: bool, delta: int) -> None:
        self.sockets.add(key or "", delta)
        if spectator:
            self.spectators.add(key or "", delta)
            self.room_spectators.add(code, delta)
