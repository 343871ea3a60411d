"""Per-connection budgets: message rate, connections per address, quotes of bad input.

Sans-I/O values the server consults; none of them reads a clock of its own (the
caller passes the time), so they are tested without waiting.

* `TokenBucket`: a token bucket, one per connection. Each message costs a token; tokens
  come back at `rate` a second up to `burst`, and every message of the server that
  asks for an answer (a ``your_turn``) gives one back at once, so an honest bot that
  answers every turn is never limited, however fast its games go, while a flood is.
* `AddressCounter`: open connections per remote address, against a limit, counted in
  this process or across the arena's processes (`arena.counters`).
* `clip`: a quote of untrusted text cut to a bounded length, for anything stored.
"""

from __future__ import annotations

from arena.buckets import TokenBucket
from arena.counters import Counters, LocalCounters

__all__ = ["AddressCounter", "TokenBucket", "clip"]


class AddressCounter:
    """Open connections per remote address, each admitted against `limit`.

    Args:
        limit: connections at once from one address.
        counters: where they are counted (by default this process's memory); with
            Redis, the limit holds across the arena's processes.
    """

    SCOPE = "connections"

    def __init__(self, limit: int, counters: Counters | None = None) -> None:
        self.limit = limit
        self.counters = counters if counters is not None else LocalCounters()

    async def admit(self, address: str) -> bool:
        """Count a new connection from `address`; False (and not counted) over the limit."""
        return await self.counters.admit(self.SCOPE, address, self.limit)

    async def release(self, address: str) -> None:
        """A connection admitted from `address` closed."""
        await self.counters.release(self.SCOPE, address)

    async def count(self, address: str) -> int:
        """Connections open from `address` (in every process sharing the counters)."""
        return await self.counters.count(self.SCOPE, address)


def clip(text: str, limit: int = 80) -> str:
    """`text` quoted (``repr``), cut to about `limit` characters, saying how long it was.

    >>> clip("0 1 2")
    "'0 1 2'"
    >>> clip("x" * 1000, 10)
    "'xxxxxxxxxx'... (1000 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"
