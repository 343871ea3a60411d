"""Leader election through a PostgreSQL advisory lock (arena.storage.leader): of two
contenders one leads; when its connection dies, or it stops, the other takes over."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import textwrap
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import asyncpg
import pytest

from arena.storage.leader import Leader
from tests.waiting import never, wait_for

from .conftest import postgres_schema

QUICK = {"retry": 0.05, "check": 0.05}


class Contender:
    """A `Leader` whose work notes that it runs, until it is cancelled."""

    def __init__(self, url: str, name: str = "ladder") -> None:
        self.leader = Leader(url, name, **QUICK)
        self.working = False
        self.terms = 0
        self.task: asyncio.Task[None] | None = None

    async def work(self) -> None:
        self.working = True
        self.terms += 1
        try:
            await never()
        finally:
            self.working = False

    def start(self) -> Contender:
        self.task = asyncio.create_task(self.leader.run(self.work))
        return self

    async def stop(self) -> None:
        assert self.task is not None
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


@contextlib.asynccontextmanager
async def contenders(url: str, count: int = 2) -> AsyncIterator[list[Contender]]:
    started = [Contender(url).start() for _ in range(count)]
    try:
        yield started
    finally:
        for contender in started:
            await contender.stop()


async def leader_backends(url: str) -> list[int]:
    """The server processes of this test (its connections are named after its schema:
    ``application_name``) that hold an advisory lock: never another test's."""
    name = parse_qs(urlsplit(url).query)["application_name"][0]
    connection = await asyncpg.connect(url)
    try:
        return [row[0] for row in await connection.fetch(
            "SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1"
            " AND a.pid <> pg_backend_pid()", name)]
    finally:
        await connection.close()


async def test_one_of_two_contenders_leads_and_the_other_takes_over_when_its_connection_dies(
) -> None:
    async with postgres_schema() as url, contenders(url) as (first, second):
        leader = await wait_for(lambda: next((c for c in (first, second) if c.working), None))
        other = second if leader is first else first
        assert leader.leader.leading and not other.leader.leading and not other.working
        before = set(await leader_backends(url))
        assert len(before) == 1

        # the leader's connection dies (as when its process is killed): the server
        # ends its session, which releases the lock
        admin = await asyncpg.connect(url)
        try:
            for pid in before:
                await admin.execute("SELECT pg_terminate_backend($1)", pid)
        finally:
            await admin.close()
        await wait_for(lambda: other.working, what="the other contender leads")
        await wait_for(lambda: not leader.working, what="the old leader's work stopped")
        assert other.leader.leading and other.terms == 1


async def test_a_leader_that_stops_hands_over_and_may_lead_again() -> None:
    async with postgres_schema() as url, contenders(url) as (first, second):
        leader = await wait_for(lambda: next((c for c in (first, second) if c.working), None))
        other = second if leader is first else first
        changes: list[bool] = []
        other.leader.on_change = changes.append
        await leader.stop()
        assert not leader.working and not leader.leader.leading
        await wait_for(lambda: other.working)
        assert changes == [True]
        leader.start()  # contends again, and waits
        await other.stop()
        await wait_for(lambda: leader.working)
        assert leader.terms == 2 and changes == [True, False]


async def test_contenders_of_other_names_or_schemas_do_not_exclude_each_other() -> None:
    async with postgres_schema() as url, postgres_schema() as other_url:
        everyone = [Contender(url, "ladder"), Contender(url, "upkeep"),
                    Contender(other_url, "ladder")]
        for contender in everyone:
            contender.start()
        try:
            await wait_for(lambda: all(contender.working for contender in everyone))
        finally:
            for contender in everyone:
                await contender.stop()


async def test_work_that_fails_ends_the_contention_with_its_error() -> None:
    async def broken() -> None:
        raise OSError("the pairing loop broke")

    async with postgres_schema() as url:
        leader = Leader(url, "ladder", **QUICK)
        with pytest.raises(OSError, match="the pairing loop broke"):
            await leader.run(broken)
        assert not leader.leading
        assert await leader_backends(url) == []  # the lock is released


LEADER_PROCESS = textwrap.dedent("""
    import asyncio, sys
    from arena.storage.leader import Leader

    async def work():
        print("leading", flush=True)
        await asyncio.Event().wait()

    asyncio.run(Leader(sys.argv[1], "ladder", retry=0.05, check=0.05).run(work))
""")


async def test_the_other_contender_leads_when_the_leaders_process_is_killed() -> None:
    async with postgres_schema() as url:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", LEADER_PROCESS, url, stdout=asyncio.subprocess.PIPE)
        try:
            assert process.stdout is not None
            assert await asyncio.wait_for(process.stdout.readline(), 60) == b"leading\n"
            async with contenders(url, 1) as (waiting,):
                assert len(await leader_backends(url)) == 1  # the process's, not ours
                process.kill()  # kill -9: no goodbye to the database
                await process.wait()
                await wait_for(lambda: waiting.working, what="the other contender leads")
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
