"""What only a broker can show: processes that share it, and a message that outlives the
process that held it."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
import textwrap

import pytest

from arena.bus import BusFailure, open_bus
from arena.bus.interface import Message
from tests.waiting import wait_for

from .conftest import connect, nats_prefix, nats_url
from .test_bus import Inbox


async def test_buses_of_one_prefix_share_messages_and_other_prefixes_see_none() -> None:
    async with nats_prefix() as prefix, nats_prefix() as other_prefix:
        gateway, host, other = [await connect(nats_url(p))
                                for p in (prefix, prefix, other_prefix)]
        try:
            at_host, at_other = Inbox(), Inbox()
            await host.subscribe("game.>", at_host)
            await other.subscribe("game.>", at_other)
            await gateway.publish("game.g1.move", b"e2e4")
            await other.publish("game.g9.move", b"mine")
            await wait_for(lambda: at_host.messages and at_other.messages)
            assert at_host.messages == [Message("game.g1.move", b"e2e4")]
            assert at_other.messages == [Message("game.g9.move", b"mine")]

            async def echo(message: Message) -> bytes:
                return message.data

            await host.serve("ping", echo)
            assert await gateway.request("ping", b"pong", timeout=10) == b"pong"
        finally:
            for bus in (gateway, host, other):
                await bus.close()


async def test_an_unconfirmed_subscription_hears_whatever_answers_what_its_bus_said_next(
        ) -> None:
    """A host subscribes to a game's subjects without a round trip (``confirm=False``),
    then tells a gateway of the game: whatever the gateway sends about it once told (a
    move, a request to watch it) reaches the host's subscription."""
    async with nats_prefix() as prefix:
        host, gateway = [await connect(nats_url(prefix)) for _ in range(2)]
        try:
            moves, asked = Inbox(), Inbox()

            async def told(message: Message) -> None:  # the gateway acts on what it hears
                game = message.data.decode()
                await gateway.publish(f"game.{game}.in", b"move")
                answer = await gateway.request(f"game.{game}.spectate", b"watch", timeout=10)
                asked.messages.append(Message(game, answer))

            async def state(message: Message) -> bytes:
                return message.subject.split(".")[1].encode()

            await gateway.subscribe("bot.alice.out", told)
            games = [f"g{n}" for n in range(50)]
            for game in games:
                await host.subscribe(f"game.{game}.in", moves, confirm=False)
                await host.serve(f"game.{game}.spectate", state, confirm=False)
                await host.publish("bot.alice.out", game.encode())
            await wait_for(lambda: len(asked.messages) == len(games), 20, "every game watched")
            assert [m.subject for m in moves.messages] == [f"game.{g}.in" for g in games]
            assert [(m.subject, m.data) for m in asked.messages] == [
                (g, g.encode()) for g in games]
        finally:
            for bus in (host, gateway):
                await bus.close()


async def test_a_durable_message_outlives_the_bus_that_put_it() -> None:
    async with nats_prefix() as prefix:
        before = await connect(nats_url(prefix))
        await before.put("jobs", b"start g1")
        await before.close()  # the process that put it is gone
        after = await connect(nats_url(prefix))
        try:
            inbox = Inbox()
            await after.consume("jobs", inbox)
            await wait_for(lambda: inbox.data == [b"start g1"])
        finally:
            await after.close()


async def test_puts_awaiting_their_acks_at_once_all_keep_their_messages() -> None:
    """The leader's window of puts (`arena.cluster.sender.Window`) on JetStream: many
    publishes in flight on one connection, each awaiting its own ack, none lost."""
    from arena.cluster.sender import Window

    async with nats_prefix() as prefix:
        bus = await connect(nats_url(prefix))
        try:
            window = Window(16)
            sent = [str(n).encode() for n in range(200)]
            for data in sent:
                window.call(functools.partial(bus.put, "jobs", data))
            await wait_for(lambda: window.done == len(sent), 20, "every put acked")
            assert window.failed == 0 and window.most == 16
            inbox = Inbox()
            await bus.consume("jobs", inbox)
            await wait_for(lambda: len(inbox.data) == len(sent), 20, "every message kept")
            assert sorted(inbox.data) == sorted(sent)
            await window.close()
        finally:
            await bus.close()


