"""Leader election through a PostgreSQL advisory lock: of the processes that run
`Leader.run` with one name on one database, one at a time runs its work (the ladder's
pairing loop, docs/cluster.md "Leader election").

The leader holds a session advisory lock on a connection of its own. PostgreSQL releases
the lock when that connection ends, however it ends: the process stopped, was killed
(``kill -9``: the kernel closes the socket, the server sees it at once) or lost the
network (the server sees it once TCP keepalives give up: `KEEPALIVE`). The others try
for the lock every `retry` seconds, so one of them leads within about `retry` seconds of
the server seeing the end. The leader checks its connection every `check` seconds and
stops its work when the check fails: a leader cut off from the database stops leading
on its own, at most about `check` seconds after the cut, usually before the server
gives its lock to another.

The lock's key is made of the name and the connection's current schema, so arenas in
different schemas of one database (as the tests run) elect their leaders apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Awaitable, Callable

import asyncpg

from arena.urls import redact

__all__ = ["CONNECTION_ERRORS", "KEEPALIVE", "Leader", "close", "connect"]

log = logging.getLogger("arena.storage.leader")

KEEPALIVE = {"tcp_keepalives_idle": "5", "tcp_keepalives_interval": "2",
             "tcp_keepalives_count": "3"}
"""The leader's connection asks the server to probe it after 5 s of silence, every 2 s,
3 times: a leader whose machine vanished loses its lock within about 11 s."""


CONNECTION_ERRORS = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError,
                     asyncpg.InternalClientError)
"""How a connection fails (asyncpg's InternalClientError: its own state lost on a
connection the server just closed, as `arena.storage.postgres` also counts it)."""


async def connect(url: str, retry: float, who: object) -> asyncpg.Connection:
    """A connection of its own for a contender `who` (`Leader`, `arena.storage.shards.
    Shards`), with `KEEPALIVE`: tried every `retry` seconds until the database answers."""
    while True:
        try:
            return await asyncpg.connect(url, timeout=max(retry, 5.0),
                                         server_settings=KEEPALIVE)
        except CONNECTION_ERRORS as error:
            log.warning("%s: cannot connect: %s", who, error)
            await asyncio.sleep(retry)


async def close(connection: asyncpg.Connection, check: float) -> None:
    """Close a contender's connection, its locks with it (cut short after `check`
    seconds: a connection that failed may never answer)."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(check):
            await connection.close()
    connection.terminate()  # (a no-op once closed)


def lock_key(schema: str, name: str, *, kind: str = "leader", size: int = 8) -> int:
    """The advisory lock's key for `name` in `schema`: a signed integer of `size`
    bytes (8: a one-key lock's; 4: the first key of two, `arena.storage.shards`'s, whose
    `kind` keeps them apart from a leader's).

    Example:
        >>> lock_key("public", "ladder") == lock_key("public", "ladder") != lock_key("x", "ladder")
        True
        >>> -2**31 <= lock_key("public", "hosted", kind="shards", size=4) < 2**31
        True
    """
    digest = hashlib.blake2b(f"arena {kind} {schema}.{name}".encode(), digest_size=size).digest()
    return int.from_bytes(digest, "big", signed=True)


class Leader:
    """One contender for leadership `name` on the database `url` (module docstring).

    Args:
        url: a ``postgresql://`` URL (the storage's).
        name: what is led (``ladder``): contenders of one name exclude each other.
        retry: seconds between tries for the lock while another leads, and between
            tries to connect while the database does not answer.
        check: seconds between checks of the leader's connection.
    """

    def __init__(self, url: str, name: str, *, retry: float = 1.0, check: float = 1.0) -> None:
        self.url = url
        self.name = name
        self.retry = retry
        self.check = check
        self.on_change: Callable[[bool], None] | None = None
        """Called with True when this contender starts leading, False when it stops."""
        self._leading = asyncio.Event()

    def __repr__(self) -> str:
        return f"Leader({redact(self.url)!r}, {self.name!r})"

    @property
    def leading(self) -> bool:
        """Whether this contender leads now (its work runs)."""
        return self._leading.is_set()

    async def wait_leading(self) -> None:
        """Return once this contender leads."""
        await self._leading.wait()

    def _set(self, leading: bool) -> None:
        if leading == self.leading:
            return
        if leading:
            self._leading.set()
        else:
            self._leading.clear()
        log.info("%s %s", self, "leads" if leading else "no longer leads")
        if self.on_change is not None:
            self.on_change(leading)

    async def run(self, work: Callable[[], Awaitable[None]]) -> None:
        """Contend for leadership for as long as this runs; while leading, run `work()`,
        cancelled when the leadership is lost (and started again once it is won again).
        Returns when `work` returns (the lock released); cancel it to stop contending.

        Raises:
            Exception: what `work` raised (the lock released).
        """
        while True:
            connection = await connect(self.url, self.retry, self)
            ended: asyncio.Task[None] | None = None
            try:
                ended = await self._lead(connection, work)
            except CONNECTION_ERRORS as error:
                log.warning("%s: the connection failed: %s", self, error)
            finally:
                self._set(False)
                await close(connection, self.check)
            if ended is not None:
                ended.result()  # what work raised, if it did
                return

    async def _lead(self, connection: asyncpg.Connection,
                    work: Callable[[], Awaitable[None]]) -> asyncio.Task[None]:
        """Try for the lock on `connection` until it is won, then run `work` while the
        connection holds; return its task once it ends by itself.

        Raises:
            OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError,
            asyncpg.InternalClientError: the connection failed (`work` was cancelled).
        """
        schema = await connection.fetchval("SELECT current_schema()")
        key = lock_key(str(schema), self.name)
        while not await asyncio.wait_for(
                connection.fetchval("SELECT pg_try_advisory_lock($1)", key), self.check * 5):
            await asyncio.sleep(self.retry)
        self._set(True)
        task = asyncio.create_task(_call(work), name=f"leader {self.name}")
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=self.check)
                if done:
                    return task
                await asyncio.wait_for(connection.fetchval("SELECT 1"), self.check * 5)
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


async def _call(work: Callable[[], Awaitable[None]]) -> None:
    await work()
