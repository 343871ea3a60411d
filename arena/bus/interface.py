"""The bus between the arena's processes, as one small typed interface: `Bus`.

Three kinds of delivery, the least each use needs (docs/cluster.md, "What the bus
carries"):

* **publish/subscribe** (`Bus.publish`, `Bus.subscribe`): at most once, to every
  subscriber of a matching subject, or to one member of a subscriber `group`; in order
  per publisher and subscription. Lost if nobody listens (or a process dies): for what
  is stored anyway, or soon said again (a game's moves, who is online).
* **request/reply** (`Bus.request`, `Bus.serve`): one answer, or `NoResponders` /
  `BusTimeout`.
* **durable queues** (`Bus.put`, `Bus.consume`): at least once, to one consumer of the
  queue, kept until a consumer's handler returns (its ack) — across a restart of any
  process on a broker (NATS JetStream); for what must not be lost between two stores.

Subjects are dot-separated tokens (``game.g1.move``); a subscription may use NATS's
wildcards, ``*`` for one token and ``>`` for the rest. Every bus prefixes its subjects
with its own namespace (`BusUrl.prefix`), so several arenas (or tests) share a broker
without seeing each other. Messages are bytes, at most `MAX_MESSAGE_BYTES`.

Errors:

    BusError
    ├── BusFailure          the broker cannot be reached or refused the work
    ├── NoResponders        a request nobody serves
    ├── BusTimeout          a request not answered in time (TimeoutError)
    └── MessageTooLarge     a message over MAX_MESSAGE_BYTES (ValueError)
"""

from __future__ import annotations

import logging
import re
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from arena.errors import ArenaError

__all__ = [
    "MAX_MESSAGE_BYTES", "PENDING_LIMIT", "REDELIVERY_DELAY", "Bus", "BusError", "BusFailure", "BusTimeout", "Handler", "Listener",
    "Message", "MessageTooLarge", "NoResponders", "Responder", "Subscription", "check_name",
    "check_subject", "subject_matches",
]

log = logging.getLogger("arena.bus")

MAX_MESSAGE_BYTES = 512 * 1024
"""The largest message either bus carries: half of NATS's default ``max_payload`` (1 MiB),
so a broker with its defaults takes every message the arena sends. The largest the
arena means to send is a game's state or log line, bounded far below by the server's
own budgets (docs/server.md)."""

PENDING_LIMIT = 65_536
"""Messages a subscription may have waiting for its handler; more are dropped (and
logged, and counted: ``arena_bus_messages_total{way="dropped"}``), as NATS drops a slow
consumer's: a stuck handler costs bounded memory (both buses)."""

REDELIVERY_DELAY = 0.5
"""Seconds before a durable message whose handler failed is delivered again (both buses)."""

_TOKEN = re.compile(r"[A-Za-z0-9_\-]+")
_NAME = re.compile(r"[A-Za-z0-9_\-]{1,64}")


class BusError(ArenaError):
    """Root of the bus's errors."""


class BusFailure(BusError):
    """The broker cannot be reached, or refused the work (its message says which)."""


class NoResponders(BusError):
    """A request to a subject nobody serves."""


class BusTimeout(BusError, TimeoutError):
    """A request whose answer did not come in time."""


class MessageTooLarge(BusError, ValueError):
    """A message over `MAX_MESSAGE_BYTES`."""


@dataclass(frozen=True)
class Message:
    """A message as a handler gets it: its subject (without the bus's prefix) and data."""

    subject: str
    data: bytes


Handler = Callable[[Message], Awaitable[None]]
"""Handles a message; an exception is logged (and, for a durable queue, the message is
delivered again), never ends the subscription."""

Listener = Callable[[Message], None]
"""Handles a message at once, as the bus reads it (`Bus.listen`): a plain function that
does not wait; an exception is logged, never ends the subscription."""

Responder = Callable[[Message], Awaitable[bytes]]
"""Answers a request with the reply's data."""


class Subscription(ABC):
    """A subscription, a server of requests or a consumer of a queue; `close` ends it."""

    @abstractmethod
    async def close(self) -> None:
        """Stop delivering (safe to call twice). A handler running now finishes; a
        durable queue's message it had not finished is delivered again later."""


def check_subject(subject: str, *, wildcards: bool = False) -> str:
    """`subject` if it is one the bus carries: dot-separated tokens of letters, digits,
    ``_`` and ``-``; with `wildcards`, also ``*`` tokens and a last ``>``.

    Raises:
        ValueError: any other text, quoted in the message.

    Example:
        >>> check_subject("game.g1.move"), check_subject("game.*.>", wildcards=True)
        ('game.g1.move', 'game.*.>')
    """
    if subject in _CHECKED:  # a bot's or a game's subject, published to again and again
        return subject
    tokens = subject.split(".")
    for index, token in enumerate(tokens):
        if _TOKEN.fullmatch(token):
            continue
        if wildcards and (token == "*" or (token == ">" and index == len(tokens) - 1)):
            continue
        kind = "subject pattern" if wildcards else "subject (no wildcards)"
        raise ValueError(f"bad bus {kind} {subject!r}: dot-separated tokens of letters, "
                         "digits, '_' and '-'" + (", '*' or a last '>'" if wildcards else ""))
    if not wildcards:  # (one that is good without wildcards is good with them too)
        if len(_CHECKED) >= CHECKED_SUBJECTS:
            _CHECKED.clear()
        _CHECKED.add(subject)
    return subject


