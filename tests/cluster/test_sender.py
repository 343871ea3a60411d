"""`arena.cluster.sender.Sender`: in order, steps in line, everything waiting published at
once, bounded, and nothing on its path waits for the broker."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from arena.bus import Bus, Message, open_bus
from arena.cluster import sender as sender_module
from arena.cluster.sender import Sender
from tests.bus.test_bus import Inbox
from tests.waiting import wait_for


async def test_messages_and_steps_go_in_the_order_given_waiting_ones_in_one_batch() -> None:
    bus = await open_bus("local:")
    try:
        sender = Sender(bus)
        early, late = Inbox(), Inbox()
        await bus.subscribe("game.g1.in", early)
        sender.send("game.g1.in", b"1")
        # a subscription made through the sender hears what is sent after it only
        sender.call(lambda: _subscribe(bus, "game.g1.in", late))
        for n in range(2, 1001):
            sender.send("game.g1.in", str(n).encode())
        await wait_for(lambda: len(early.messages) == 1000, 10, "all published")
        assert early.data == [str(n).encode() for n in range(1, 1001)]
        await wait_for(lambda: len(late.messages) == 999, 10, "heard after the step")
        assert late.data == [str(n).encode() for n in range(2, 1001)]
        assert sender.batches == 1  # given while the task slept: published in one go
        await sender.close()
    finally:
        await bus.close()


async def _subscribe(bus: Bus, subject: str, inbox: Inbox) -> None:
    await bus.subscribe(subject, inbox)


async def test_a_failing_step_or_message_stops_nothing_after_it() -> None:
    bus = await open_bus("local:")
    try:
        sender = Sender(bus)
        inbox = Inbox()
        await bus.subscribe("x", inbox)

        async def fails() -> None:
            raise RuntimeError("a step that fails")

        sender.call(fails)
        sender.send("bad subject", b"refused")  # a bad subject: logged, dropped
        sender.send("x", b"after")
        await wait_for(lambda: inbox.data == [b"after"], 10, "the message after")
        await sender.close()
    finally:
        await bus.close()


async def test_beyond_max_waiting_messages_are_dropped_and_counted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sender_module, "MAX_WAITING", 4)
    bus = await open_bus("local:")
    try:
        sender = Sender(bus)
        inbox = Inbox()
        await bus.subscribe("x", inbox)
        sender.call(_nothing)  # waits: what follows is queued behind it
        for n in range(5):
            sender.send("x", str(n).encode())
        assert sender.dropped == 2
        await sender.close()  # what waits is published first
        await wait_for(lambda: inbox.data == [b"0", b"1", b"2"], 10, "the three kept")
    finally:
        await bus.close()


async def _nothing() -> None:
    return


class _Recording(Bus):
    """A bus that records what it publishes, and when: at once (`publish_nowait`) or
    awaited."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.published: list[tuple[str, bytes, str]] = []

    def publish_nowait(self, subject: str, data: bytes) -> bool:
        self.published.append((subject, data, "at once"))
        return True

    async def publish(self, subject: str, data: bytes) -> None:
        self.published.append((subject, data, "awaited"))

    async def subscribe(self, subject, handler, *, group=None, confirm=True):  # type: ignore[no-untyped-def]
        return await self.bus.subscribe(subject, handler, group=group)

    async def serve(self, subject, responder, *, group=None, confirm=True):  # type: ignore[no-untyped-def]
        return await self.bus.serve(subject, responder, group=group)

    async def request(self, subject: str, data: bytes, *, timeout: float) -> bytes:
        raise NotImplementedError

    async def put(self, queue: str, data: bytes) -> None:
        raise NotImplementedError

    async def consume(self, queue, handler, *, ack_wait=30.0):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    async def close(self) -> None:
        await self.bus.close()