CONSUMER = textwrap.dedent("""
    import asyncio, sys
    from arena.bus import open_bus

    async def main():
        bus = await open_bus(sys.argv[1])

        async def stuck(message):
            print("got", message.data.decode(), flush=True)
            await asyncio.Event().wait()

        await bus.consume("jobs", stuck, ack_wait=1.0)
        print("consuming", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
""")


async def test_a_message_of_a_killed_consumer_goes_to_another_after_its_ack_wait() -> None:
    async with nats_prefix() as prefix:
        url = nats_url(prefix)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", CONSUMER, url, stdout=asyncio.subprocess.PIPE,
            cwd=os.getcwd())
        try:
            assert process.stdout is not None
            assert await asyncio.wait_for(process.stdout.readline(), 60) == b"consuming\n"
            bus = await connect(url)
            try:
                await bus.put("jobs", b"g1")
                assert await asyncio.wait_for(process.stdout.readline(), 60) == b"got g1\n"
                os.kill(process.pid, signal.SIGKILL)  # no ack, no nak: it just dies
                await process.wait()
                inbox = Inbox()
                await bus.consume("jobs", inbox, ack_wait=1.0)
                await wait_for(lambda: inbox.data == [b"g1"])
            finally:
                await bus.close()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()


async def test_a_bus_that_does_not_answer_fails_at_once_with_its_address() -> None:
    with pytest.raises(BusFailure, match=r"cannot connect to the bus at nats://127.0.0.1:9"):
        await open_bus("nats://127.0.0.1:9")


class _RacingPull:
    """A queue's pull whose cancellation is lost as a message arrives, as Python 3.11's
    `asyncio.wait_for` (inside nats-py's pull) loses it: the message is returned instead."""

    def __init__(self) -> None:
        self.pulls = 0
        self.naked: list[bytes] = []
        self.acked: list[bytes] = []
        self.unsubscribed = False

    async def fetch(self, batch: int, timeout: float) -> list[_Pulled]:
        self.pulls += 1
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            if self.pulls > 1:  # (lost once is enough)
                raise
            return [_Pulled(b"start g1", self)]
        raise AssertionError("unreachable")

    async def unsubscribe(self) -> None:
        self.unsubscribed = True


class _Pulled:
    def __init__(self, data: bytes, pull: _RacingPull) -> None:
        self.data = data
        self.pull = pull

    async def ack(self) -> None:
        self.pull.acked.append(self.data)

    async def nak(self, delay: float) -> None:
        self.pull.naked.append(self.data)


async def test_a_consumer_closes_though_its_cancellation_is_lost_and_hands_back_the_message(
) -> None:
    # a stopping host waited forever for its queue's consumer (bench_rolling under load)
    from arena.bus.nats_bus import _Consumer

    pull = _RacingPull()
    handled: list[bytes] = []

    async def handler(message: Message) -> None:
        handled.append(message.data)

    consumer = _Consumer(pull, "starts", handler)
    consumer.task = asyncio.create_task(consumer.run())
    await wait_for(lambda: pull.pulls == 1)
    await asyncio.wait_for(consumer.close(), 20)  # (without the fix: never returns)
    assert consumer.task.done()
    assert handled == [] and pull.acked == []
    assert pull.naked == [b"start g1"]  # back to the queue, for another consumer
    assert pull.unsubscribed


async def test_a_subscription_cancelled_while_it_waits_for_the_broker_keeps_the_connection(
) -> None:
    # nats-py cancels the future of the PONG it waits for; when the PONG came, its read
    # loop failed on it and the connection was made again (a gateway under load lost
    # what core NATS carried meanwhile)
    async with nats_prefix() as prefix:
        bus = await connect(nats_url(prefix))
        try:
            client = bus._client  # type: ignore[attr-defined]
            first = asyncio.create_task(bus.subscribe("a", Inbox()))
            while not client._pongs:  # its PING sent, its PONG not come back yet
                await asyncio.sleep(0)
            first.cancel()  # (at once: the PONG cannot have come in between)
            with contextlib.suppress(asyncio.CancelledError):
                await first
            inbox = Inbox()
            await bus.subscribe("b", inbox)  # a round trip after the first's PONG came
            await bus.publish("b", b"still here")
            await wait_for(lambda: inbox.data == [b"still here"])
            assert client.stats["reconnects"] == 0 and client.is_connected
        finally:
            await bus.close()


