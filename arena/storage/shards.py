"""Work spread over processes through PostgreSQL advisory locks: `SHARDS` shards, each a
lock, shared out between the processes that run `Shards.run` with one name on one
database (the hosted bots over the gateways, docs/cluster.md "Hosted bots in the
cluster").

Each contender holds, on a connection of its own (as `arena.storage.leader.Leader`),
a shared "member" lock, so the server's ``pg_locks`` counts the contenders and says who
holds which shard. Every `retry` seconds a contender reads them and moves towards its
fair share (`share`): with M members, ``ceil(SHARDS / M)``, or ``SHARDS // M`` while
another member holds fewer than that (so none is left with nothing while the others
hold the ceiling). It lets go of its extras, the highest first, after its work stopped
them (`apply` with what it keeps), and takes free shards with ``pg_try_advisory_lock``
(`apply` with what it holds then). So the shards even out within a few `retry` as
contenders come and go; the locks of one that dies (``kill -9``) or loses the network
go with its connection, as a leader's do (`arena.storage.leader.KEEPALIVE`), and the
others take them within about `retry` seconds of the server seeing the end. A contender
whose connection fails stops its work (`apply` with nothing) before it tries again.

What belongs to which shard is `shard_of`: a stable hash of the name (not Python's
salted `hash`), the same in every process.

The locks are the two-integer advisory locks: the first is made of the name and the
connection's current schema (arenas in different schemas elect apart, as leaders do),
the second the shard's number (`MEMBER` for the member lock).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Iterable

import asyncpg

from arena.storage.leader import CONNECTION_ERRORS, close, connect, lock_key
from arena.urls import redact

__all__ = ["MEMBER", "SHARDS", "Shards", "shard_of", "share"]

log = logging.getLogger("arena.storage.shards")

SHARDS = 16
"""Shards of a name: as many runners as this can share the work (more would hold none)."""

MEMBER = -1
"""The second key of the member lock (no shard's number)."""

_LOCKS = """SELECT pid, objid::bigint AS objid FROM pg_locks
WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid::bigint = $1
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"""
"""Who holds which of the name's locks (``objid``: the second key, as an unsigned oid)."""


def shard_of(name: str, shards: int = SHARDS) -> int:
    """The shard of `name`: 0 to `shards` - 1, the same in every process and run.

    Example:
        >>> shard_of("alice") == shard_of("alice") and 0 <= shard_of("alice") < SHARDS
        True
    """
    digest = hashlib.blake2b(name.encode(), digest_size=8, person=b"arena shard").digest()
    return int.from_bytes(digest, "big") % shards


def share(shards: int, held: Iterable[int]) -> int:
    """How many shards a member should hold, of `shards`, when the other members hold
    `held` shards each: the ceiling of an even share, or its floor while another holds
    fewer than the floor (it lets go of one for that member to take).

    Example:
        >>> share(16, []), share(16, [16]), share(16, [8]), share(16, [4, 4, 4, 0])
        (16, 8, 8, 3)
    """
    others = list(held)
    members = len(others) + 1
    floor, ceiling = shards // members, -(-shards // members)
    return floor if any(count < floor for count in others) else ceiling


class Shards:
    """One contender for the shards of `name` on the database `url` (module docstring).

    Args:
        url: a ``postgresql://`` URL (the storage's).
        name: what is shared (``hosted``): contenders of one name share its shards.
        shards: how many there are (every contender of a name must say the same).
        retry: seconds between looks at the shares, and between tries to connect.
        check: a query that takes longer than 5 times this fails the connection.
    """

    def __init__(self, url: str, name: str, *, shards: int = SHARDS, retry: float = 1.0,
                 check: float = 1.0) -> None:
        self.url = url
        self.name = name
        self.shards = shards
        self.retry = retry
        self.check = check
        self.held: frozenset[int] = frozenset()
        """The shards this contender holds (its work runs them)."""
        self.members = 0
        """The contenders, this one among them, as last counted (0: not yet)."""
        self.on_members: Callable[[int], None] | None = None
        """Called with `members` when the count changes."""

    def __repr__(self) -> str:
        return f"Shards({redact(self.url)!r}, {self.name!r})"

    async def run(self, apply: Callable[[frozenset[int]], Awaitable[None]]) -> None:
        """Contend for shards until cancelled. `apply(held)` is awaited with the shards
        this contender holds whenever they change: after it took some, and before it lets
        go of some (their work stopped first, so no shard ever runs in two places)."""
        while True:
            connection = await connect(self.url, self.retry, self)
            try:
                _cancelled()
                await self._share(connection, apply)
            except CONNECTION_ERRORS as error:
                log.warning("%s: the connection failed: %s", self, error)
            finally:
                if self.held:  # the locks go with the connection: the work stops first
                    self.held = frozenset()
                    await apply(self.held)
                await close(connection, self.check)
            _cancelled()
            await asyncio.sleep(self.retry)

    async def _query(self, connection: asyncpg.Connection, query: str,
                     *args: object) -> object:
        async with asyncio.timeout(self.check * 5):  # (wait_for may swallow a cancel)
            return await connection.fetchval(query, *args)

    async def _share(self, connection: asyncpg.Connection,
                     apply: Callable[[frozenset[int]], Awaitable[None]]) -> None:
        schema = str(await self._query(connection, "SELECT current_schema()"))
        space = lock_key(schema, self.name, kind="shards", size=4)  # the first of two keys
        await self._query(connection, "SELECT pg_advisory_lock_shared($1, $2)", space, MEMBER)
        me = connection.get_server_pid()
        member = MEMBER & 0xFFFFFFFF
        while True:
            async with asyncio.timeout(self.check * 5):
                rows = await connection.fetch(_LOCKS, space & 0xFFFFFFFF)
            members = {row["pid"] for row in rows if row["objid"] == member} | {me}
            if len(members) != self.members:
                self.members = len(members)
                if self.on_members is not None:
                    self.on_members(self.members)
            holding: dict[int, set[int]] = {pid: set() for pid in members}
            taken: set[int] = set()
            for row in rows:
                if row["objid"] != member:
                    holding.setdefault(row["pid"], set()).add(row["objid"])
                    taken.add(row["objid"])
            target = share(self.shards, [len(holding[pid]) for pid in members if pid != me])
            mine = sorted(self.held)
            if len(mine) > target:
                self.held = frozenset(mine[:target])
                await apply(self.held)  # stopped before another may take them
                for shard in mine[target:]:
                    await self._query(connection, "SELECT pg_advisory_unlock($1, $2)",
                                      space, shard)
            elif len(mine) < target:
                gained: set[int] = set()
                free = [shard for shard in range(self.shards) if shard not in taken]
                start = me % len(free) if free else 0  # contenders try apart
                for shard in free[start:] + free[:start]:
                    if len(mine) + len(gained) >= target:
                        break
                    if await self._query(connection, "SELECT pg_try_advisory_lock($1, $2)",
                                         space, shard):
                        gained.add(shard)
                if gained:
                    self.held = self.held | gained
                    await apply(self.held)
            _cancelled()
            await asyncio.sleep(self.retry)


def _cancelled() -> None:
    """Raise CancelledError if the task was cancelled and something it awaited swallowed
    the cancel (asyncpg's connect and close time out with ``wait_for``, which in Python
    3.11 may return a result that came as it was cancelled): else a gateway's shutdown
    would wait for ever for this loop to end."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
