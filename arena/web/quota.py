"""Rate limits per client: token buckets in a bounded cache (cachetools)."""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable

from cachetools import TTLCache

from arena.buckets import TokenBucket

__all__ = ["RateLimit", "client_key"]


class RateLimit:
    """At most `per_minute` events per key in any minute, `per_minute` at once.

    Each key has a token bucket that refills at ``per_minute / 60`` tokens a second. An
    idle key's bucket is full again after a minute, so the cache forgets it then; the
    cache holds at most `keys` keys (the least recently used go first), so the limiter's
    memory is bounded whatever the number of clients.
    """

    def __init__(self, per_minute: int, *, keys: int = 65_536,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._buckets: TTLCache[str, TokenBucket] = TTLCache(keys, 60.0, timer=clock)

    def wait(self, key: str) -> float:
        """Seconds until `key` may act again; 0.0 means it may now (and the event counts)."""
        if self.per_minute <= 0:
            return math.inf
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = TokenBucket(self.per_minute / 60.0, self.per_minute, now)
        wait = bucket.wait(now)
        if wait == 0.0:
            self._buckets[key] = bucket  # kept a minute after its last event, then full
        return wait


def client_key(remote: str | None) -> str:
    """The key of a client address: the address itself, or its /64 for IPv6 (one host
    usually holds a whole /64)."""
    try:
        address = ipaddress.ip_address(remote or "")
    except ValueError:
        return remote or "unknown"
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
