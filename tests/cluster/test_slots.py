"""The hosted slots of a cluster (`arena.cluster.slots`, docs/cluster.md "Hosted bots in
the cluster"): one count, kept by the gateway that runs the programs, that every host's
games hold -- over a bus inside the test (`arena.bus.local`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from arena.bus.local import LocalBus
from arena.cluster.slots import MAX_WANTING, SILENT_ROUNDS, RemoteSlots, SlotKeeper, SlotsFull
from arena.sandbox.slots import HostedSlots
from tests.waiting import wait_for

INTERVAL = 0.05


@contextlib.asynccontextmanager
async def keeping(bus: LocalBus, slots: HostedSlots,
                  name: str = "gateway-1") -> AsyncIterator[SlotKeeper]:
    """A keeper leading (its work: running until cancelled), once it gives slots."""
    keeper = SlotKeeper(bus, slots, name, interval=INTERVAL)
    task = asyncio.create_task(keeper.lead(asyncio.Event().wait))
    try:
        await wait_for(lambda: keeper.ready, what="the keeper gives slots")
        yield keeper
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def hosts(bus: LocalBus, *names: str) -> AsyncIterator[list[RemoteSlots]]:
    remote = [RemoteSlots(bus, name, interval=INTERVAL) for name in names]
    for slots in remote:
        await slots.start()
    try:
        yield remote
    finally:
        for slots in remote:
            await slots.close()


async def test_two_hosts_games_share_one_count_first_come_first_served() -> None:
    bus = LocalBus()
    counted = HostedSlots(2)
    # a default host id holds ':' (no subject token may)
    async with hosts(bus, "vm:5726:27e56a", "host-2") as (one, two), \
            keeping(bus, counted) as keeper:
        playing = 0
        most = 0
        order: list[str] = []

        async def game(slots: RemoteSlots, name: str, seats: int) -> None:
            nonlocal playing, most
            async with slots.hold(seats):
                order.append(name)
                playing += seats
                most = max(most, playing)
                await wait_for(lambda: counted.waiting or len(order) == 6, what="a queue")
                playing -= seats
        # more wanted than K, from both hosts; a game with two hosted seats among them
        tasks = []
        for index, (slots, seats) in enumerate(
                [(one, 1), (two, 1), (one, 2), (two, 1), (one, 1), (two, 1)]):
            tasks.append(asyncio.create_task(game(slots, f"g{index}", seats)))
            await wait_for(lambda index=index: keeper.asked == index + 1,  # type: ignore[misc]
                           what="the keeper heard the game ask, in turn")
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        assert most == 2 and counted.peak == 2 and one.peak <= 2 and two.peak <= 2
        assert order[:3] == ["g0", "g1", "g2"]  # the two-seat game was not overtaken
        await wait_for(lambda: counted.used == 0, what="every slot given back")


async def test_a_game_that_ends_while_it_waits_gives_its_place_and_slots_back() -> None:
    bus = LocalBus()
    counted = HostedSlots(1)
    async with hosts(bus, "host-1") as (one,), keeping(bus, counted):
        held = asyncio.Event()

        async def holder() -> None:
            async with one.hold(1):
                held.set()
                await asyncio.Event().wait()

        first = asyncio.create_task(holder())
        await held.wait()
        waiter = asyncio.create_task(one.hold(1).__aenter__())
        await wait_for(lambda: counted.waiting == 1, what="the second waits at the keeper")
        waiter.cancel()
        await wait_for(lambda: counted.waiting == 0 and one.waiting == 0, what="it left")
        first.cancel()
        await wait_for(lambda: counted.used == 0, what="the first's slot given back")
        async with asyncio.timeout(10), one.hold(1):
            assert counted.used == 1


async def test_a_silent_host_holds_nothing_and_a_new_keeper_counts_what_was_given() -> None:
    bus = LocalBus()
    counted = HostedSlots(1)
    async with hosts(bus, "host-1", "host-2") as (one, two):
        async with keeping(bus, counted):
            gone = asyncio.Event()

            async def holder() -> None:
                async with one.hold(1):
                    gone.set()
                    await asyncio.Event().wait()

            task = asyncio.create_task(holder())
            await gone.wait()
            assert counted.used == 1
        assert counted.used == 0  # the keeper stopped leading: its count is over

        # another keeper leads: the slot host-1's game holds counts before any is given
        again = HostedSlots(1)
        async with keeping(bus, again, "gateway-2"):
            await wait_for(lambda: again.used == 1, what="the held slot adopted")
            waiting = asyncio.create_task(two.hold(1).__aenter__())
            await wait_for(lambda: again.waiting == 1, what="host-2's game waits")
            # host-1 falls silent (dead): its slot is given back, host-2's game starts
            one._task.cancel()  # type: ignore[union-attr]  # its heartbeat stops
            await asyncio.wait_for(waiting, SILENT_ROUNDS * INTERVAL * 100)
            assert again.peak == 1
        task.cancel()


async def test_a_host_queues_a_bounded_number_of_games() -> None:
    bus = LocalBus()
    slots = RemoteSlots(bus, "host-1", interval=INTERVAL)
    slots._wanting.update({str(n): (1, asyncio.get_running_loop().create_future())
                           for n in range(MAX_WANTING)})
    with pytest.raises(SlotsFull, match="wait for hosted slots already"):
        async with slots.hold(1):
            pass
    with pytest.raises(ValueError, match="at least one"):
        async with slots.hold(0):
            pass
