"""Publishing from code that never waits (`Games`, `Clients`): `Sender.send` queues,
one task publishes in order. A bot's messages so keep their order across the bus, as
they do on a socket; a subscription made through `Sender.call` is in place before any
message sent after it leaves (a host listens to a game before it announces it).

The task publishes everything waiting at once when it wakes (a batch: the bus client
writes it to the broker together), and never waits for the broker on the way: a
message waits only behind the messages and steps sent before it, so a step must be
quick (a subscription made with ``confirm=False``, which the broker takes in order
with what follows on the connection, not one confirmed by a round trip; issue 24's
lead: one flush per new game made every publish wait behind it). Work that waits for
the broker (a durable queue's `Bus.put`) goes on a `Sender` of its own.

When nothing waits, `send` publishes at once (`Bus.publish_nowait`: the bus client
writes it with the rest of this turn of the event loop's), without waking the task: a
hop of the event loop less on each leg of a move (issue 24). Behind anything waiting
it queues, so the order holds and a loaded sender still publishes in batches."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable

from arena.bus import Bus, BusError

__all__ = ["MAX_WAITING", "Sender"]

log = logging.getLogger("arena.cluster")

MAX_WAITING = 100_000
"""Messages waiting to be published at most; beyond, they are dropped and logged (a
broker that does not take them costs bounded memory: the bots hear everything again
when their games are resumed)."""

_Item = tuple[str, bytes] | Callable[[], Awaitable[None]] | None


class Sender:
    """Publishes on `bus`, in the order `send` was called (see the module docstring)."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.dropped = 0
        self.batches = 0
        """Times the task woke to publish what waited (a batch each)."""
        self.eager = 0
        """Messages published at once by `send` (nothing waited)."""
        self._waiting: deque[_Item] = deque()
        self._busy = False
        """The task holds an item it took from `_waiting` and has not finished with
        (or `close` was called: nothing is published at once any more)."""
        self._ready = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="bus sender")

    def send(self, subject: str, data: bytes) -> None:
        """Publish `data` on `subject` after everything sent before (never waits): at
        once if nothing waits and the bus can (module docstring), else queued."""
        if not self._waiting and not self._busy:
            try:
                if self.bus.publish_nowait(subject, data):
                    self.eager += 1
                    return
            except (BusError, ValueError) as error:
                log.warning("not published on %s: %s", subject, error)
                return
        if len(self._waiting) >= MAX_WAITING:
            self.dropped += 1
            if self.dropped & (self.dropped - 1) == 0:  # the 1st, 2nd, 4th, ... drop
                log.warning("the bus takes no more messages: %d dropped", self.dropped)
            return
        self._waiting.append((subject, data))
        self._ready.set()

    def call(self, step: Callable[[], Awaitable[None]]) -> None:
        """Run `step` (a subscription, say) after everything sent before, and before
        what is sent after (never waits); what is sent after waits for it, so it must
        not wait for the broker (module docstring)."""
        self._waiting.append(step)
        self._ready.set()

    def discard(self) -> int:
        """Forget what waits to be published or run (not what runs now); how many."""
        count = len(self._waiting)
        self._waiting.clear()
        return count

    async def _run(self) -> None:
        waiting, bus = self._waiting, self.bus
        while True:
            await self._ready.wait()
            self._ready.clear()
            self.batches += 1
            while waiting:
                item = waiting.popleft()
                if item is None:
                    self._busy = True
                    return
                self._busy = True
                try:
                    await self._step(bus, item)
                finally:
                    self._busy = False

    @staticmethod
    async def _step(bus: Bus, item: tuple[str, bytes] | Callable[[], Awaitable[None]]) -> None:
        if callable(item):
            try:
                await item()
            except Exception:
                log.exception("a step of the bus sender failed")
            return
        subject, data = item
        try:
            if not bus.publish_nowait(subject, data):
                await bus.publish(subject, data)
        except (BusError, ValueError) as error:
            log.warning("not published on %s: %s", subject, error)

    async def close(self, timeout: float = 5.0) -> None:
        """Publish what waits (for at most `timeout` seconds), then stop."""
        self._waiting.append(None)
        self._busy = True
        self._ready.set()
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        self._task.cancel()
