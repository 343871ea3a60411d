"""`LeaseKeeper` (arena.storage.leases): a host renews its leases, learns of the games it
lost, claims a dead host's games, hands its own over when it stops, and gives up its
games when it cannot renew them for a whole lease. It is given the time: nothing waits."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from arena.storage import Storage, StorageFailure
from arena.storage.leases import LeaseKeeper, host_id
from tests.waiting import wait_for

from .games import ended, started
from .test_leases import HELD, hosts, start


class Host:
    """A keeper and what it was told."""

    def __init__(self, storage: Storage, name: str, lease: float = HELD,
                 claim: bool = True) -> None:
        self.lost: list[frozenset[str]] = []
        self.claimed: list[frozenset[str]] = []
        self.keeper = LeaseKeeper(storage, name, lease=lease, claim=claim,
                                  on_lost=self.lost.append, on_claimed=self.claimed.append)


async def test_a_host_keeps_its_games_and_another_claims_them_when_it_dies(
        storage: Storage) -> None:
    await start(storage, "g1", "g2", "g3")
    dying, other = Host(storage, "dying"), Host(storage, "other")
    for game_id in ("g1", "g2"):
        assert await dying.keeper.adopt(game_id, now=0)
    assert not await other.keeper.adopt("g1", now=0)  # held
    for game_id in ("g1", "g2"):  # the dying host stops renewing: its leases run out
        assert await storage.lease_game(game_id, "dying", 0)

    await other.keeper.tick(now=1)  # the dying host's leases ran out: taken over
    assert other.claimed == [frozenset({"g1", "g2", "g3"})]  # g3: nobody held it
    assert other.keeper.held == {"g1", "g2", "g3"}
    assert await hosts(storage) == {"g1": "other", "g2": "other", "g3": "other"}

    # it was only paused (a long stop of its process): it learns that it lost them
    await dying.keeper.tick(now=2)
    assert dying.lost == [frozenset({"g1", "g2"})] and dying.keeper.held == set()
    assert dying.claimed == []  # nothing left to claim

    await other.keeper.tick(now=3)  # a renewal: nothing lost, nothing new
    assert other.lost == [] and len(other.claimed) == 1


async def test_a_stopping_host_hands_its_games_over_at_once(storage: Storage) -> None:
    await start(storage, "g1", "g2")
    leaving, staying = Host(storage, "leaving"), Host(storage, "staying")
    for game_id in ("g1", "g2"):
        assert await leaving.keeper.adopt(game_id, now=0)
    await staying.keeper.tick(now=0)
    assert staying.claimed == []  # held: nothing to claim
    assert await leaving.keeper.release() == {"g1", "g2"}
    await staying.keeper.tick(now=1)
    assert staying.claimed == [frozenset({"g1", "g2"})]
    await leaving.keeper.tick(now=1)  # stopping: it claims nothing back
    assert leaving.claimed == [] and leaving.lost == []


async def test_a_game_that_ended_is_forgotten_not_lost(storage: Storage) -> None:
    await start(storage, "g1")
    host = Host(storage, "host")
    assert await host.keeper.adopt("g1", now=0)
    await storage.finish_game(ended("g1", ("alice", "bob"), 0))
    host.keeper.forget("g1")
    await host.keeper.tick(now=1)
    assert host.lost == [] and host.keeper.held == set()


class Slow:
    """A storage whose renewals wait for `go`, so that games start and end meanwhile."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.storage, name)

    async def renew_leases(self, host: str, seconds: float) -> list[str]:
        renewed = await self.storage.renew_leases(host, seconds)
        self.asked.set()
        await self.go.wait()
        return renewed


async def test_games_that_start_or_end_during_a_renewal_are_not_lost(storage: Storage) -> None:
    """A busy host starts and ends games while its renewal is on the way: a game stored
    after the renewal's answer was made is held, not lost (nor one that ended)."""
    await start(storage, "old", "ending")
    slow = Slow(storage)
    host = Host(slow, "host")  # type: ignore[arg-type]
    assert await host.keeper.adopt("old", now=0) and await host.keeper.adopt("ending", now=0)
    renewal = asyncio.create_task(host.keeper.tick(now=1))
    await slow.asked.wait()  # renewed: old and ending; not yet told
    await storage.start_game(started(ended("new", ("alice", "bob"), 0)), ladder=False,
                             pair=None, host="host", lease=HELD)
    host.keeper.hold("new", now=1)
    await storage.finish_game(ended("ending", ("alice", "bob"), 0))
    host.keeper.forget("ending")
    slow.go.set()
    await renewal
    assert host.lost == [] and host.keeper.held == {"old", "new"}
    await host.keeper.tick(now=2)  # the next round renews the new game too
    assert host.lost == [] and host.keeper.held == {"old", "new"}


