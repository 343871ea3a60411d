"""The budgets' counters in Redis, shared by every process of one arena (redis-py's
asyncio client).

Keys, all under ``PREFIX:`` (``?prefix=`` of the URL, default ``arena``):

* ``PREFIX:procs``: a sorted set of the living processes, each scored by the time its
  slots stop counting (its last heartbeat plus `RedisCounters.ttl`).
* ``PREFIX:slots:PROCESS``: a hash of a process's slots (``SCOPE KEY`` -> how many),
  its Redis expiry renewed by the same heartbeat; a process starting under the name of
  a dead one clears it first (those slots were not its own). A slot is taken by one Lua
  script that sums the living processes' hashes and adds one to its own only under the
  limit, so two processes admitting at once cannot both pass the last place. A dead process stops
  heartbeating: its score falls behind the clock and its slots stop counting (then its
  hash expires). A process whose hash vanished (Redis restarted, or it was paused past
  the ttl) writes it again from its own counts at its next heartbeat.
* ``PREFIX:rate:SCOPE:KEY``: a token bucket (tokens, last event), taken by one Lua
  script, forgotten a minute after its last event (full again by then).

Time is Redis's own clock (``TIME``, one clock for every process) unless a `clock` is
given (the tests drive one).

**When Redis fails** (down, or slower than `timeout`): the process enforces the limits
on its own counts (each process then admits up to the limit: at worst N processes x
the limit), logs the error (the 1st, 2nd, 4th, 8th... time), counts it in
`arena_shared_limits_failures_total`, and tries Redis again a second later; no call
ever waits longer than `timeout`, so the event loop never hangs on it. Once Redis
answers again, the next heartbeat writes this process's own slots back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as redis
from redis.exceptions import RedisError

from arena.counters import Counters, CountersFailure, LocalCounters
from arena.metrics import SHARED_LIMITS_FAILURES
from arena.urls import redact

__all__ = ["RedisCounters"]

log = logging.getLogger("arena.counters")

T = TypeVar("T")

CONNECTIONS = 16
"""Connections to Redis a process opens at most: a flood of bots connecting at once
waits its turn for one (within `RedisCounters.timeout`) instead of opening thousands of
sockets to Redis (and of the process's open files)."""

RETRY_SECONDS = 1.0
"""After a failure, calls use the process's own counts for this long before trying
Redis again (a dead Redis costs one timeout a second, not one per connection)."""

_NOW = """
local now = tonumber(ARGV[1])
if not now then
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
"""

_ADMIT = _NOW + """
local ttl, me, key, limit, base = tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6]
redis.call('ZADD', KEYS[1], now + ttl, me)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
local total = 0
for _, process in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  total = total + (tonumber(redis.call('HGET', base .. process, key)) or 0)
end
if total >= limit then return 0 end
redis.call('HINCRBY', base .. me, key, 1)
redis.call('PEXPIRE', base .. me, math.ceil(ttl * 1000))
return 1
"""

_COUNT = _NOW + """
local key, base = ARGV[2], ARGV[3]
local total = 0
for _, process in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')) do
  total = total + (tonumber(redis.call('HGET', base .. process, key)) or 0)
end
return total
"""

_RELEASE = """
local left = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if left <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return left
"""

_BEAT = _NOW + """
local ttl, me = tonumber(ARGV[2]), ARGV[3]
redis.call('ZADD', KEYS[1], now + ttl, me)
return redis.call('PEXPIRE', KEYS[2], math.ceil(ttl * 1000))
"""

_RATE = _NOW + """
local burst = tonumber(ARGV[2])
local rate = burst / 60
local bucket = redis.call('HMGET', KEYS[1], 't', 's')
local tokens, stamp = tonumber(bucket[1]), tonumber(bucket[2])
if not tokens then tokens, stamp = burst, now end
if tokens < burst then tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate) end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens),
           's', string.format('%.17g', math.max(now, stamp)))
redis.call('PEXPIRE', KEYS[1], 60000)
return string.format('%.17g', wait)
"""


class RedisCounters(Counters):
    """`Counters` in Redis (module docstring).

    Args:
        url: redis-py's URL (``redis://HOST:PORT/DB``).
        prefix: the arena's keys' prefix.
        process: this process's name (unique among the arena's living processes).
        ttl: seconds this process's slots count after its last heartbeat (one every
            third of it): how long a dead process's connections still count.
        timeout: seconds any call may take before the process counts on its own.
        clock: seconds since the epoch, the same for every process (None: Redis's).
    """

    kind = "redis"

    def __init__(self, url: str, *, prefix: str = "arena", process: str, ttl: float = 30.0,
                 timeout: float = 0.5, clock: Callable[[], float] | None = None) -> None:
        self.description = f"redis ({redact(url)}, prefix {prefix!r})"
        self.prefix = prefix
        self.process = process
        self.ttl = ttl
        self.timeout = timeout
        self._clock = clock
        self.local = LocalCounters(clock=clock or time.monotonic)
        """This process's own slots (what it writes back), and the counts it falls
        back on while Redis fails."""
        self._redis = redis.Redis.from_pool(redis.BlockingConnectionPool.from_url(
            url, max_connections=CONNECTIONS, timeout=timeout, socket_timeout=timeout,
            socket_connect_timeout=timeout, decode_responses=True))
        self._admit = self._redis.register_script(_ADMIT)
        self._count = self._redis.register_script(_COUNT)
        self._release = self._redis.register_script(_RELEASE)
        self._beat = self._redis.register_script(_BEAT)
        self._rate = self._redis.register_script(_RATE)
        self._down_until = 0.0
        self._stale = False
        """Some of this process's slots changed while Redis failed: write them back."""
        self.failures = 0
        self._heartbeat: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = False

    # -- keys and time -----------------------------------------------------------------

    @property
    def _procs(self) -> str:
        return f"{self.prefix}:procs"

    @property
    def _base(self) -> str:
        return f"{self.prefix}:slots:"

    @property
    def _slots(self) -> str:
        """This process's hash of slots."""
        return f"{self._base}{self.process}"

    def _now(self) -> str:
        return "" if self._clock is None else repr(self._clock())

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Check that Redis answers (`CountersFailure` if not), then heartbeat."""
        try:
            async with asyncio.timeout(max(self.timeout, 2.0)):
                await self._redis.ping()
        except (RedisError, OSError, TimeoutError) as error:
            await self._redis.aclose()
            raise CountersFailure(f"the shared limits' Redis does not answer at "
                                  f"{self.description}: {error or type(error).__name__}") from None
        await self._try(self._redis.delete(self._slots), None)  # a predecessor's, by name
        await self.beat()
        self._heartbeat = asyncio.get_running_loop().create_task(
            self._beat_forever(), name="shared limits heartbeat")

    async def close(self) -> None:
        """Stop heartbeating and take this process's slots out at once (once)."""
        if self._closing:
            return
        self._closing = True
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
        await self._try(self._forget(), None)
        self._closed = True  # from now on, this process's own counts only
        await self._redis.aclose()

    async def _forget(self) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zrem(self._procs, self.process)
            pipe.delete(self._slots)
            await pipe.execute()

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self.beat()
            except Exception:  # never the end of the heartbeat: the next one tries again
                log.exception("the shared limits' heartbeat failed")

    async def beat(self) -> None:
        """Keep this process's slots counting for another `ttl`; write them back where
        Redis lost them (or they changed while it failed)."""
        stale, self._stale = self._stale, False
        found: Any = await self._try(self._beat(
            keys=[self._procs, self._slots], args=[self._now(), self.ttl, self.process]), None)
        if found is None:  # Redis failed: write them back next time
            self._stale = True
            return
        lost = not int(found)  # Redis restarted, or this process was paused past the ttl
        if (stale or lost) and not await self._try(self._write_back(), False):
            self._stale = True

    async def _write_back(self) -> bool:
        own: dict[Any, Any] = {_field(scope, key): count
                               for scope, taken in self.local.slots.items()
                               for key, count in taken.items() if count > 0}
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._slots)
            if own:
                pipe.hset(self._slots, mapping=own)
                pipe.pexpire(self._slots, int(self.ttl * 1000))
            await pipe.execute()
        return True

    # -- failures ----------------------------------------------------------------------

    async def _try(self, work: Awaitable[T], failed: T) -> T:
        """`work`'s answer, or `failed` if Redis failed or is given up on for now."""
        loop = asyncio.get_running_loop()
        if self._closed or loop.time() < self._down_until:
            if asyncio.iscoroutine(work):
                work.close()
            return failed
        try:
            async with asyncio.timeout(self.timeout):
                return await work
        except (RedisError, OSError, TimeoutError) as error:
            self.failures += 1
            SHARED_LIMITS_FAILURES.inc()
            self._down_until = loop.time() + RETRY_SECONDS
            self._stale = True
            if self.failures & (self.failures - 1) == 0:  # 1st, 2nd, 4th, 8th...
                log.error("the shared limits' Redis failed (%s; %d time(s)): this process "
                          "counts on its own for now", error or type(error).__name__,
                          self.failures)
            return failed

    # -- the counters ------------------------------------------------------------------

    async def admit(self, scope: str, key: str, limit: int) -> bool:
        admitted: Any = await self._try(self._admit(
            keys=[self._procs],
            args=[self._now(), self.ttl, self.process, _field(scope, key), limit, self._base]),
            None)
        if admitted is None:  # Redis failed: this process's own share
            return self.local.take(scope, key, limit)
        if not int(admitted):
            return False
        self.local.take(scope, key, None)
        return True

    async def release(self, scope: str, key: str) -> None:
        self.local.give_back(scope, key)
        if await self._try(self._release(keys=[self._slots], args=[_field(scope, key)]),
                           None) is None:
            self._stale = True

    async def count(self, scope: str, key: str) -> int:
        total: Any = await self._try(self._count(
            keys=[self._procs], args=[self._now(), _field(scope, key), self._base]), None)
        return int(total) if total is not None else await self.local.count(scope, key)

    async def wait(self, scope: str, key: str, per_minute: int) -> float:
        if per_minute <= 0:
            return await self.local.wait(scope, key, per_minute)
        wait: Any = await self._try(self._rate(
            keys=[f"{self.prefix}:rate:{scope}:{key}"], args=[self._now(), per_minute]), None)
        if wait is None:
            return self.local.wait_now(scope, key, per_minute)
        return float(wait)


def _field(scope: str, key: str) -> str:
    """A slot's field in a process's hash (scopes are ours, without spaces)."""
    return f"{scope} {key}"
