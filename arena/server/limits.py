"""Per-connection budgets: message rate, connections per address, quotes of bad input.

Sans-I/O values the server consults; none of them reads a clock of its own (the
caller passes the time), so they are tested without waiting.

* `TokenBucket`: a token bucket, one per connection. Each message costs a token; tokens
  come back at `rate` a second up to `burst`, and every message of the server that
  asks for an answer (a ``your_turn``) gives one back at once, so an honest bot that
  answers every turn is never limited, however fast its games go, while a flood is.
* `AddressCounter`: open connections per remote address, against a limit.
* `clip`: a quote of untrusted text cut to a bounded length, for anything stored.
"""

from __future__ import annotations

import math
from collections import Counter

__all__ = ["AddressCounter", "TokenBucket", "clip"]


class TokenBucket:
    """A token bucket: tokens come back at `rate` a second up to `burst`; each event
    takes one. The server's budget per connection (`take`, `credit`) and the web's
    quotas per client (`arena.web.quota.RateLimit`, `wait`) are both one."""

    __slots__ = ("_stamp", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._stamp = now

    def take(self, now: float) -> bool:
        """Spend a token for an event at `now`; False if none is left."""
        tokens = self._tokens
        if tokens < self.burst:
            tokens = min(float(self.burst), tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if tokens < 1.0:
            self._tokens = tokens
            return False
        self._tokens = tokens - 1.0
        return True

    def wait(self, now: float) -> float:
        """`take`, answered in seconds: 0.0 if a token was spent for an event at `now`,
        else how long until one is back (infinite if none ever comes back)."""
        if self.take(now):
            return 0.0
        return (1.0 - self._tokens) / self.rate if self.rate > 0 else math.inf

    def credit(self) -> None:
        """Give one token back: the server asked for an answer (may exceed `burst`)."""
        self._tokens += 1.0


class AddressCounter:
    """Open connections per remote address, each admitted against `limit`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        """Count a new connection from `address`; False (and not counted) over the limit."""
        if self._open[address] >= self.limit:
            return False
        self._open[address] += 1
        return True

    def release(self, address: str) -> None:
        """A connection admitted from `address` closed."""
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    def count(self, address: str) -> int:
        return self._open.get(address, 0)


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
