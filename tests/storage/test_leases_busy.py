"""A loaded host's leases (docs/cluster.md, "Host leases"): its renewals must not wait
behind its other storage calls. In `bench/bench_rolling.py` with 2 000 bots, every
connection of a host's pool was taken by the games' starts, ends and resumptions, the
renewal waited its turn for over half a lease, and the host gave up every game it
played. PostgreSQL only: SQLite serves one process (its one writer thread)."""

from __future__ import annotations

import asyncio
import contextlib

from arena.storage.leases import LeaseKeeper
from arena.storage.postgres import PostgresStorage

from .conftest import postgres_schema
from .test_leases import HELD, start


async def test_renewals_and_releases_do_not_wait_for_a_busy_pool() -> None:
    async with postgres_schema() as url:
        storage = await PostgresStorage.open(url, pool_size=2)
        try:
            await start(storage, "g1", "g2")
            lost: list[frozenset[str]] = []
            keeper = LeaseKeeper(storage, "host-a", on_lost=lost.append,
                                 on_claimed=lambda games: None, lease=HELD, claim=False)
            assert await keeper.adopt("g1", 0.0) and await keeper.adopt("g2", 0.0)
            async with contextlib.AsyncExitStack() as busy:
                for _ in range(2):  # every connection of the pool in use, for as long as
                    await busy.enter_async_context(storage._pool.acquire())  # it takes
                # (without a connection of their own, these waited for the pool forever)
                await asyncio.wait_for(keeper.tick(1.0), 20)
                assert keeper.held == {"g1", "g2"} and not lost
                assert sorted(await asyncio.wait_for(keeper.release(), 20)) == ["g1", "g2"]
            assert {lease.until for lease in await storage.leases()} == {0.0}
        finally:
            await storage.close()