CHECKED_SUBJECTS = 65_536
"""Subjects `check_subject` remembers as good at most (then it forgets them all and
starts again): a message's subject is checked once, not at every message (1 us)."""

_CHECKED: set[str] = set()


def check_name(name: str, what: str = "name") -> str:
    """`name` if it may name a prefix or a durable queue (1-64 letters, digits, ``_``,
    ``-``: JetStream's stream names are made of them).

    Raises:
        ValueError: any other text.
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"bad bus {what} {name!r}: 1-64 letters, digits, '_' and '-'")
    return name


def subject_matches(pattern: str, subject: str) -> bool:
    """Whether `subject` matches `pattern` as NATS matches them.

    Example:
        >>> [subject_matches(p, "game.g1.move") for p in ("game.*.move", "game.>", "game.*")]
        [True, True, False]
    """
    want, have = pattern.split("."), subject.split(".")
    for index, token in enumerate(want):
        if token == ">":
            return len(have) > index
        if index >= len(have) or (token != "*" and token != have[index]):
            return False
    return len(want) == len(have)


def check_size(data: bytes) -> bytes:
    """`data` if it is at most `MAX_MESSAGE_BYTES`; else `MessageTooLarge`."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise MessageTooLarge(
            f"a bus message of {len(data)} bytes: at most {MAX_MESSAGE_BYTES} are carried")
    return data


class Bus(ABC):
    """The bus (module docstring); open one with `arena.bus.open_bus`."""

    @abstractmethod
    async def publish(self, subject: str, data: bytes) -> None:
        """Send `data` to the subscribers of `subject` now (at most once).

        Raises:
            ValueError: a bad subject. MessageTooLarge: too much data.
            BusFailure: the broker is gone.
        """

    def publish_nowait(self, subject: str, data: bytes) -> bool:
        """`publish`, at once if the bus can without waiting: whether it did (False: it
        did nothing, `publish` must be awaited instead, a broker reconnecting say). What
        it publishes goes out in order with what the bus publishes before and after it.
        The default never can; `arena.cluster.sender.Sender` publishes with it when
        nothing waits (a hop of the event loop less on each message).

        Raises:
            as `publish`.
        """
        del subject, data
        return False

    async def caught_up(self, timeout: float) -> bool:
        """Wait until this process has read what the broker sent it before the call (a
        round trip: on NATS a PING, whose PONG comes after those messages), for at most
        `timeout` seconds; whether it has. What a `listen`er is given is handled by then;
        a `subscribe`r's handler may still have it waiting. The default (and the local
        bus, which hands each message over as it is published) has nothing to wait for.
        A follower asks before it takes a gateway for silent (`arena.cluster.host`): a
        heartbeat the broker still had for it counts."""
        del timeout
        return True

    @abstractmethod
    async def subscribe(self, subject: str, handler: Handler, *,
                        group: str | None = None, confirm: bool = True) -> Subscription:
        """Call `handler` with every message on subjects matching `subject`, one at a
        time, in order; with a `group`, each message goes to one member of the group.
        Once this returns, a message published anywhere reaches the handler.

        With `confirm` False it returns without waiting for the broker (no round trip):
        the subscription is then in place for whatever this bus publishes after it, and
        whatever anyone publishes after hearing that (a broker takes one connection's
        commands in order), but a message published elsewhere meanwhile may miss it.
        For subscriptions made on a hot path, in order with what the process publishes
        (`arena.cluster.sender.Sender.call`)."""

    async def listen(self, subject: str, listener: Listener, *,
                     confirm: bool = True) -> Subscription:
        """`subscribe` for a handler that never waits: `listener` is called with every
        message, in order, where the bus can as it reads the message (no task between
        the bus client and the listener: a hop of the event loop less on each message,
        issue 24), else from the subscription's task as a `Handler` is. `confirm` as for
        `subscribe`."""
        async def handler(message: Message) -> None:
            listener(message)

        return await self.subscribe(subject, handler, confirm=confirm)

    @abstractmethod
    async def request(self, subject: str, data: bytes, *, timeout: float) -> bytes:
        """Send a request to one server of `subject`; return its answer.

        Raises:
            NoResponders: nobody serves `subject`.
            BusTimeout: no answer within `timeout` seconds.
        """

    @abstractmethod
    async def serve(self, subject: str, responder: Responder, *,
                    group: str | None = None, confirm: bool = True) -> Subscription:
        """Answer requests on `subject` with `responder` (an exception: no answer, the
        requester times out); `confirm` as for `subscribe`."""

    @abstractmethod
    async def put(self, queue: str, data: bytes) -> None:
        """Add `data` to the durable `queue`; once this returns, the message is kept
        until a consumer has handled it.

        Raises:
            ValueError: a bad queue name. MessageTooLarge: too much data.
            BusFailure: the broker did not confirm it.
        """

    @abstractmethod
    async def consume(self, queue: str, handler: Handler, *,
                      ack_wait: float = 30.0) -> Subscription:
        """Handle the messages of the durable `queue`, each by one of its consumers: a
        message whose handler raises, or that was not handled within `ack_wait` seconds
        (its consumer died), is delivered again. (On NATS the queue's first consumer
        ever sets `ack_wait`: its consumers share one durable consumer.)"""

    @abstractmethod
    async def close(self) -> None:
        """End every subscription and disconnect (safe to call twice)."""


async def call_handler(handler: Handler, message: Message) -> bool:
    """`handler(message)`; an exception is logged. Whether it returned."""
    try:
        await handler(message)
    except Exception:
        log.exception("bus handler for %s failed", message.subject)
        return False
    return True
