"""Publishing from code that never waits (`Games`, `Clients`): `Sender.send` queues,
one task publishes in order. A bot's messages so keep their order across the bus, as
they do on a socket; a subscription made through `Sender.call` is in place before any
message sent after it leaves (a host listens to a game before it announces it)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from arena.bus import Bus, BusError

__all__ = ["MAX_WAITING", "Sender"]

log = logging.getLogger("arena.cluster")

MAX_WAITING = 100_000
"""Messages waiting to be published at most; beyond, they are dropped and logged (a
broker that does not take them costs bounded memory: the bots hear everything again
when their games are resumed)."""


class Sender:
    """Publishes on `bus`, in the order `send` was called (see the module docstring)."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.dropped = 0
        self._queue: asyncio.Queue[tuple[str, bytes] | Callable[[], Awaitable[None]] | None] = (
            asyncio.Queue())
        self._task = asyncio.get_running_loop().create_task(self._run(), name="bus sender")

    def send(self, subject: str, data: bytes) -> None:
        """Publish `data` on `subject` after everything sent before (never waits)."""
        if self._queue.qsize() >= MAX_WAITING:
            self.dropped += 1
            if self.dropped & (self.dropped - 1) == 0:  # the 1st, 2nd, 4th, ... drop
                log.warning("the bus takes no more messages: %d dropped", self.dropped)
            return
        self._queue.put_nowait((subject, data))

    def call(self, step: Callable[[], Awaitable[None]]) -> None:
        """Run `step` (a subscription, say) after everything sent before, and before
        what is sent after (never waits)."""
        self._queue.put_nowait(step)

    async def _run(self) -> None:
        while (item := await self._queue.get()) is not None:
            if callable(item):
                try:
                    await item()
                except Exception:
                    log.exception("a step of the bus sender failed")
                continue
            subject, data = item
            try:
                await self.bus.publish(subject, data)
            except (BusError, ValueError) as error:
                log.warning("not published on %s: %s", subject, error)

    async def close(self, timeout: float = 5.0) -> None:
        """Publish what waits (for at most `timeout` seconds), then stop."""
        self._queue.put_nowait(None)
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        self._task.cancel()
