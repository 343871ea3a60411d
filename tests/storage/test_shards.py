"""Work spread through advisory locks (arena.storage.shards): the shard arithmetic alone
(which name is whose, the fair share), then contenders on PostgreSQL sharing the shards
out, evening them out as one joins, taking those of one that leaves, never running one twice."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from collections.abc import AsyncIterator

from arena.storage.shards import SHARDS, Shards, shard_of, share
from tests.waiting import wait_for

from .conftest import postgres_schema

QUICK = {"retry": 0.05, "check": 0.05}


def test_a_names_shard_is_stable_across_processes_and_spreads_names() -> None:
    # pinned: every gateway, of any run, must place a name alike (not Python's salted hash)
    assert [shard_of(name) for name in ("alice", "bob", "hosted-0")] == [
        shard_of("alice"), shard_of("bob"), shard_of("hosted-0")]
    assert shard_of("alice") == 13 and shard_of("bob") == 1
    counts = Counter(shard_of(f"bot-{n}") for n in range(1600))
    assert set(counts) == set(range(SHARDS))
    assert max(counts.values()) < 2 * 1600 / SHARDS
    assert {shard_of(f"bot-{n}", 3) for n in range(100)} == {0, 1, 2}


def test_the_fair_share_is_the_ceiling_or_the_floor_while_another_holds_less() -> None:
    assert share(16, []) == 16  # alone: everything
    assert share(16, [16]) == 8  # a second joins: half each
    assert share(16, [0]) == 8
    assert share(16, [8, 8]) == 6  # a third joins, with none: 16 / 3 is 5 or 6
    assert share(16, [8, 0]) == 5  # while it holds fewer than 5, the others let go
    assert share(16, [5, 5]) == 6  # then it takes up to 6
    assert share(16, [4, 4, 4, 0]) == 3  # a fifth with none: the others give one each
    assert share(16, [4, 4, 4, 4]) == 4  # (the fifth's own)
    assert share(16, [3, 3, 3, 4]) == 4
    assert share(16, [1] * 15 + [0]) == 1  # more members than shards: one each at most


def test_shares_taken_in_turn_converge_to_an_even_split() -> None:
    """The contenders' moves (`Shards._share` without a database): each in turn lets
    go of its extras or takes free shards up to its share; every split ends even, every
    shard held once."""
    for members in range(1, 20):
        rng = random.Random(members)
        held = [set(range(SHARDS))] + [set() for _ in range(members - 1)]
        for _ in range(50 * members):
            me = rng.randrange(members)
            target = share(SHARDS, [len(h) for i, h in enumerate(held) if i != me])
            mine = sorted(held[me])
            if len(mine) > target:
                held[me] = set(mine[:target])
            free = set(range(SHARDS)).difference(*held)
            while len(held[me]) < target and free:
                held[me].add(free.pop())
        counts = sorted(len(h) for h in held)
        assert sum(counts) == SHARDS, counts
        assert counts[-1] - counts[0] <= 1, (members, counts)


class Contender:
    """A `Shards` whose work notes the shards it runs."""

    def __init__(self, url: str) -> None:
        self.shards = Shards(url, "hosted", **QUICK)
        self.running: frozenset[int] = frozenset()
        self.task = asyncio.create_task(self.shards.run(self.apply))

    async def apply(self, held: frozenset[int]) -> None:
        self.running = held

    async def stop(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


@contextlib.asynccontextmanager
async def started(contenders: list[Contender]) -> AsyncIterator[None]:
    try:
        yield
    finally:
        for contender in contenders:
            await contender.stop()


def split(contenders: list[Contender], *sizes: int) -> bool:
    """Whether the contenders run these many shards, none twice, all of them."""
    running = [c.running for c in contenders]
    return (sorted(map(len, running)) == sorted(sizes)
            and set().union(*running) == set(range(SHARDS)))


async def test_contenders_share_the_shards_and_take_those_of_one_that_leaves() -> None:
    async with postgres_schema() as url:
        contenders = [Contender(url)]
        async with started(contenders):
            await wait_for(lambda: split(contenders, 16), 10, "the first runs them all")
            contenders.append(Contender(url))
            await wait_for(lambda: split(contenders, 8, 8), 10, "two share them evenly")
            contenders.append(Contender(url))
            await wait_for(lambda: split(contenders, 5, 5, 6), 10, "a third takes a share")

            # the second stops (its connection ends with it): its work stops first,
            # the others take its shards
            second = contenders[1]
            await second.stop()
            assert second.running == frozenset()
            contenders.remove(second)
            await wait_for(lambda: split(contenders, 8, 8), 10, "the two left share them")


async def test_a_contender_stops_its_work_before_another_takes_its_shards() -> None:
    """Whenever a shard's lock is held, only its holder runs it: never two at once."""
    async with postgres_schema() as url:
        contenders = [Contender(url)]
        twice: list[set[int]] = []

        async def watch() -> None:
            while True:
                running = [c.running for c in contenders]
                both = {s for i, a in enumerate(running) for b in running[i + 1:] for s in a & b}
                if both:
                    twice.append(both)
                await asyncio.sleep(0)

        watching = asyncio.create_task(watch())
        try:
            async with started(contenders):
                await wait_for(lambda: split(contenders, 16), 10, "the first runs them all")
                for sizes in ((8, 8), (5, 5, 6), (4, 4, 4, 4)):
                    contenders.append(Contender(url))
                    await wait_for(lambda sizes=sizes: split(contenders, *sizes), 10,
                                   f"the shards split {sizes}")
        finally:
            watching.cancel()
        assert twice == []
