"""Fair shares per client address: what one address may hold or do, so that no client
can take the server away from the others (issue 19, docs/security.md).

A client is the address its connection comes from (`client_key`): X-Forwarded-For is
believed only from the proxies uvicorn trusts (FORWARDED_ALLOW_IPS); an IPv6 client is
its /64, since one home or phone gets a whole /64 to pick addresses from. Every table
here is bounded: an address not seen for long enough is forgotten.
"""

from __future__ import annotations

import ipaddress
import itertools
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Protocol

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


class Tally(Protocol):
    """Named shares counted by every process together (app/bus/redis/tally.py): `take`
    and `give` what a process holds while it lives (sockets), `count` and `uncount`
    what is kept (seats)."""

    async def take(self, name: str, limit: int) -> bool: ...

    def give(self, name: str) -> None: ...

    async def count(self, name: str, limit: int) -> bool: ...

    def uncount(self, name: str) -> None: ...


class LocalCounts:
    """One process's kept counts (seats): counted without suspending, so requests racing
    for the last place cannot both win; the longest unused name is forgotten first."""

    def __init__(self) -> None:
        self._counts: OrderedDict[str, int] = OrderedDict()

    async def count(self, name: str, limit: int) -> bool:
        if self._counts.get(name, 0) >= limit:
            return False
        self._counts[name] = self._counts.get(name, 0) + 1
        self._counts.move_to_end(name)
        if len(self._counts) > MAX_ADDRESSES:
            self._counts.popitem(last=False)
        return True

    def uncount(self, name: str) -> None:
        if self._counts.get(name, 0) > 0:
            self._counts[name] -= 1


def retry_after(seconds: float) -> str:
    """The Retry-After header's value: whole seconds, at least one."""
    return str(max(1, math.ceil(seconds)))


SHARED_REFUSALS = {
    "sockets": "This address holds as many sockets as it may.",
    "spectators": "This address watches with as many sockets as it may.",
    "room-spectators": "This room has as many spectators as it takes.",
}


def seat_share(key: str, code: str) -> str:
    return f"seats:{key}:{code.upper()}"


class Refused(Exception):
    """A limit met: the protocol's error code, a message, and when to try again."""

    def __init__(self, code: str, message: str, wait: float) -> None:
        super().__init__(message)
        self.code, self.message, self.wait = code, message, wait


class AddressLimits:
    """Every per-address share of one process, and the sockets' share of the server."""

    def __init__(
        self,
        settings: Settings,
        alive: Callable[[str], Awaitable[bool]],
        shared: Tally | None = None,
    ) -> None:
        self.settings = settings
        # Shares that several processes count together (Redis), or None: one process.
        self.shared = shared
        self.kept: Tally | LocalCounts = shared or LocalCounts()  # seats, before the route
        self._reservations = itertools.count(1)
        self.exempt = {client_key(a.strip()) for a in settings.exempt_addresses.split(",")}
        self.alive = alive  # whether a room still exists (freed rooms leave the quota)
        self.creates = Buckets(settings.room_creates_per_minute, settings.room_create_burst)
        self.joins = Buckets(settings.joins_per_minute, settings.join_burst)
        self.misses = Buckets(settings.unknown_codes_per_minute, settings.unknown_code_burst)
        self.rooms: OrderedDict[str, list[str]] = OrderedDict()  # address -> codes created
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
    async def check_create(self, key: str | None) -> str | None:
        """Reserve a live room of the address's quota before the route runs (requests
        that come together cannot all pass): the reservation, which `created` turns
        into the room's code or gives back."""
        if key is None:
            return None
        codes = self.rooms.setdefault(key, [])
        if len(codes) >= self.settings.rooms_per_address:
            dead = [c for c in list(codes) if c[:1] != "?" and not await self.alive(c)]
            codes[:] = [code for code in codes if code not in dead]  # no await from here
            if len(codes) >= self.settings.rooms_per_address:
                message = "This address runs as many rooms as it may: finish one first."
                raise Refused("too_many_rooms", message, QUOTA_RETRY_SECONDS)
        wait = self.creates.take(key)
        if wait:
            raise Refused("rate_limited", "Too many rooms created: wait.", wait)
        reservation = f"?{next(self._reservations)}"
        codes.append(reservation)
        self.rooms.move_to_end(key)
        if len(self.rooms) > MAX_ADDRESSES:
            self.rooms.popitem(last=False)
        return reservation

    def created(self, key: str | None, reservation: str | None, code: str | None) -> None:
        """The route answered: 2xx with the room's `code` keeps the place, else (code
        None) it is given back."""
        codes = self.rooms.get(key or "")
        if codes is None or reservation not in codes:
            return
        if code is None:
            codes.remove(reservation)
        else:
            codes[codes.index(reservation)] = code

    async def check_join(self, key: str | None, code: str) -> None:
        """Take a seat of the address's share in the room before the route runs; the
        route's answer keeps it (2xx) or gives it back (`not_joined`)."""
        if key is None:
            return
        wait = self.joins.wait(key)
        if wait:
            raise Refused("rate_limited", "Too many joins: wait.", wait)
        limit = self.settings.seats_per_address_in_room
        if not await self.kept.count(seat_share(key, code), limit):
            message = "This address has taken as many seats in this room as it may."
            raise Refused("too_many_seats", message, QUOTA_RETRY_SECONDS)
        self.joins.take(key)

    def not_joined(self, key: str | None, code: str) -> None:
        if key is not None:
            self.kept.uncount(seat_share(key, code))

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

    async def share_socket(self, key: str | None, code: str, spectator: bool) -> str | None:
        """The address's (and the room's) socket shares across every process sharing
        Redis, after `open_socket` counted this one here; None: admitted (or one process)."""
        if self.shared is None:
            return None
        settings, taken = self.settings, list[str]()
        wanted = [(f"sockets:{key}", settings.sockets_per_address)] if key is not None else []
        if spectator:
            if key is not None:
                wanted.append((f"spectators:{key}", settings.spectators_per_address))
            wanted.append((f"room-spectators:{code.upper()}", settings.spectators_per_room))
        for name, limit in wanted:
            if not await self.shared.take(name, limit):
                for held in taken:
                    self.shared.give(held)
                return SHARED_REFUSALS[name.partition(":")[0]]
            taken.append(name)
        return None

    def close_socket(
        self, key: str | None, code: str, spectator: bool, shared: bool = True
    ) -> None:
        """`shared`: give back the shares `share_socket` took for this socket, too."""
        self._count(key, code, spectator, -1)
        if shared:
            self.unshare_socket(key, code, spectator)

    def unshare_socket(self, key: str | None, code: str, spectator: bool) -> None:
        """Give back what `share_socket` took (a share not held is not given)."""
        if self.shared is None:
            return
        if key is not None:
            self.shared.give(f"sockets:{key}")
            if spectator:
                self.shared.give(f"spectators:{key}")
        if spectator:
            self.shared.give(f"room-spectators:{code.upper()}")

    def _count(self, key: str | None, code: str, spectator: bool, delta: int) -> None:
        self.sockets.add(key or "", delta)
        if spectator:
            self.spectators.add(key or "", delta)
            self.room_spectators.add(code, delta)
