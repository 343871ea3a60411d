"""The bus's promises (arena.bus.interface), on both buses: the in-process one and NATS."""

from __future__ import annotations

import asyncio

import pytest
from prometheus_client import REGISTRY, generate_latest

from arena.bus import (
    MAX_MESSAGE_BYTES,
    Bus,
    BusTimeout,
    Message,
    MessageTooLarge,
    NoResponders,
    interface,
)
from arena.bus.nats_bus import NatsBus
from tests.waiting import never, wait_for


class Inbox:
    """A handler that keeps what it gets."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def __call__(self, message: Message) -> None:
        self.messages.append(message)

    @property
    def data(self) -> list[bytes]:
        return [message.data for message in self.messages]


async def test_a_message_reaches_the_subscribers_of_matching_subjects(bus: Bus) -> None:
    exact, one, rest, other = Inbox(), Inbox(), Inbox(), Inbox()
    await bus.subscribe("game.g1.move", exact)
    await bus.subscribe("game.*.move", one)
    await bus.subscribe("game.>", rest)
    await bus.subscribe("game.*", other)
    await bus.publish("game.g1.move", b"e2e4")
    await bus.publish("game.g2.move", b"d2d4")
    await bus.publish("game.g2.state.full", b"{}")
    await wait_for(lambda: len(rest.messages) == 3)
    await wait_for(lambda: len(one.messages) == 2)
    assert exact.messages == [Message("game.g1.move", b"e2e4")]  # the prefix is not shown
    assert one.data == [b"e2e4", b"d2d4"]
    assert [m.subject for m in rest.messages] == [
        "game.g1.move", "game.g2.move", "game.g2.state.full"]
    assert other.messages == []


async def test_messages_arrive_in_the_order_they_were_published(bus: Bus) -> None:
    inbox = Inbox()
    await bus.subscribe("turns", inbox)
    sent = [str(i).encode() for i in range(300)]
    for data in sent:
        await bus.publish("turns", data)
    await wait_for(lambda: len(inbox.messages) == len(sent))
    assert inbox.data == sent


async def test_a_message_published_without_waiting_keeps_its_place(bus: Bus) -> None:
    """`publish_nowait` (what `Sender` publishes with when nothing waits): taken at once
    while the broker is connected, in order with what `publish` sends around it, and
    refusing what `publish` refuses."""
    inbox = Inbox()
    await bus.subscribe("turns", inbox)
    sent = [str(i).encode() for i in range(300)]
    for n, data in enumerate(sent):
        if n % 3:
            assert bus.publish_nowait("turns", data)
        else:
            await bus.publish("turns", data)
    await wait_for(lambda: len(inbox.messages) == len(sent))
    assert inbox.data == sent
    with pytest.raises(MessageTooLarge):
        bus.publish_nowait("turns", bytes(MAX_MESSAGE_BYTES + 1))
    with pytest.raises(ValueError, match="bad bus subject"):
        bus.publish_nowait("a b", b"")


async def test_a_listener_hears_every_message_in_order_until_closed(bus: Bus) -> None:
    """`listen` (a plain function, called as the bus reads each message): in order,
    a failure of the listener logged and the next message heard, nothing after close."""
    heard: list[bytes] = []

    def listener(message: Message) -> None:
        assert message.subject == "turns"
        heard.append(message.data)
        if message.data == b"13":
            raise RuntimeError("a bug in a listener")

    subscription = await bus.listen("turns", listener)
    sent = [str(i).encode() for i in range(300)]
    for data in sent:
        await bus.publish("turns", data)
    await wait_for(lambda: len(heard) == len(sent))
    assert heard == sent
    await subscription.close()
    later = Inbox()
    await bus.subscribe("turns", later)
    await bus.publish("turns", b"after")
    await wait_for(lambda: later.data == [b"after"])
    assert heard == sent


async def test_a_group_shares_the_messages_and_others_get_them_all(bus: Bus) -> None:
    first, second, everything = Inbox(), Inbox(), Inbox()
    await bus.subscribe("seek", first, group="hosts")
    await bus.subscribe("seek", second, group="hosts")
    await bus.subscribe("seek", everything)
    sent = [str(i).encode() for i in range(40)]
    for data in sent:
        await bus.publish("seek", data)
    await wait_for(lambda: len(first.messages) + len(second.messages) >= len(sent))
    await wait_for(lambda: len(everything.messages) == len(sent))
    assert sorted(first.data + second.data) == sorted(sent)  # each to one member
    assert first.messages and second.messages


async def test_a_closed_subscription_gets_nothing_more(bus: Bus) -> None:
    closed, open_ = Inbox(), Inbox()
    subscription = await bus.subscribe("news", closed)
    await bus.publish("news", b"1")
    await wait_for(lambda: closed.data == [b"1"])
    await subscription.close()
    await subscription.close()  # twice is fine
    await bus.subscribe("news", open_)
    await bus.publish("news", b"2")
    await wait_for(lambda: open_.data == [b"2"])
    assert closed.data == [b"1"]


async def test_a_failing_handler_keeps_its_subscription(bus: Bus) -> None:
    seen: list[bytes] = []

    async def handler(message: Message) -> None:
        seen.append(message.data)
        if message.data == b"bad":
            raise RuntimeError("a bug in a handler")

    await bus.subscribe("work", handler)
    await bus.publish("work", b"bad")
    await bus.publish("work", b"good")
    await wait_for(lambda: seen == [b"bad", b"good"])


async def test_a_request_is_answered_by_one_server(bus: Bus) -> None:
    served: list[str] = []

    def server(name: str):  # type: ignore[no-untyped-def]
        async def double(message: Message) -> bytes:
            served.append(name)
            return message.data * 2
        return double

    await bus.serve("math.double", server("a"), group="math")
    await bus.serve("math.double", server("b"), group="math")
    answers = [await bus.request("math.double", str(i).encode(), timeout=10) for i in range(6)]
    assert answers == [str(i).encode() * 2 for i in range(6)]
    assert len(served) == 6


async def test_a_request_nobody_serves_or_answers_fails_clearly(bus: Bus) -> None:
    with pytest.raises(NoResponders, match="nobody serves 'math.nothing'"):
        await bus.request("math.nothing", b"", timeout=10)

    async def silent(message: Message) -> bytes:
        await never()
        return b""

    await bus.serve("math.silent", silent)
    with pytest.raises(BusTimeout, match="no answer to 'math.silent' within 0.2 s"):
        await bus.request("math.silent", b"", timeout=0.2)


async def test_messages_over_the_budget_and_bad_subjects_are_refused(bus: Bus) -> None:
    inbox = Inbox()
    await bus.subscribe("big", inbox)
    with pytest.raises(MessageTooLarge, match=f"at most {MAX_MESSAGE_BYTES} are carried"):
        await bus.publish("big", bytes(MAX_MESSAGE_BYTES + 1))
    with pytest.raises(MessageTooLarge):
        await bus.put("jobs", bytes(MAX_MESSAGE_BYTES + 1))
    await bus.publish("big", bytes(MAX_MESSAGE_BYTES))  # the budget itself is carried
    await wait_for(lambda: inbox.messages)
    assert len(inbox.data[0]) == MAX_MESSAGE_BYTES
    for subject in ("", "a..b", "a b", "game.*", "game.>"):
        with pytest.raises(ValueError, match="bad bus subject"):
            await bus.publish(subject, b"")
    for pattern in ("a.>.b", "a.**", ">.a"):
        with pytest.raises(ValueError, match="bad bus subject pattern"):
            await bus.subscribe(pattern, inbox)
    with pytest.raises(ValueError, match="bad bus queue 'a.b'"):
        await bus.put("a.b", b"")


async def test_a_durable_message_waits_for_its_consumer(bus: Bus) -> None:
    await bus.put("jobs", b"first")
    await bus.put("jobs", b"second")
    inbox = Inbox()
    await bus.consume("jobs", inbox)
    await wait_for(lambda: len(inbox.messages) == 2)
    assert inbox.messages == [Message("jobs", b"first"), Message("jobs", b"second")]


async def test_a_durable_message_whose_handler_fails_comes_again(bus: Bus) -> None:
    attempts: list[bytes] = []

    async def flaky(message: Message) -> None:
        attempts.append(message.data)
        if len(attempts) == 1:
            raise RuntimeError("the database blinked")

    await bus.consume("jobs", flaky)
    await bus.put("jobs", b"start g1")
    await wait_for(lambda: len(attempts) == 2)
    assert attempts == [b"start g1", b"start g1"]


async def test_each_durable_message_goes_to_one_consumer(bus: Bus) -> None:
    first, second = Inbox(), Inbox()
    await bus.consume("jobs", first)
    await bus.consume("jobs", second)
    sent = [str(i).encode() for i in range(30)]
    for data in sent:
        await bus.put("jobs", data)
    await wait_for(lambda: len(first.messages) + len(second.messages) >= len(sent))
    assert sorted(first.data + second.data) == sorted(sent)


async def test_a_message_its_consumer_did_not_finish_goes_to_another(bus: Bus) -> None:
    started = asyncio.Event()

    async def stuck(message: Message) -> None:
        started.set()
        await never()

    consumer = await bus.consume("jobs", stuck, ack_wait=30)
    await bus.put("jobs", b"start g1")
    await wait_for(started.is_set)
    await consumer.close()  # a host stopping while it takes a game over
    inbox = Inbox()
    await bus.consume("jobs", inbox)
    await wait_for(lambda: inbox.data == [b"start g1"])


async def test_a_subscriber_that_falls_behind_loses_messages_not_memory(
        bus: Bus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interface, "PENDING_LIMIT", 10)
    release = asyncio.Event()
    got: list[bytes] = []

    async def slow(message: Message) -> None:
        got.append(message.data)
        await release.wait()

    async def echo(message: Message) -> bytes:
        return message.data

    await bus.subscribe("flood", slow)
    await bus.serve("barrier", echo)
    labels = {"bus": "nats" if isinstance(bus, NatsBus) else "local", "way": "dropped"}

    def dropped() -> float:
        return REGISTRY.get_sample_value("arena_bus_messages_total", labels) or 0.0

    before = dropped()
    for index in range(50):
        await bus.publish("flood", str(index).encode())
    # a request through the same bus comes after the flood: by its answer every message
    # of the flood has reached the subscription, kept or dropped
    assert await bus.request("barrier", b"", timeout=10) == b""
    lost = dropped() - before
    release.set()
    await wait_for(lambda: len(got) + lost == 50)
    assert 10 <= len(got) <= 11  # the limit waiting, and the one in the handler
    assert got == [str(index).encode() for index in range(len(got))]  # the first, in order


async def test_a_subject_is_checked_once_and_a_pattern_is_never_a_subject(bus: Bus) -> None:
    """`check_subject` remembers the subjects it found good (a bot's, a game's: the
    same ones at every message), but never a pattern it let a subscription use."""
    inbox = Inbox()
    await bus.subscribe("game.*", inbox)
    await bus.subscribe("game.>", inbox)
    for subject in ("game.*", "game.>"):
        with pytest.raises(ValueError, match="bad bus subject"):
            await bus.publish(subject, b"")
    for _ in range(2):
        await bus.publish("game.g1", b"twice")
    await wait_for(lambda: len(inbox.messages) == 4)
    assert "game.g1" in interface._CHECKED and "game.*" not in interface._CHECKED


async def test_the_bus_counts_its_messages_on_the_metrics_page(bus: Bus) -> None:
    """`BUS_MESSAGES` counts in plain numbers (`arena.metrics.Tallies`) and the page
    shows them as a counter, with its ``_created``."""
    labels = {"bus": "nats" if isinstance(bus, NatsBus) else "local"}

    def counted(way: str) -> float:
        return REGISTRY.get_sample_value("arena_bus_messages_total",
                                         labels | {"way": way}) or 0.0

    inbox = Inbox()
    await bus.subscribe("counted", inbox)
    published, delivered = counted("published"), counted("delivered")
    for _ in range(3):
        await bus.publish("counted", b"")
    await wait_for(lambda: len(inbox.messages) == 3)
    assert counted("published") == published + 3
    assert counted("delivered") == delivered + 3
    page = generate_latest(REGISTRY).decode()
    assert "# TYPE arena_bus_messages_total counter" in page
    assert 'arena_bus_messages_created{bus="' in page