async def test_a_bus_not_connected_publishes_nothing_at_once() -> None:
    """While nats-py is not connected (here: closed) `publish_nowait` does nothing and
    says so: `publish` then decides (nats-py buffers while it reconnects)."""
    async with nats_prefix() as prefix:
        bus = await connect(nats_url(prefix))
        assert bus.publish_nowait("x", b"1")
        await bus.close()
        assert not bus.publish_nowait("x", b"2")


async def test_a_listener_is_called_by_nats_pys_reader_with_no_task_between() -> None:
    """`NatsBus.listen` hands nats-py's reader a queue that calls the listener as a
    message is put (nats-py's private ``_pending_queue``: this fails if another nats-py
    stores it elsewhere), so no subscription task takes the messages, and nats-py's
    slow-consumer count is given back at once."""
    async with nats_prefix() as prefix:
        bus = await connect(nats_url(prefix))
        try:
            heard: list[tuple[bytes, bool]] = []

            def listener(message: Message) -> None:
                reading = asyncio.current_task()
                heard.append((message.data, reading is not None
                               and "read" in reading.get_coro().__qualname__.lower()))

            subscription = await bus.listen("x", listener)
            nats_subscription = subscription.subscription  # type: ignore[attr-defined]
            assert nats_subscription._wait_for_msgs_task is None
            for n in range(50):
                await bus.publish("x", str(n).encode())
            await wait_for(lambda: len(heard) == 50)
            assert heard == [(str(n).encode(), True) for n in range(50)]  # in the reader
            assert nats_subscription._pending_size == 0
            assert nats_subscription.pending_msgs == 0
        finally:
            await bus.close()


async def test_a_listeners_messages_are_read_without_nats_pys_message_objects() -> None:
    """A listener's messages are split off the buffer by the bus's parser (`_Parser`)
    and handed over without nats-py's `_process_msg`, whatever the reads cut them into
    (payloads of 0 bytes to several reads' worth, between a subscription's messages and
    a request's); the others still go through it, in order with them. (Fails if
    nats-py's client keeps its parser, subscriptions or buffer elsewhere.)"""
    async with nats_prefix() as prefix:
        reader, writer = [await connect(nats_url(prefix)) for _ in range(2)]
        try:
            client = reader._client  # type: ignore[attr-defined]
            processed: list[str] = []
            process = client._process_msg

            async def counting(sid: int, subject: bytes, *rest: object) -> None:
                processed.append(subject.decode().split(".", 1)[1])
                await process(sid, subject, *rest)

            client._process_msg = counting
            heard: list[bytes] = []
            await reader.listen("listened", lambda message: heard.append(message.data))
            inbox = Inbox()
            await reader.subscribe("subscribed", inbox)

            async def echo(message: Message) -> bytes:
                return message.data

            await reader.serve("asked", echo)
            sizes = [0, 1, 7, 100, 5_000, 40_000, 150_000, 3]
            sent = [bytes([65 + n % 26]) * size for n, size in enumerate(sizes * 3)]
            for n, data in enumerate(sent):
                await writer.publish("listened" if n % 3 else "subscribed", data)
            assert await writer.request("asked", b"?", timeout=10) == b"?"
            await wait_for(lambda: len(heard) + len(inbox.data) == len(sent))
            assert heard == [data for n, data in enumerate(sent) if n % 3]
            assert inbox.data == [data for n, data in enumerate(sent) if not n % 3]
            assert "listened" not in processed
            assert processed.count("subscribed") == len(inbox.data)
            assert "asked" in processed
            assert client.stats["in_msgs"] >= len(sent) + 1
        finally:
            for bus in (reader, writer):
                await bus.close()


async def test_caught_up_returns_once_what_the_broker_sent_before_was_read() -> None:
    """What a gateway published before a host asks to be caught up has been handed to
    the host's listener when `caught_up` returns (the PONG comes after it); a broker
    that cannot answer makes it say False, the connection kept."""
    async with nats_prefix() as prefix:
        gateway, host = [await connect(nats_url(prefix)) for _ in range(2)]
        try:
            heard: list[bytes] = []
            await host.listen("bots.presence", lambda message: heard.append(message.data))
            sent = [str(n).encode() * 100 for n in range(2000)]
            for data in sent:
                await gateway.publish("bots.presence", data)
            await gateway.caught_up(10)  # the broker has them (the gateway's PING after)
            assert await host.caught_up(10)
            assert heard == sent
            assert not await host.caught_up(0)  # no time for the round trip
            assert await host.caught_up(10)  # and the connection still answers
        finally:
            for bus in (gateway, host):
                await bus.close()
