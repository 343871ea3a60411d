"""The bus over NATS (``--bus nats://HOST:PORT``), through nats-py: core NATS for
publish/subscribe and request/reply, JetStream for the durable queues.

A subject ``S`` is ``PREFIX.S`` on the broker. A durable queue ``Q`` is the JetStream
stream ``PREFIX_Q`` (work-queue retention, kept on disk: a message is gone once acked)
on the subject ``_queue.PREFIX.Q``, outside the prefix's subjects, so that a
subscription to ``>`` never sees the queues' traffic; all consumers of a queue share the
one durable pull consumer ``consumers``, so each message goes to one of them, and one
not acked within its ``ack_wait`` (its process died) goes to another.

The connection reconnects by itself for as long as the process runs (nats-py buffers
what is published meanwhile); only the first connection must succeed at once
(`CONNECT_ATTEMPTS`), so that a wrong ``--bus`` fails at start with a clear error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import ConsumerConfig, RetentionPolicy, StorageType
from nats.protocol.command import pub_cmd
from nats.protocol.parser import AWAITING_CONTROL_LINE, Parser

from arena.bus import interface
from arena.bus.interface import (
    MAX_MESSAGE_BYTES,
    REDELIVERY_DELAY,
    Bus,
    BusFailure,
    BusTimeout,
    Handler,
    Listener,
    Message,
    NoResponders,
    Responder,
    Subscription,
    call_handler,
    check_name,
    check_size,
    check_subject,
)
from arena.metrics import BUS_MESSAGES, BUS_REQUEST_SECONDS

__all__ = ["CONNECT_ATTEMPTS", "NatsBus"]

log = logging.getLogger("arena.bus")

CONNECT_ATTEMPTS = 2
"""Tries of each server for the first connection (half a second apart)."""
CONNECT_TIMEOUT = 5.0
"""Seconds one try to connect may take."""
FLUSH_TIMEOUT = 60
"""Seconds a subscription's round trip to the broker may take (`NatsBus._flush`)."""
FETCH_WAIT = 5.0
"""Seconds one pull of a durable queue waits for a message (a message that comes
meanwhile is delivered at once; the pull is then renewed)."""
CONSUMER = "consumers"
"""The durable consumer every consumer of a queue pulls from."""

_PUBLISHED, _DELIVERED, _DROPPED = (BUS_MESSAGES.labels("nats", way)
                                    for way in ("published", "delivered", "dropped"))
_REQUESTS = BUS_REQUEST_SECONDS.labels("nats")

_BROKER_ERRORS: tuple[type[BaseException], ...] = (nats.errors.Error, OSError)


@dataclass(eq=False)
class _NatsSubscription(Subscription):
    subscription: Any  # nats.aio.subscription.Subscription

    async def close(self) -> None:
        with contextlib.suppress(*_BROKER_ERRORS):
            await self.subscription.unsubscribe()


class _Listening(asyncio.Queue[Msg]):
    """What nats-py's reader puts a subscription's messages in (its ``_pending_queue``),
    for a `Listener`: each message is handed to the listener as it is put, so the
    queue stays empty (no task takes from it, none need: nats-py's slow-consumer
    accounting is given back at once)."""

    def __init__(self, bus: NatsBus, subscription: Any, listener: Listener) -> None:
        super().__init__()
        self._bus, self._subscription, self._listener = bus, subscription, listener

    def put_nowait(self, item: Msg) -> None:
        self._subscription._pending_size -= len(item.data)
        self.deliver(item.subject, item.data)

    def deliver(self, subject: str, data: bytes) -> None:
        """Hand the message on `subject` (the broker's, prefixed) to the listener."""
        _DELIVERED.inc()
        try:
            self._listener(Message(subject[self._bus._cut:], data))
        except Exception:
            log.exception("bus listener for %s failed", subject)


_MSG = b"MSG "
_CRLF = b"\r\n"


