"""Host leases (docs/cluster.md, "Host leases"): each running game of a cluster has one
host, which renews its lease; another host claims the game once the lease runs out.
Expiry is shown with leases of 0 seconds (over as soon as they are given), never by
waiting."""

from __future__ import annotations

import asyncio

from arena.storage import Lease, Storage

from .games import ended, started

HELD = 600.0
"""A lease that does not run out during a test."""


async def start(storage: Storage, *ids: str) -> None:
    for game_id in ids:
        await storage.start_game(started(ended(game_id, ("alice", "bob"), 0)), ladder=False,
                                 pair=None)


async def hosts(storage: Storage) -> dict[str, str | None]:
    return {lease.game_id: lease.host for lease in await storage.leases()}


async def test_a_game_is_leased_to_one_host_until_its_lease_runs_out(storage: Storage) -> None:
    await start(storage, "g1")
    assert await storage.leases() == [Lease("g1", None, None)]
    assert await storage.lease_game("g1", "host-a", HELD)
    assert not await storage.lease_game("g1", "host-b", HELD)  # a held game
    assert await storage.lease_game("g1", "host-a", HELD)  # its own: a renewal
    [lease] = await storage.leases()
    assert lease.host == "host-a" and lease.until is not None
    assert await storage.lease_game("g1", "host-a", 0)  # now it runs out
    assert await storage.lease_game("g1", "host-b", HELD)  # and another host takes it
    assert await hosts(storage) == {"g1": "host-b"}
    assert not await storage.lease_game("nothing", "host-a", HELD)


async def test_a_host_renews_its_leases_and_learns_of_the_games_it_lost(storage: Storage) -> None:
    await start(storage, "g1", "g2", "g3")
    for game_id in ("g1", "g2"):
        assert await storage.lease_game(game_id, "host-a", HELD)
    assert await storage.lease_game("g3", "host-b", HELD)
    assert sorted(await storage.renew_leases("host-a", 0)) == ["g1", "g2"]  # (running out)
    assert await storage.lease_game("g2", "host-b", HELD)  # taken over meanwhile
    assert await storage.renew_leases("host-a", HELD) == ["g1"]
    assert not await storage.lease_game("g1", "host-b", HELD)  # renewed: held again
    assert await hosts(storage) == {"g1": "host-a", "g2": "host-b", "g3": "host-b"}


async def test_expired_and_unleased_games_are_claimed_oldest_first(storage: Storage) -> None:
    await start(storage, "g1", "g2", "g3", "g4", "g5")
    assert await storage.lease_game("g1", "dead", 0)
    assert await storage.lease_game("g2", "alive", HELD)
    assert await storage.lease_game("g4", "dead", 0)
    record = ended("g5", ("alice", "bob"), 0)
    await storage.finish_game(record)  # not running: never claimed
    assert await storage.claim_expired("host-b", HELD, limit=2) == ["g1", "g3"]
    assert await storage.claim_expired("host-c", HELD) == ["g4"]
    assert await storage.claim_expired("host-d", HELD) == []
    assert await hosts(storage) == {"g1": "host-b", "g2": "alive", "g3": "host-b",
                                    "g4": "host-c"}


async def test_a_host_that_stops_releases_its_games_to_the_others_at_once(
        storage: Storage) -> None:
    await start(storage, "g1", "g2", "g3")
    assert await storage.claim_expired("host-a", HELD) == ["g1", "g2", "g3"]
    await storage.finish_game(ended("g3", ("alice", "bob"), 0))
    assert sorted(await storage.release_leases("host-a")) == ["g1", "g2"]
    assert await storage.claim_expired("host-b", HELD) == ["g1", "g2"]
    assert await storage.renew_leases("host-a", HELD) == []


async def test_hosts_claiming_at_once_never_share_a_game(storage: Storage) -> None:
    games = [f"g{i:02d}" for i in range(30)]
    await start(storage, *games)
    claims = await asyncio.gather(*(storage.claim_expired(f"host-{i}", HELD, limit=4)
                                    for i in range(12)))
    claimed = [game_id for claim in claims for game_id in claim]
    assert sorted(claimed) == games  # every game once: 12 hosts could take 48
    owners = await hosts(storage)
    for index, claim in enumerate(claims):
        assert all(owners[game_id] == f"host-{index}" for game_id in claim)

    for game_id in games:  # every lease runs out; now hosts race for one game each
        assert await storage.lease_game(game_id, owners[game_id] or "", 0)
    races = await asyncio.gather(*(storage.lease_game("g07", f"racer-{i}", HELD)
                                   for i in range(12)))
    assert races.count(True) == 1
    assert (await hosts(storage))["g07"] == f"racer-{races.index(True)}"


async def test_a_game_stored_leased_is_never_anybody_elses(storage: Storage) -> None:
    await storage.start_game(started(ended("g1", ("alice", "bob"), 0)), ladder=False,
                             pair=None, host="host-a", lease=HELD)
    await start(storage, "g2")  # no host: anybody's
    [held, free] = await storage.leases()
    assert (held.host, free.host, free.until) == ("host-a", None, None)
    assert held.until is not None
    assert await storage.claim_expired("host-b", HELD) == ["g2"]
    assert await storage.renew_leases("host-a", HELD) == ["g1"]