class Failing:
    """A storage whose renewals fail (the database is unreachable)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.failing = False

    async def lease_game(self, game_id: str, host: str, seconds: float) -> bool:
        return await self.storage.lease_game(game_id, host, seconds)

    async def renew_leases(self, host: str, seconds: float) -> Sequence[str]:
        if self.failing:
            raise StorageFailure("the database cannot be used (ConnectionRefusedError)")
        return await self.storage.renew_leases(host, seconds)

    async def claim_expired(self, host: str, seconds: float, limit: int) -> Sequence[str]:
        return await self.storage.claim_expired(host, seconds, limit)


async def test_a_host_that_cannot_renew_for_a_whole_lease_gives_its_games_up(
        storage: Storage) -> None:
    await start(storage, "g1")
    failing = Failing(storage)
    lost: list[frozenset[str]] = []
    keeper = LeaseKeeper(failing, "host", lease=10, on_lost=lost.append,  # type: ignore[arg-type]
                         on_claimed=lambda games: None)
    assert await keeper.adopt("g1", now=100)
    await keeper.tick(now=103)
    failing.failing = True
    with pytest.raises(StorageFailure):
        await keeper.tick(now=106)  # 3 s without renewal: it keeps its games
    assert lost == [] and keeper.held == {"g1"}
    with pytest.raises(StorageFailure):
        await keeper.tick(now=113)  # 10 s: another host may have them now
    assert lost == [frozenset({"g1"})] and keeper.held == set()


async def test_run_renews_and_claims_until_cancelled(storage: Storage) -> None:
    await start(storage, "g1", "g2")
    host = Host(storage, "host")
    assert await host.keeper.adopt("g1", now=0)
    [first, _] = await storage.leases()

    async def renewed_and_claimed() -> bool:
        until = (await storage.leases())[0].until
        assert until is not None and first.until is not None
        return until > first.until and bool(host.claimed)

    task = asyncio.create_task(host.keeper.run(interval=0.01))
    try:
        await wait_for(renewed_and_claimed)  # renewed, and g2 (unheld) claimed
        assert host.claimed == [frozenset({"g2"})] and host.keeper.held == {"g1", "g2"}
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert host.lost == []


def test_host_ids_differ() -> None:
    assert host_id() != host_id()


async def test_at_start_a_host_takes_back_its_own_games_and_every_free_one(
        storage: Storage) -> None:
    await start(storage, "mine", "free", "theirs", "dead")
    before, live, dead = Host(storage, "host-1"), Host(storage, "live"), Host(storage, "dead")
    assert await before.keeper.adopt("mine", now=0)  # host-1, before its restart
    assert await live.keeper.adopt("theirs", now=0)
    assert await dead.keeper.adopt("dead", now=0)
    await storage.release_leases("dead")  # its leases ran out
    restarted = Host(storage, "host-1")  # the same name (--host-id), a new process
    assert await restarted.keeper.take_free(now=0) == {"mine", "free", "dead"}
    assert restarted.keeper.held == {"mine", "free", "dead"}
    assert restarted.claimed == []  # the caller resumes them
    assert (await hosts(storage))["theirs"] == "live"


class StuckClaims:
    """A storage whose claims wait (for a loaded host's pool) until `go` is set."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.renewals = 0
        self.go = asyncio.Event()

    async def lease_game(self, game_id: str, host: str, seconds: float) -> bool:
        return await self.storage.lease_game(game_id, host, seconds)

    async def renew_leases(self, host: str, seconds: float) -> Sequence[str]:
        self.renewals += 1
        return await self.storage.renew_leases(host, seconds)

    async def claim_expired(self, host: str, seconds: float, limit: int) -> Sequence[str]:
        await self.go.wait()
        return await self.storage.claim_expired(host, seconds, limit)


async def test_run_renews_on_time_while_a_claim_waits(storage: Storage) -> None:
    # a claim waiting for a loaded host's pool delayed its next renewal past the lease,
    # and another host took the games of this live one (bench_rolling, 2 000 bots)
    await start(storage, "g1", "g2")
    stuck = StuckClaims(storage)
    host = Host(stuck, "host")  # type: ignore[arg-type]
    assert await host.keeper.adopt("g1", now=0)
    task = asyncio.create_task(host.keeper.run(interval=0.01))
    try:
        await wait_for(lambda: stuck.renewals >= 3)  # the first claim still waits
        assert host.claimed == []
        stuck.go.set()
        await wait_for(lambda: host.claimed == [frozenset({"g2"})])
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert host.lost == [] and host.keeper.held == {"g1", "g2"}
