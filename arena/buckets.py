"""Token buckets: the rate budgets the server (per connection) and the web (per client) share.

Sans-I/O: a bucket never reads a clock of its own (the caller passes the time), so it is
tested without waiting. A neutral module, below both `arena.server` and `arena.web`.
"""

from __future__ import annotations

import math

__all__ = ["TokenBucket"]


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