class _Parser(Parser):
    """nats-py's protocol parser with a short way for the messages of `_Listening`
    subscriptions (a host's moves, a gateway's messages for its bots: most of what a
    role reads, issue 24): a ``MSG`` line is split at its spaces rather than matched by
    nats-py's regular expressions, and its payload handed to the listener as it is read,
    without nats-py's message object, header processing and coroutine per message
    (`Client._process_msg`). Every other ``MSG`` (a request's, a task's subscription's)
    goes to ``_process_msg`` as nats-py's parser sends it; anything else (``PING``,
    ``HMSG``, ``INFO``, ``-ERR``, a line it cannot split) to nats-py's parser, with the
    rest of the buffer. Reads nats-py's private state (its client's ``_ps``,
    ``_subs``, ``stats`` and its parser's ``buf`` and ``state``: checked by
    tests/bus/test_nats.py against the installed nats-py)."""

    def __init__(self, parser: Parser) -> None:
        super().__init__(parser.nc)
        self.__dict__.update(parser.__dict__)  # what the parser it replaces had read

    async def parse(self, data: bytes = b"") -> None:
        buf = self.buf
        buf.extend(data)
        nc = self.nc
        while self.state == AWAITING_CONTROL_LINE and buf.startswith(_MSG):
            end = buf.find(_CRLF)
            if end < 0:
                return  # the rest of the line is still to come
            args = buf[4:end].split()
            if len(args) == 3:
                subject, sid, size = args
                reply = bytearray()
            elif len(args) == 4:
                subject, sid, reply, size = args
            else:
                break  # nats-py's parser says what is wrong
            start = end + 2
            stop = start + int(size)
            if len(buf) < stop + 2:
                return  # the payload is still to come: the line is read again then
            payload = bytes(buf[start:stop])
            del buf[:stop + 2]  # (at the front of a bytearray: no copy)
            number = int(sid)
            subscription = nc._subs.get(number)
            listening = None if subscription is None else subscription._pending_queue
            if type(listening) is _Listening and not reply:
                stats = nc.stats
                stats["in_msgs"] += 1
                stats["in_bytes"] += len(payload)
                subscription._received += 1
                listening.deliver(subject.decode(), payload)
            else:
                await nc._process_msg(number, bytes(subject), bytes(reply), payload, None)
        if buf:
            await super().parse()


@dataclass(eq=False)
class _Consumer(Subscription):
    """A queue's consumer: its task pulls one message at a time and hands it to
    `handler`, until `close`.

    `close` does not rely on cancelling the task alone: on Python 3.11 a cancellation
    that comes as a pulled message arrives is lost (nats-py's pull waits in
    `asyncio.wait_for`, which then returns the message instead of raising), and the
    task pulls on; a host stopping under load then waited forever for its queue's
    consumer (docs/cluster.md, "Rolling restarts"). So the task also stops at the next
    turn of its loop once `closed` is set, and what it pulled after that goes back to
    the queue for another consumer."""

    pull: Any  # JetStreamContext.PullSubscription
    queue: str
    handler: Handler
    task: asyncio.Task[None] | None = field(default=None)
    closed: bool = False

    async def run(self) -> None:
        while not self.closed:
            try:
                messages = await self.pull.fetch(1, timeout=FETCH_WAIT)
            except nats.errors.TimeoutError:
                continue
            except _BROKER_ERRORS as error:  # a reconnect under way: try again soon
                log.warning("bus queue %s: %s", self.queue, error)
                await asyncio.sleep(REDELIVERY_DELAY)
                continue
            for message in messages:
                await self._handle(message)

    async def _handle(self, message: Msg) -> None:
        handled = False
        try:
            if not self.closed:  # (else to another consumer)
                handled = await call_handler(self.handler, Message(self.queue, message.data))
        finally:  # failed, or this consumer closed meanwhile: to another consumer, later
            with contextlib.suppress(*_BROKER_ERRORS):
                if handled:
                    await message.ack()
                else:
                    await message.nak(delay=REDELIVERY_DELAY)

    async def close(self) -> None:
        self.closed = True
        if self.task is not None:
            self.task.cancel()  # (a lost cancellation: the task ends at its loop's turn)
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        with contextlib.suppress(*_BROKER_ERRORS):
            await self.pull.unsubscribe()


