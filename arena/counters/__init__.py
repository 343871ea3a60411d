"""Counters of the budgets a stranger is given, shared by every process of one arena.

Several processes may serve one arena (several `arena serve` on one PostgreSQL database,
docs/cluster.md; later several gateways). A budget per address or per person must then
hold for the arena, not for each process: 64 connections per address across two
servers, not 128. The budgets go through one small interface, `Counters`, with two
stores chosen by ``arena serve --shared-limits URL`` (`ServerConfig.shared_limits`):

* ``local`` (the default): in the process's memory, as before; right for one process.
* ``redis://HOST[:PORT][/DB][?prefix=NAME]``: in Redis, shared by every process given
  the same URL and prefix (`arena.counters.redis_counters`).

Two kinds of counter:

* **slots** (`admit`, `release`, `count`): things open at once per key, against a
  limit (connections per address). Each process's own slots are its own; the store
  sums the living processes', so a dead process's slots stop counting.
* **rates** (`wait`): a token bucket per key, ``per_minute`` events in any minute and
  as many at once (sign-ups per address, guest accounts in all...). An idle key's
  bucket is full again after a minute, so the store forgets it then.

The store never reads a wall clock the caller cannot replace (`LocalCounters`' `clock`;
Redis's own ``TIME`` or the caller's), so tests drive time instead of sleeping.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from cachetools import TTLCache

from arena.buckets import TokenBucket
from arena.errors import ArenaError

__all__ = [
    "Counters", "CountersFailure", "CountersUrl", "LocalCounters", "open_counters",
    "parse_counters_url",
]

RATE_KEYS = 65_536
"""Keys of one rate a local store remembers at most (the least recently used go
first): its memory is bounded whatever the number of clients."""


class CountersFailure(ArenaError):
    """The shared store cannot be reached at start (a bad URL, Redis down)."""


class Counters(ABC):
    """The budgets' counters (module docstring). Every call is bounded in time: a store
    that does not answer is replaced by the process's own counts (`RedisCounters`)."""

    kind: str
    """``local`` or ``redis``."""
    description: str
    """Where the counts are, for people (no password)."""

    async def start(self) -> None:
        """Connect (and start what keeps this process's slots alive); the default: nothing."""

    async def close(self) -> None:
        """Stop, and take this process's slots out of the counts."""

    @abstractmethod
    async def admit(self, scope: str, key: str, limit: int) -> bool:
        """Take a slot of `key` if fewer than `limit` are taken (by every process);
        False (and nothing taken) otherwise."""

    @abstractmethod
    async def release(self, scope: str, key: str) -> None:
        """Give back a slot this process took."""

    @abstractmethod
    async def count(self, scope: str, key: str) -> int:
        """Slots of `key` taken, by every living process."""

    @abstractmethod
    async def wait(self, scope: str, key: str, per_minute: int) -> float:
        """Count an event of `key` against `per_minute`: 0.0 if it may happen now (and
        it is counted), else the seconds until it may (nothing counted)."""


class LocalCounters(Counters):
    """The counters in this process's memory: for an arena of one process.

    Args:
        clock: seconds, for the rates (tests drive it).
        keys: keys of each rate remembered at most.
    """

    kind = "local"
    description = "local (this process)"

    def __init__(self, *, clock: Callable[[], float] = time.monotonic,
                 keys: int = RATE_KEYS) -> None:
        self._clock = clock
        self._keys = keys
        self.slots: dict[str, Counter[str]] = {}
        """This process's slots per scope and key (`RedisCounters` keeps its own here)."""
        self._rates: dict[str, TTLCache[str, TokenBucket]] = {}

    async def admit(self, scope: str, key: str, limit: int) -> bool:
        return self.take(scope, key, limit)

    def take(self, scope: str, key: str, limit: int | None) -> bool:
        """`admit`, synchronously; `limit` None: taken whatever the count."""
        taken = self.slots.setdefault(scope, Counter())
        if limit is not None and taken[key] >= limit:
            return False
        taken[key] += 1
        return True

    async def release(self, scope: str, key: str) -> None:
        self.give_back(scope, key)

    def give_back(self, scope: str, key: str) -> None:
        """`release`, synchronously."""
        taken = self.slots.get(scope)
        if taken is None or key not in taken:
            return
        taken[key] -= 1
        if taken[key] <= 0:
            del taken[key]

    async def count(self, scope: str, key: str) -> int:
        return self.slots.get(scope, Counter()).get(key, 0)

    async def wait(self, scope: str, key: str, per_minute: int) -> float:
        return self.wait_now(scope, key, per_minute)

    def wait_now(self, scope: str, key: str, per_minute: int) -> float:
        """`wait`, synchronously."""
        if per_minute <= 0:
            return math.inf
        buckets = self._rates.get(scope)
        if buckets is None:
            buckets = self._rates[scope] = TTLCache(self._keys, 60.0, timer=self._clock)
        now = self._clock()
        bucket = buckets.get(key)
        if bucket is None:
            bucket = TokenBucket(per_minute / 60.0, per_minute, now)
        wait = bucket.wait(now)
        if wait == 0.0:
            buckets[key] = bucket  # kept a minute after its last event, then full
        return wait


@dataclass(frozen=True)
class CountersUrl:
    """A parsed ``--shared-limits`` URL."""

    kind: str
    """``local`` or ``redis``."""
    url: str
    """For Redis: the URL redis-py opens (without ``prefix``)."""
    prefix: str = "arena"
    """Every key of this arena's begins with ``PREFIX:`` (several arenas, or tests,
    share one Redis)."""


def parse_counters_url(text: str) -> CountersUrl:
    """`text` (``local`` or ``redis://HOST[:PORT][/DB][?prefix=NAME]``, ``rediss://``
    for TLS) parsed; ValueError says what to give."""
    if text in ("local", "local:"):
        return CountersUrl("local", "local")
    parts = urlsplit(text)
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise ValueError(f"--shared-limits {text!r}: give 'local' or "
                         "redis://HOST[:PORT][/DB][?prefix=NAME]")
    query = parse_qs(parts.query)
    prefix = query.pop("prefix", ["arena"])[-1]
    if not prefix or not all(c.isalnum() or c in "_-." for c in prefix) or len(prefix) > 64:
        raise ValueError(f"--shared-limits: prefix {prefix!r}: give 1 to 64 letters, digits, "
                         "'_', '-' or '.'")
    if query:
        raise ValueError(f"--shared-limits: unknown parameter(s) {', '.join(sorted(query))} "
                         "(only prefix)")
    return CountersUrl(parts.scheme, parts._replace(query="").geturl(), prefix)


async def open_counters(text: str, *, process: str) -> Counters:
    """The store `text` names, started; `process` names this process's slots.

    Raises:
        CountersFailure: Redis does not answer (naming the address).
    """
    parsed = parse_counters_url(text)
    if parsed.kind == "local":
        return LocalCounters()
    from arena.counters.redis_counters import RedisCounters

    counters = RedisCounters(parsed.url, prefix=parsed.prefix, process=process)
    await counters.start()
    return counters
