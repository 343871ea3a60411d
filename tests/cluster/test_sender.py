"""`arena.cluster.sender.Sender`: in order, steps in line, everything waiting published at
once, bounded, and nothing on its path waits for the broker. `Window`: the steps that
wait for the broker (the leader's puts), several at once, a bounded number."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import SimpleNamespace

import pytest

from arena.bus import Bus, BusFailure, Message, open_bus
from arena.cluster import sender as sender_module
from arena.cluster.messages import StartPairing, decode
from arena.cluster.sender import Sender, Window
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
    side.sender, side._puts = Sender(stalled), Window()
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


class _SlowPuts(_Stalled):
    """A bus whose puts wait for `release` (the broker's ack), each pairing's recorded
    as it starts and as it is kept; the put of the pairing `failing` fails."""

    def __init__(self, bus: Bus, *, failing: str = "") -> None:
        super().__init__(bus)
        self.started: list[str] = []
        self.kept: list[str] = []
        self.release = asyncio.Event()
        self.failing = failing

    async def put(self, queue: str, data: bytes) -> None:
        pair = decode(StartPairing, data).pair
        self.started.append(pair)
        await self.release.wait()
        if pair == self.failing:
            raise BusFailure(f"the queue {queue!r} did not take a message: timeout")
        self.kept.append(pair)


async def test_the_leaders_puts_go_several_at_once_bounded_none_lost(
        caplog: pytest.LogCaptureFixture) -> None:
    """Issue 24: one put at a time, a broker's round trip each, fell behind the pairing
    under load. Now a window of them waits for the broker's acks at once; the rest wait
    for a slot, in order; a put that fails is logged and holds up nothing."""
    from arena.cluster.host import HostSide
    from arena.server.app import Pairing

    slow = _SlowPuts(await open_bus("local:"), failing="p2")
    side = HostSide.__new__(HostSide)  # only what these paths use
    side.bus = slow
    side._puts = Window(3)
    side._queued = {}
    side.stale_pairings = 0
    pairs = [f"p{n}" for n in range(1, 8)]
    try:
        for pair in pairs:
            side._put_pairing(Pairing("main", f"{pair}a", f"{pair}b", pair, {}, (None, None)))
        await wait_for(lambda: len(slow.started) == 3, 10, "three puts in flight")
        for _ in range(3):
            await asyncio.sleep(0)  # (turns of the loop: nothing more starts)
        assert slow.started == ["p1", "p2", "p3"] and not slow.kept
        assert (side._puts.in_flight, side._puts.waiting) == (3, 4)
        slow.release.set()  # the broker acks
        await wait_for(lambda: side._puts.done == 7, 10, "every put ended")
        assert slow.started == pairs  # started in the order paired
        assert sorted(slow.kept) == [pair for pair in pairs if pair != "p2"]
        assert side._puts.most == 3 and side._puts.most_waiting == 4
        assert side._puts.failed == 1
        assert "did not take a message" in caplog.text
        # as before: the pairing whose put failed counts its bots as playing until the
        # leader's count forgets it (then they are paired again)
        assert set(side._queued) == set(pairs) and side.stale_pairings == 0
    finally:
        await side._puts.close(timeout=0.1)
        await slow.close()


async def test_a_window_drops_beyond_its_waiting_and_after_close_and_cuts_short() -> None:
    release = asyncio.Event()
    ended: list[int] = []

    def step(n: int) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            await release.wait()
            ended.append(n)
        return run

    window = Window(2, max_waiting=3)
    for n in range(6):
        window.call(step(n))
    assert (window.in_flight, window.waiting, window.dropped) == (2, 3, 1)
    assert window.discard() == 3
    window.call(step(6))
    release.set()
    await window.close()  # what was given runs first
    assert sorted(ended) == [0, 1, 6]
    window.call(step(7))  # closed: dropped
    assert window.dropped == 2 and window.waiting == 0

    stuck = Window(1)
    stuck.call(asyncio.Event().wait)  # a broker that never acks
    stuck.call(step(8))
    await stuck.close(timeout=0.05)  # cancelled past the timeout, the rest forgotten
    assert (stuck.in_flight, stuck.waiting) == (0, 0) and 8 not in ended

    with pytest.raises(ValueError):
        Window(0)


async def test_a_window_grows_while_steps_wait_for_a_slot_up_to_its_bound() -> None:
    """A step that ends while others wait for a slot doubles the window (they waited a
    whole step for it), up to `grow_to`; a burst that fits never grows it."""
    acks: list[asyncio.Event] = []
    every = asyncio.Event()

    async def put() -> None:
        ack = asyncio.Event()
        acks.append(ack)
        if not every.is_set():
            await ack.wait()  # the broker's ack

    window = Window(2, grow_to=8)
    for _ in range(2):
        window.call(put)
    await wait_for(lambda: len(acks) == 2, 10, "two in flight")
    acks[0].set()
    await wait_for(lambda: window.done == 1, 10, "one acked")
    assert window.size == 2  # nothing waited

    for _ in range(29):  # 30 given in all: 2 in flight, 28 wait
        window.call(put)
    assert (window.in_flight, window.waiting) == (2, 28)
    acks[1].set()  # ends while 28 wait: 4 at once
    await wait_for(lambda: window.in_flight == 4, 10, "the window doubled")
    assert window.size == 4 and window.waiting == 25
    for sizes in ((8, 8), (8, 8)):  # one ends: doubled again, then bounded at 8
        acks[window.done].set()  # the oldest in flight
        await wait_for(lambda s=sizes: (window.size, window.in_flight) == s, 10, "grown")
    assert window.most == 8
    every.set()
    for ack in acks:
        ack.set()
    await wait_for(lambda: window.done == 31, 10, "every put acked")
    assert window.size == 8 and window.failed == 0
    await window.close()

    assert Window(3).grow_to == 3  # not given: it never grows


async def test_a_stopping_leader_drops_the_pairings_waiting_and_says_what_it_put(
        caplog: pytest.LogCaptureFixture) -> None:
    from arena.cluster.host import HostSide
    from arena.server.app import Pairing

    slow = _SlowPuts(await open_bus("local:"))
    side = HostSide.__new__(HostSide)  # only what these paths use
    side.bus = slow
    side._puts = Window(2)
    side._queued, side._tasks, side._starts = {}, [], None
    side.stale_pairings = 0
    try:
        for n in range(5):
            side._put_pairing(Pairing("main", f"a{n}", f"b{n}", f"p{n}", {}, (None, None)))
        await wait_for(lambda: len(slow.started) == 2, 10, "two puts in flight")
        await side.drain()  # SIGTERM: what waits for a slot is dropped, not what runs
        slow.release.set()
        await side._puts.close()
        assert sorted(slow.kept) == ["p0", "p1"]
        assert "3 not queued yet dropped" in caplog.text
    finally:
        await slow.close()
