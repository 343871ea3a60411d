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
the broker (a durable queue's `Bus.put`) goes on a `Window`: several at once, a bounded
number, each awaiting its own ack.

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

__all__ = ["MAX_PUT_WINDOW", "MAX_WAITING", "PUT_WINDOW", "Sender", "Window"]

log = logging.getLogger("arena.cluster")

MAX_WAITING = 100_000
"""Messages waiting to be published at most; beyond, they are dropped and logged (a
broker that does not take them costs bounded memory: the bots hear everything again
when their games are resumed)."""

PUT_WINDOW = 64
"""Steps a `Window` runs at once by default: the leader's puts on the pairings' queue
in flight together, each a broker's round trip (JetStream stores it, then acks), so at
64 the queue takes 64 pairings per round trip where one at a time took one."""

MAX_PUT_WINDOW = 1024
"""Steps the leader's `Window` may grow to (from `PUT_WINDOW`, doubling each time a put
ends while others wait for a slot): with 1 000 bots its 64 were full at times, and a
put in flight costs a task and the broker's ack to wait for, no more."""


def _log_drop(what: str, dropped: int) -> None:
    if dropped & (dropped - 1) == 0:  # the 1st, 2nd, 4th, ... drop
        log.warning("%s: %d dropped", what, dropped)


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
            _log_drop("the bus takes no more messages", self.dropped)
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
                self._busy = True
                if item is None:
                    return
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


class Window:
    """Runs steps that wait for the broker (a durable queue's `Bus.put`: the broker's ack
    awaited by each), up to `size` at once: they start in the order given (each when a
    slot is free, so a step may check then whether it is still wanted) and end in any
    order. A step that raises is logged and counted (`failed`), and stops nothing else.
    Beyond `max_waiting` steps waiting for a slot, new ones are dropped and logged.
    With `grow_to`, the window doubles each time a step ends while others wait for a
    slot (they waited a whole step: the window, not the broker, held them), up to
    `grow_to` at once; it never shrinks.

    (nats-py's own window, ``JetStreamContext.publish_async`` with its pending acks
    (nats-py 2.16 has it), holds the same bound, but its futures have no timeout, a
    window full makes its caller wait, and it is NATS only: this is as many `Bus.put`s,
    each with the bus's timeout, on any bus, and its caller never waits.)"""

    def __init__(self, size: int = PUT_WINDOW, *, grow_to: int | None = None,
                 max_waiting: int = MAX_WAITING) -> None:
        if size < 1:
            raise ValueError(f"a window of {size} runs nothing")
        self.size = size
        """Steps run at once now."""
        self.grow_to = max(size, grow_to or size)
        self.max_waiting = max_waiting
        self.most = 0
        """The most steps that ran at once."""
        self.most_waiting = 0
        """The most steps that waited for a slot at once (a burst beyond `size`)."""
        self.done = 0
        """Steps that ended (well or not)."""
        self.failed = 0
        """Steps that raised (logged)."""
        self.dropped = 0
        """Steps dropped: beyond `max_waiting`, or given after `close`."""
        self._waiting: deque[Callable[[], Awaitable[None]]] = deque()
        self._running: set[asyncio.Task[None]] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed = False

    @property
    def in_flight(self) -> int:
        """Steps running now."""
        return len(self._running)

    @property
    def waiting(self) -> int:
        """Steps waiting for a slot."""
        return len(self._waiting)

    def call(self, step: Callable[[], Awaitable[None]]) -> None:
        """Run `step` once a slot is free, after the steps given before started (never
        waits)."""
        if self._closed or len(self._waiting) >= self.max_waiting:
            self.dropped += 1
            _log_drop("the window takes no more steps", self.dropped)
            return
        self._waiting.append(step)
        self._fill()
        self.most_waiting = max(self.most_waiting, len(self._waiting))

    def discard(self) -> int:
        """Forget the steps waiting for a slot (not those running); how many."""
        count = len(self._waiting)
        self._waiting.clear()
        if not self._running:
            self._idle.set()
        return count

    def _fill(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting and len(self._running) < self.size:
            task = loop.create_task(self._run(self._waiting.popleft()), name="bus window")
            self._running.add(task)
            task.add_done_callback(self._ended)
            self._idle.clear()
        self.most = max(self.most, len(self._running))

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self.done += 1
        if self._waiting and not task.cancelled():
            if self.size < self.grow_to:
                self.size = min(self.size * 2, self.grow_to)
            self._fill()
        if not self._running and not self._waiting:
            self._idle.set()

    async def _run(self, step: Callable[[], Awaitable[None]]) -> None:
        try:
            await step()
        except (BusError, ValueError) as error:  # the broker did not take it: as `Sender`
            self.failed += 1
            log.warning("a step of the bus window failed: %s", error)
        except Exception:
            self.failed += 1
            log.exception("a step of the bus window failed")

    async def close(self, timeout: float = 5.0) -> None:
        """Take no more steps; run those given (for at most `timeout` seconds), then
        cancel what still runs and forget what still waits."""
        self._closed = True
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)
        self._waiting.clear()
        running = list(self._running)
        for task in running:
            task.cancel()
        for task in running:
            with contextlib.suppress(asyncio.CancelledError):
                await task
