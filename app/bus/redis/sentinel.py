"""Redis behind Sentinel: `redis+sentinel://[auth@]h1:26379,h2:26379/<service>[/<db>]`.

The bus keeps one pipelined connection and one subscriber connection; both are
redis-py `SentinelManagedConnection`s, which ask the sentinels for the service's
primary each time they connect. After a promotion the old primary's connections
break (or answer READONLY, which redis-py turns into a connection error), every call
in flight fails as `BusUnavailable`, and the next call connects to the new primary:
the bus follows a failover without a restart (docs/architecture-redis.md, "Failover").
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff

SCHEME = "redis+sentinel://"


@dataclass(frozen=True, slots=True)
class SentinelUrl:
    sentinels: list[tuple[str, int]]
    service: str
    db: int
    username: str | None
    password: str | None


def parse(url: str) -> SentinelUrl:
    """The sentinels, the service (master name) and the database of a Sentinel URL."""
    rest = url[len(SCHEME) :]
    auth, _, rest = rest.rpartition("@")
    hosts, _, path = rest.partition("/")
    service, _, db = path.strip("/").partition("/")
    if not service:
        raise ValueError(f"a Sentinel URL names its service: {SCHEME}h:26379,h:26379/mymaster")
    sentinels = []
    for host in hosts.split(","):
        parts = urlsplit("//" + host)
        sentinels.append((parts.hostname or "127.0.0.1", parts.port or 26379))
    user, _, password = auth.partition(":") if auth else ("", "", "")
    return SentinelUrl(
        sentinels,
        unquote(service),
        int(db or 0),
        unquote(user) or None,
        unquote(password) or None,
    )


def primary(url: str, timeout: float) -> aioredis.Redis:
    """A client of the service's current primary (its pool follows promotions)."""
    found = parse(url)
    quick = {"socket_timeout": min(timeout, 0.5), "socket_connect_timeout": min(timeout, 0.5)}
    sentinel = Sentinel(found.sentinels, sentinel_kwargs={**quick, "retry": Retry(NoBackoff(), 0)})
    client: aioredis.Redis = sentinel.master_for(
        found.service,
        redis_class=aioredis.Redis,
        db=found.db,
        username=found.username,
        password=found.password,
        protocol=2,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )
    return client
