"""Rate limits per client, per person or in all: token buckets in the arena's counters
(`arena.counters`: this process's memory, bounded whatever the number of clients, or
Redis, shared by every process serving the arena)."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

from arena.counters import Counters

__all__ = ["RateLimit", "client_key"]


class RateLimit:
    """At most `per_minute` events per key in any minute, `per_minute` at once.

    Each key has a token bucket that refills at ``per_minute / 60`` tokens a second; an
    idle key's bucket is full again after a minute, and forgotten then.

    Args:
        scope: the budget's name among the counters' (``signups-per-client``).
        per_minute: the budget (0: nothing allowed).
        counters: the arena's counters, asked for at each event (the web is made
            before they are needed).
    """

    def __init__(self, scope: str, per_minute: int, counters: Callable[[], Counters]) -> None:
        self.scope = scope
        self.per_minute = per_minute
        self._counters = counters

    async def wait(self, key: str) -> float:
        """Seconds until `key` may act again; 0.0 means it may now (and the event counts)."""
        return await self._counters().wait(self.scope, key, self.per_minute)


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
