"""A host's side of the leases (docs/cluster.md, "Host leases"): `LeaseKeeper` renews
the leases of the games its host plays, tells it of the games it lost, and claims the
games whose host died.

Each `tick` is one round against the storage: renew every lease (the games missing
from the answer were claimed by another host: `on_lost`), then, if the keeper claims,
take up to `CLAIM_LIMIT` games whose lease ran out (`on_claimed`: the host resumes them
from their stored moves). `run` renews every third of the lease (the claims beside,
never delaying a renewal), so a lease is renewed
twice before it could run out. A keeper that cannot reach the storage for a whole lease
gives up every game it holds (`on_lost`): by then another host may have claimed them,
and two hosts must never play one game. It is given the time (`tick(now)`), so its tests
do not wait.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from collections.abc import Callable, Iterable

from arena.storage.interface import CLAIM_LIMIT, Storage, StorageFailure

__all__ = ["LEASE_SECONDS", "LeaseKeeper", "host_id"]

log = logging.getLogger("arena.storage.leases")

LEASE_SECONDS = 10.0
"""A lease's length: a dead host's games are claimed within about this long, plus up to
a third of it for the next claiming round of another host."""


def host_id() -> str:
    """A name for this process as a host: its machine, its pid and a random part (a
    restarted process with a recycled pid is another host).

    Example:
        >>> host_id().count(":")
        2
    """
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class LeaseKeeper:
    """Keeps `host`'s leases (module docstring).

    Args:
        storage: the shared database.
        host: this host's name (`host_id`).
        on_lost: called with the games `host` no longer holds: it must stop playing them.
        on_claimed: called with the games `host` took over: it resumes them.
        lease: seconds a lease lasts.
        claim: whether this host takes over other hosts' games (a host that is stopping
            does not).
    """

    def __init__(self, storage: Storage, host: str, *,
                 on_lost: Callable[[frozenset[str]], None],
                 on_claimed: Callable[[frozenset[str]], None],
                 lease: float = LEASE_SECONDS, claim: bool = True) -> None:
        self.storage = storage
        self.host = host
        self.lease = lease
        self.claim = claim
        self.held: set[str] = set()
        """The games this host holds, as of the last round."""
        self._on_lost = on_lost
        self._on_claimed = on_claimed
        self._renewed: float | None = None
        """When (the keeper's clock) the leases were last renewed."""

    def __repr__(self) -> str:
        return f"LeaseKeeper({self.host!r}, holds {len(self.held)})"

    async def adopt(self, game_id: str, now: float) -> bool:
        """Lease a game this host starts (or was given); whether it holds it now."""
        if not await self.storage.lease_game(game_id, self.host, self.lease):
            return False
        self.held.add(game_id)
        if self._renewed is None:
            self._renewed = now
        return True

    def hold(self, game_id: str, now: float) -> None:
        """A game this host stored already leased to itself (`Storage.start_game`'s
        ``host``): its lease is kept from now on."""
        self.held.add(game_id)
        if self._renewed is None:
            self._renewed = now

    async def take_free(self, now: float) -> frozenset[str]:
        """At start: take back the games leased under this host's name (a restart of a
        host with a fixed name, ``--host-id``) and claim every game no live host holds
        (those a stop or a crash left running), `CLAIM_LIMIT` at a time until none is
        left; the games taken (not reported to `on_claimed`: the caller resumes them)."""
        taken = set(await self.storage.renew_leases(self.host, self.lease))
        while True:
            claimed = await self.storage.claim_expired(self.host, self.lease, CLAIM_LIMIT)
            taken.update(claimed)
            if len(claimed) < CLAIM_LIMIT:
                break
        self.held |= taken
        if self._renewed is None:
            self._renewed = now
        return frozenset(taken)

    def forget(self, game_id: str) -> None:
        """A game ended here: no more a lease to keep (its row is no longer running; a
        game not forgotten is reported lost at the next round)."""
        self.held.discard(game_id)

    async def tick(self, now: float) -> None:
        """One round: renew, then claim (module docstring). `now` is the keeper's clock
        (any monotonic one, in seconds).

        Raises:
            StorageFailure: the storage failed, or took over half a lease to renew (the
                leases are given up once that has lasted a whole lease).
        """
        await self.renew(now)
        await self.claim_free()

    async def renew(self, now: float) -> None:
        """A round's first half: renew every lease, and tell of the games lost (`tick`).

        Raises:
            StorageFailure: as `tick`.
        """
        asked = frozenset(self.held)  # games started or ended meanwhile are not judged now
        try:
            async with asyncio.timeout(self.lease / 2):
                renewed = set(await self.storage.renew_leases(self.host, self.lease))
        except (StorageFailure, TimeoutError) as failure:
            if self._renewed is not None and now - self._renewed >= self.lease:
                self._lose(self.held, "its leases could not be renewed for a whole lease",
                           logging.WARNING)
            if isinstance(failure, TimeoutError):
                raise StorageFailure(f"renewing the leases took over {self.lease / 2} s") \
                    from None
            raise
        self._renewed = now
        self._lose((asked & self.held) - renewed, "another host claimed them, or they ended")

    async def claim_free(self) -> frozenset[str]:
        """Claim up to `CLAIM_LIMIT` games no live host holds (`on_claimed`), if this
        keeper claims: a round's second half, and what a peer's handover asks for at
        once (a stopping host ended its leases). The games claimed.

        Raises:
            StorageFailure: the storage failed.
        """
        if not self.claim:
            return frozenset()
        claimed = frozenset(await self.storage.claim_expired(self.host, self.lease,
                                                             CLAIM_LIMIT))
        if claimed:
            self.held |= claimed
            log.warning("%s took over %d games whose hosts stopped renewing their leases",
                        self, len(claimed))
            self._on_claimed(claimed)
        return claimed

    def _lose(self, games: Iterable[str], why: str, level: int = logging.INFO) -> None:
        """`games` are no longer leased here: `on_lost` stops those still played here
        (and says so). A renewal also misses a game that ended here after its answer
        was made and before `forget` (not a loss: its host skips it), hence info."""
        lost = frozenset(games)
        if lost:
            self.held -= lost
            log.log(level, "%s no longer holds %d games: %s", self, len(lost), why)
            self._on_lost(lost)

    async def release(self) -> frozenset[str]:
        """Hand every game over now (the host is stopping): stop claiming, end the
        leases so that other hosts claim them at once; the games released."""
        self.claim = False
        released = frozenset(await self.storage.release_leases(self.host))
        self.held.clear()
        return released

    async def run(self, interval: float | None = None) -> None:
        """Tick every `interval` seconds (default: a third of the lease) until cancelled;
        a failing storage is logged and tried again at the next tick.

        The claims run beside the renewals, one at a time, never in their way: a
        claim waits for the pool of a loaded host (many games to resume), and a renewal
        that waited for it came after the lease had run out, and the other hosts took
        the games of a live host (`bench/bench_rolling.py` with 2 000 bots)."""
        loop = asyncio.get_running_loop()
        claiming: asyncio.Task[None] | None = None
        try:
            while True:
                try:
                    await self.renew(loop.time())
                except StorageFailure as failure:
                    log.error("%s: %s", self, failure)
                if self.claim and (claiming is None or claiming.done()):
                    claiming = loop.create_task(self._claim_logged(),
                                                name=f"claims of {self.host}")
                await asyncio.sleep(self.lease / 3 if interval is None else interval)
        finally:
            if claiming is not None:
                claiming.cancel()

    async def _claim_logged(self) -> None:
        try:
            await self.claim_free()
        except StorageFailure as failure:
            log.error("%s: %s", self, failure)
