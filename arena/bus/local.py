"""The in-process bus (``--bus local:``, the default): `--role all`'s one process talks
to itself through it, with nothing to install.

It keeps `Bus`'s promises inside the process, as the NATS bus does across processes:
the same subjects and wildcards, groups, request/reply, the same size limit, and a
durable queue that redelivers a message whose handler failed. Its durable queues are
durable for the process's lifetime: in a single process every other copy of the truth
(the games' stored moves) is in the database, and nothing else runs to take the
message over.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import defaultdict
from dataclasses import dataclass, field

from arena.bus import interface
from arena.bus.interface import (
    REDELIVERY_DELAY,
    Bus,
    BusTimeout,
    Handler,
    Message,
    NoResponders,
    Responder,
    Subscription,
    call_handler,
    check_name,
    check_size,
    check_subject,
    subject_matches,
)
from arena.metrics import BUS_MESSAGES, BUS_REQUEST_SECONDS

__all__ = ["LocalBus"]

log = logging.getLogger("arena.bus")

_PUBLISHED, _DELIVERED, _DROPPED = (BUS_MESSAGES.labels("local", way)
                                    for way in ("published", "delivered", "dropped"))
_REQUESTS = BUS_REQUEST_SECONDS.labels("local")

_Item = tuple[Message, "asyncio.Future[bytes] | None"]


@dataclass(eq=False)
class _Subscriber(Subscription):
    bus: LocalBus
    pattern: str
    group: str | None
    handler: Handler | None
    responder: Responder | None
    inbox: asyncio.Queue[_Item] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    dropped: int = 0

    def offer(self, item: _Item) -> bool:
        if self.inbox.qsize() >= interface.PENDING_LIMIT:
            self.dropped += 1
            _DROPPED.inc()
            if self.dropped & (self.dropped - 1) == 0:  # 1, 2, 4, ...: logged sparingly
                log.warning("bus subscriber of %s is slow: %d messages dropped", self.pattern,
                            self.dropped)
            return False
        self.inbox.put_nowait(item)
        return True

    async def run(self) -> None:
        while True:
            message, reply = await self.inbox.get()
            if self.handler is not None:
                _DELIVERED.inc()
                await call_handler(self.handler, message)
                continue
            assert self.responder is not None and reply is not None
            try:
                answer = check_size(await self.responder(message))
            except Exception:
                log.exception("bus responder for %s failed", message.subject)
                continue
            if not reply.done():
                reply.set_result(answer)

    async def close(self) -> None:
        self.bus._subscribers.discard(self)
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


@dataclass(eq=False)
class _Consumer(Subscription):
    queue: _Queue
    handler: Handler
    task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        while True:
            message = await self.queue.ready.get()
            handled = False
            try:
                handled = await call_handler(self.handler, message)
            finally:
                if not handled:  # failed, or this consumer closed meanwhile
                    self.queue.again(message)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


@dataclass
class _Queue:
    ready: asyncio.Queue[Message] = field(default_factory=asyncio.Queue)
    timers: set[asyncio.TimerHandle] = field(default_factory=set)

    def again(self, message: Message) -> None:
        """Deliver `message` again after `REDELIVERY_DELAY`."""
        def put() -> None:
            self.timers.discard(timer)
            self.ready.put_nowait(message)

        timer = asyncio.get_running_loop().call_later(REDELIVERY_DELAY, put)
        self.timers.add(timer)


class LocalBus(Bus):
    """`Bus` inside one process (module docstring)."""

    def __init__(self) -> None:
        self._subscribers: set[_Subscriber] = set()
        self._queues: defaultdict[str, _Queue] = defaultdict(_Queue)
        self._consumers: list[_Consumer] = []
        self._turns = itertools.count()

    def __repr__(self) -> str:
        return "LocalBus()"

    def _targets(self, subject: str) -> list[_Subscriber]:
        """The subscribers a message on `subject` goes to: every one without a group, and
        one (in turn) of each group."""
        plain: list[_Subscriber] = []
        groups: defaultdict[str, list[_Subscriber]] = defaultdict(list)
        for subscriber in self._subscribers:
            if subject_matches(subscriber.pattern, subject):
                if subscriber.group is None:
                    plain.append(subscriber)
                else:
                    groups[subscriber.group].append(subscriber)
        turn = next(self._turns)
        return plain + [members[turn % len(members)] for members in groups.values()]

    async def _add(self, subject: str, group: str | None, handler: Handler | None,
                   responder: Responder | None) -> _Subscriber:
        check_subject(subject, wildcards=True)
        if group is not None:
            check_name(group, "group")
        subscriber = _Subscriber(self, subject, group, handler, responder)
        subscriber.task = asyncio.create_task(subscriber.run(), name=f"bus {subject}")
        self._subscribers.add(subscriber)
        return subscriber

    async def publish(self, subject: str, data: bytes) -> None:
        self.publish_nowait(subject, data)

    def publish_nowait(self, subject: str, data: bytes) -> bool:
        check_subject(subject)
        message = Message(subject, check_size(data))
        _PUBLISHED.inc()
        for subscriber in self._targets(subject):
            if subscriber.handler is not None:
                subscriber.offer((message, None))
        return True

    async def subscribe(self, subject: str, handler: Handler, *,
                        group: str | None = None, confirm: bool = True) -> Subscription:
        del confirm  # in place at once either way
        return await self._add(subject, group, handler, None)

    async def request(self, subject: str, data: bytes, *, timeout: float) -> bytes:
        check_subject(subject)
        message = Message(subject, check_size(data))
        servers = [s for s in self._targets(subject) if s.responder is not None]
        if not servers:
            raise NoResponders(f"nobody serves {subject!r}")
        reply: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        for server in servers:
            server.offer((message, reply))
        try:
            with _REQUESTS.time():
                return await asyncio.wait_for(reply, timeout)
        except TimeoutError:
            raise BusTimeout(f"no answer to {subject!r} within {timeout} s") from None

    async def serve(self, subject: str, responder: Responder, *,
                    group: str | None = None, confirm: bool = True) -> Subscription:
        del confirm  # in place at once either way
        return await self._add(subject, group, None, responder)

    async def put(self, queue: str, data: bytes) -> None:
        check_name(queue, "queue")
        self._queues[queue].ready.put_nowait(Message(queue, check_size(data)))

    async def consume(self, queue: str, handler: Handler, *,
                      ack_wait: float = 30.0) -> Subscription:
        check_name(queue, "queue")
        consumer = _Consumer(self._queues[queue], handler)
        consumer.task = asyncio.create_task(consumer.run(), name=f"bus queue {queue}")
        self._consumers.append(consumer)
        return consumer

    async def close(self) -> None:
        for subscription in [*self._subscribers, *self._consumers]:
            await subscription.close()
        self._consumers.clear()
        for queue in self._queues.values():
            for timer in queue.timers:
                timer.cancel()