class NatsBus(Bus):
    """`Bus` on a NATS server (module docstring); open it with `connect`."""

    def __init__(self, client: Client, prefix: str, description: str) -> None:
        self._client = client
        self._js = client.jetstream()
        self.prefix = prefix
        self.description = description
        self._streams: set[str] = set()
        self._consumers: list[_Consumer] = []
        self._cut = len(prefix) + 1
        """What a subject on the broker has before the bus's subject (`_full`)."""
        client._ps = _Parser(client._ps)

    def __repr__(self) -> str:
        return f"NatsBus({self.description!r}, prefix={self.prefix!r})"

    @classmethod
    async def connect(cls, servers: tuple[str, ...], *, prefix: str,
                      description: str) -> NatsBus:
        """Connect to the first of `servers` that answers.

        Raises:
            BusFailure: none answers.
        """
        dropped = 0

        async def error(error: Exception) -> None:
            nonlocal dropped
            if isinstance(error, nats.errors.SlowConsumerError):
                _DROPPED.inc()  # nats-py tells of each message it drops: logged sparingly
                dropped += 1
                if dropped & (dropped - 1) == 0:
                    log.warning("bus %s: a slow subscriber of %s: %d messages dropped",
                                description, error.subject, dropped)
                return
            log.warning("bus %s: %s: %s", description, type(error).__name__, error)

        try:
            client = await nats.connect(
                servers=list(servers), name=f"arena {prefix}", error_cb=error,
                connect_timeout=CONNECT_TIMEOUT, reconnect_time_wait=0.5,
                max_reconnect_attempts=CONNECT_ATTEMPTS, dont_randomize=True,
                pending_size=8 * MAX_MESSAGE_BYTES)
        except (nats.errors.Error, OSError, TimeoutError) as failure:
            raise BusFailure(f"cannot connect to the bus at {description}: "
                             f"{type(failure).__name__}: {failure}") from failure
        client.options["max_reconnect_attempts"] = -1  # connected: never give up now
        return cls(client, prefix, description)

    def _full(self, subject: str) -> str:
        return f"{self.prefix}.{subject}"

    def _message(self, message: Msg) -> Message:
        return Message(message.subject[self._cut:], message.data)

    async def publish(self, subject: str, data: bytes) -> None:
        check_subject(subject)
        try:
            await self._client.publish(self._full(subject), check_size(data))
            _PUBLISHED.inc()
        except _BROKER_ERRORS as error:
            raise BusFailure(f"cannot publish on {subject!r}: {error}") from error

    def publish_nowait(self, subject: str, data: bytes) -> bool:
        """nats-py's ``publish`` without its coroutine: the PUB command joins the
        connection's pending commands and its flusher task is woken, as ``publish``
        does, so that the command is written with the rest of this turn of the event
        loop's (a batch), in order with every command before and after it. Not while
        the connection is not up (nats-py then buffers, or refuses: `publish` knows
        how), nor when the pending commands are full (`publish` then waits for them to
        be written). This reads nats-py's client's private state (checked by
        tests/bus/test_nats.py against the installed nats-py): a client without it
        publishes through `publish`."""
        check_subject(subject)
        check_size(data)
        client = self._client
        try:
            if (client._status != Client.CONNECTED or len(data) > client._max_payload
                    or client._flusher_task is None or client._flusher_task.done()):
                return False
            command = pub_cmd(f"{self.prefix}.{subject}", "", data)
            size = client._pending_data_size + len(command)
            if size > client._max_pending_size:
                return False
            flush = client._flush_queue
            if flush is not None and flush.empty():
                flush.put_nowait(asyncio.get_running_loop().create_future())
            elif flush is None or flush.full():
                return False
        except AttributeError:  # another nats-py
            return False
        client._pending.append(command)
        client._pending_data_size = size
        stats = client.stats
        stats["out_msgs"] += 1
        stats["out_bytes"] += len(data)
        _PUBLISHED.inc()
        return True

    async def _flush(self) -> None:
        """nats-py's ``flush`` (a PING, and its PONG waited for), shielded: cancelled or
        timed out, nats-py cancels the future its PONG is for, and when the PONG comes
        its read loop fails on it (``InvalidStateError``) and the connection is made
        again, losing what core NATS carried meanwhile (a gateway restarted under load
        lost the moves and news of its bots). Shielded, a subscribing task that is
        cancelled (its bot gone) leaves the PONG's future to complete; and the flush
        waits `FLUSH_TIMEOUT` rather than nats-py's 10 s, which a loaded process's PONG
        may take, so that only a broker that stopped answering times out."""
        await asyncio.shield(self._client.flush(FLUSH_TIMEOUT))

    async def caught_up(self, timeout: float) -> bool:
        """`Bus.caught_up`: a PING and its PONG (`_flush`: not cancelled past `timeout`,
        which nats-py would take for a broken connection, only no longer waited for)."""
        try:
            await asyncio.wait_for(self._flush(), timeout)
        except TimeoutError:
            return False
        except _BROKER_ERRORS:
            return False
        return True

    async def _subscribe(self, subject: str, group: str | None, callback: Any, *,
                         confirm: bool) -> _NatsSubscription:
        check_subject(subject, wildcards=True)
        if group is not None:
            check_name(group, "group")
        try:
            subscription = await self._client.subscribe(
                self._full(subject), queue=group or "", cb=callback,
                pending_msgs_limit=interface.PENDING_LIMIT)
            if confirm:  # the server has it: what anyone publishes next reaches us
                await self._flush()
            # else the SUB goes out with what this connection sends next, before it
        except _BROKER_ERRORS as error:
            raise BusFailure(f"cannot subscribe to {subject!r}: {error}") from error
        return _NatsSubscription(subscription)

    async def subscribe(self, subject: str, handler: Handler, *,
                        group: str | None = None, confirm: bool = True) -> Subscription:
        async def deliver(message: Msg) -> None:
            _DELIVERED.inc()
            await call_handler(handler, self._message(message))

        return await self._subscribe(subject, group, deliver, confirm=confirm)

    async def listen(self, subject: str, listener: Listener, *,
                     confirm: bool = True) -> Subscription:
        """A subscription without nats-py's task: its reader hands each message to
        `listener` (`_Listening`, which reads nats-py's subscription's private queue;
        checked by tests/bus against the installed nats-py)."""
        made = await self._subscribe(subject, None, None, confirm=False)  # no task
        subscription = made.subscription
        waiting, subscription._pending_queue = (
            subscription._pending_queue, _Listening(self, subscription, listener))
        while not waiting.empty():  # (came while nats-py's subscribe awaited: none, so far)
            subscription._pending_queue.put_nowait(waiting.get_nowait())
        if confirm:
            try:
                await self._flush()
            except _BROKER_ERRORS as error:
                raise BusFailure(f"cannot subscribe to {subject!r}: {error}") from error
        return made

    async def request(self, subject: str, data: bytes, *, timeout: float) -> bytes:
        check_subject(subject)
        try:
            with _REQUESTS.time():
                answer = await self._client.request(self._full(subject), check_size(data),
                                                    timeout=timeout)
        except nats.errors.NoRespondersError:
            raise NoResponders(f"nobody serves {subject!r}") from None
        except nats.errors.TimeoutError:
            raise BusTimeout(f"no answer to {subject!r} within {timeout} s") from None
        except _BROKER_ERRORS as error:
            raise BusFailure(f"cannot request {subject!r}: {error}") from error
        return answer.data

    async def serve(self, subject: str, responder: Responder, *,
                    group: str | None = None, confirm: bool = True) -> Subscription:
        async def answer(message: Msg) -> None:
            try:
                reply = check_size(await responder(self._message(message)))
            except Exception:
                log.exception("bus responder for %s failed", subject)
                return
            with contextlib.suppress(*_BROKER_ERRORS):
                await message.respond(reply)

        return await self._subscribe(subject, group, answer, confirm=confirm)

    def _queue(self, queue: str) -> tuple[str, str]:
        """The stream and the subject of durable `queue`."""
        check_name(queue, "queue")
        return f"{self.prefix}_{queue}", f"_queue.{self.prefix}.{queue}"

    async def _stream(self, queue: str) -> tuple[str, str]:
        """`_queue`, with the stream made if this bus has not yet."""
        stream, subject = self._queue(queue)
        if stream not in self._streams:
            try:  # the same configuration every time: adding it again is a no-op
                await self._js.add_stream(
                    name=stream, subjects=[subject], retention=RetentionPolicy.WORK_QUEUE,
                    storage=StorageType.FILE, max_msg_size=MAX_MESSAGE_BYTES)
            except _BROKER_ERRORS as error:
                raise BusFailure(f"cannot make the queue {queue!r}: {error}") from error
            self._streams.add(stream)
        return stream, subject

    async def put(self, queue: str, data: bytes) -> None:
        check_size(data)
        stream, subject = await self._stream(queue)
        try:
            await self._js.publish(subject, data, stream=stream)
        except _BROKER_ERRORS as error:
            raise BusFailure(f"the queue {queue!r} did not take a message: {error}") from error

    async def consume(self, queue: str, handler: Handler, *,
                      ack_wait: float = 30.0) -> Subscription:
        stream, subject = await self._stream(queue)
        try:
            pull = await self._js.pull_subscribe(
                subject, durable=CONSUMER, stream=stream,
                config=ConsumerConfig(ack_wait=ack_wait, max_ack_pending=-1))
        except _BROKER_ERRORS as error:
            raise BusFailure(f"cannot consume the queue {queue!r}: {error}") from error
        consumer = _Consumer(pull, queue, handler)
        consumer.task = asyncio.create_task(consumer.run(), name=f"bus queue {queue}")
        self._consumers.append(consumer)
        return consumer

    async def close(self) -> None:
        for consumer in self._consumers:
            await consumer.close()
        self._consumers.clear()
        with contextlib.suppress(*_BROKER_ERRORS):
            await self._client.close()
