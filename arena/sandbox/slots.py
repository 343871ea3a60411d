"""How many hosted programs run at once on a machine: `HostedSlots`, a queue in front of
the sandboxes.

A game with hosted bots holds a slot for each of them from its start to its end; a game
that finds too few free waits its turn -- first come, first served, so a game that needs
two slots is never overtaken for ever by games that need one. The default capacity is
`arena.sandbox.spec.default_hosted_slots` (a slot per core, one core kept for the
server). The queue is asyncio's: it lives where games are scheduled (the server, a
hosted-bot runner).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator
from typing import Protocol

from arena.sandbox.spec import default_hosted_slots

__all__ = ["HostedSlots", "Slots"]


class Slots(Protocol):
    """What a server's games hold: a `HostedSlots`, or a cluster host's slots, given by
    the gateway that keeps the cluster's count (`arena.cluster.slots.RemoteSlots`)."""

    capacity: int
    used: int
    """Slots held now."""
    peak: int
    """The most slots held at once."""

    @property
    def waiting(self) -> int:
        """Games waiting for slots."""
        ...

    def hold(self, count: int = 1) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold `count` slots (1 to `capacity`) for the body, waiting for them in order."""
        ...


class HostedSlots:
    """At most `capacity` hosted programs at once; the rest wait in order."""

    def __init__(self, capacity: int | None = None) -> None:
        self.capacity = default_hosted_slots() if capacity is None else capacity
        if self.capacity < 1:
            raise ValueError("hosted slots: the capacity must be at least 1")
        self.used = 0
        self.peak = 0
        """The most slots ever held at once."""
        self._queue: collections.deque[tuple[int, asyncio.Future[None]]] = collections.deque()

    @property
    def waiting(self) -> int:
        """Games waiting for slots."""
        return len(self._queue)

    @contextlib.asynccontextmanager
    async def hold(self, count: int = 1) -> AsyncIterator[None]:
        """Hold `count` slots for the body (waiting for them in order)."""
        if not 1 <= count <= self.capacity:
            raise ValueError(f"a game may hold 1 to {self.capacity} hosted slots, not {count}")
        if self._queue or self.used + count > self.capacity:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            entry = (count, future)
            self._queue.append(entry)
            try:
                await future
            except BaseException:
                if future.done() and not future.cancelled():
                    self._release(count)  # given the slots as it was cancelled
                else:
                    with contextlib.suppress(ValueError):
                        self._queue.remove(entry)
                    self._wake()
                raise
        else:
            self._take(count)
        try:
            yield
        finally:
            self._release(count)

    def adopt(self, count: int) -> None:
        """Count `count` slots held now, over the capacity if need be (a cluster's runner
        that starts leading learns of the slots its predecessor gave: they count until
        given back with `give_back`; the queue waits meanwhile)."""
        self._take(count)

    def give_back(self, count: int) -> None:
        """Give back slots `adopt` counted."""
        self._release(count)

    def resize(self, capacity: int) -> None:
        """Hold at most `capacity` slots from now on (a cluster's count grows and shrinks
        with its runners): more let in at once if it grew; if it shrank, what is held
        stays held and the queue waits until it fits (a game that asked for more than the
        new capacity holds them all once the others are given back)."""
        if capacity < 1:
            raise ValueError("hosted slots: the capacity must be at least 1")
        self.capacity = capacity
        self._wake()

    def _take(self, count: int) -> None:
        self.used += count
        self.peak = max(self.peak, self.used)

    def _release(self, count: int) -> None:
        self.used -= count
        self._wake()

    def _wake(self) -> None:
        while self._queue and self.used + min(self._queue[0][0], self.capacity) <= self.capacity:
            count, future = self._queue.popleft()
            if future.done():
                continue
            self._take(count)
            future.set_result(None)