async def test_a_message_sent_while_nothing_waits_is_published_at_once() -> None:
    """The eager publish (issue 24): no hop through the sender's task when nothing
    waits; behind a waiting step the messages queue, and go out in order, in one batch."""
    bus = _Recording(await open_bus("local:"))
    try:
        sender = Sender(bus)
        sender.send("a", b"1")
        assert bus.published == [("a", b"1", "at once")]  # before send returned
        gate = asyncio.Event()
        sender.call(gate.wait)  # a step that waits (a subscription, say)
        sender.send("a", b"2")
        sender.send("b", b"3")
        assert bus.published == [("a", b"1", "at once")]  # behind the step
        gate.set()
        await wait_for(lambda: len(bus.published) == 3, 10, "the queued ones")
        assert [data for _, data, _ in bus.published] == [b"1", b"2", b"3"]
        assert sender.batches == 1
        sender.send("a", b"4")  # nothing waits again: at once
        assert bus.published[-1] == ("a", b"4", "at once")
        assert (sender.eager, sender.batches) == (2, 1)
        await sender.close()
        sender.send("a", b"5")  # closed: nothing more goes out
        assert len(bus.published) == 4
    finally:
        await bus.close()


class _Stalled(Bus):
    """A bus whose durable queue never confirms a put (a broker slow to store it), and
    whose confirmed subscriptions never complete (a round trip that does not come back)."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.published: list[Message] = []
        self.confirms: list[bool] = []

    async def publish(self, subject: str, data: bytes) -> None:
        self.published.append(Message(subject, data))

    async def subscribe(self, subject, handler, *, group=None, confirm=True):  # type: ignore[no-untyped-def]
        self.confirms.append(confirm)
        if confirm:
            await asyncio.Event().wait()
        return await self.bus.subscribe(subject, handler, group=group)

    async def serve(self, subject, responder, *, group=None, confirm=True):  # type: ignore[no-untyped-def]
        self.confirms.append(confirm)
        if confirm:
            await asyncio.Event().wait()
        return await self.bus.serve(subject, responder, group=group)

    async def request(self, subject: str, data: bytes, *, timeout: float) -> bytes:
        raise NotImplementedError

    async def put(self, queue: str, data: bytes) -> None:
        await asyncio.Event().wait()

    async def consume(self, queue, handler, *, ack_wait=30.0):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    async def close(self) -> None:
        await self.bus.close()


async def test_a_hosts_games_publish_past_unconfirmed_puts_and_new_games() -> None:
    """The host's hot path (issue 24): a new game's subscriptions and a pairing put on
    the durable queue never hold up what the games publish."""
    from arena.cluster.host import HostSide
    from arena.server.app import Pairing

    stalled = _Stalled(await open_bus("local:"))
    side = HostSide.__new__(HostSide)  # only what these paths use
    side.bus = stalled
    side.sender, side._puts = Sender(stalled), Sender(stalled)
    side._games, side._queued, side._ended = {}, {}, {}
    side._watchers, side._thinking = {}, {}

    server = SimpleNamespace(games=SimpleNamespace(live={"g1": object()}), ladder_games=None)
    side.server = server  # type: ignore[assignment]
    try:
        side._put_pairing(Pairing("main", "alice", "bob", "p1", {}, (None, None)))
        side._game_live("g1", True)
        side.sender.send("bot.alice.out", b"game_start")
        await wait_for(lambda: stalled.published, 10, "the game's first message")
        assert stalled.published == [Message("bot.alice.out", b"game_start")]
        assert stalled.confirms == [False, False]  # game.g1.in, game.g1.spectate
        assert list(side._games) == ["g1"]
    finally:
        for sender in (side.sender, side._puts):
            await sender.close(timeout=0.1)
        await stalled.close()


async def test_what_waits_is_discarded_and_what_runs_goes_on() -> None:
    bus = await open_bus("local:")
    try:
        sender = Sender(bus)
        inbox = Inbox()
        await bus.subscribe("x", inbox)
        running, release = asyncio.Event(), asyncio.Event()

        async def step() -> None:
            running.set()
            await release.wait()

        sender.call(step)
        await wait_for(running.is_set, 10, "the step runs")
        sender.send("x", b"dropped")
        sender.call(step)
        assert sender.discard() == 2
        release.set()
        sender.send("x", b"kept")
        await wait_for(lambda: inbox.data == [b"kept"], 10, "what was sent after")
        await sender.close()
    finally:
        await bus.close()
