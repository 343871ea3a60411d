"""`HostedSlots`: at most K hosted programs at once, the rest waiting in order."""

from __future__ import annotations

import asyncio

import pytest

from arena.sandbox.slots import HostedSlots
from arena.sandbox.spec import default_hosted_slots
from tests.waiting import wait_for


def test_the_default_is_a_slot_per_core_but_one() -> None:
    assert HostedSlots().capacity == default_hosted_slots()
    assert default_hosted_slots(16) == 15 and default_hosted_slots(1) == 1


async def test_games_wait_in_order_and_a_big_one_is_not_overtaken() -> None:
    slots = HostedSlots(2)
    order: list[str] = []
    release = {name: asyncio.Event() for name in "abcd"}

    async def game(name: str, count: int) -> None:
        async with slots.hold(count):
            order.append(name)
            await release[name].wait()

    a = asyncio.create_task(game("a", 1))
    await wait_for(lambda: order == ["a"])
    b = asyncio.create_task(game("b", 2))  # needs both: waits for a
    await wait_for(lambda: slots.waiting == 1)
    c = asyncio.create_task(game("c", 1))  # one is free, but b came first
    await wait_for(lambda: slots.waiting == 2)
    assert order == ["a"] and slots.used == 1
    release["a"].set()
    await wait_for(lambda: order == ["a", "b"])
    assert slots.used == 2 and slots.waiting == 1
    release["b"].set()
    release["c"].set()
    await asyncio.gather(a, b, c)
    assert order == ["a", "b", "c"] and slots.used == 0 and slots.peak == 2


async def test_a_waiting_game_that_is_cancelled_gives_its_place_up() -> None:
    slots = HostedSlots(1)
    hold = asyncio.Event()

    async def holder() -> None:
        async with slots.hold():
            await hold.wait()

    async def waiter() -> None:
        async with slots.hold():
            pass

    first = asyncio.create_task(holder())
    await wait_for(lambda: slots.used == 1)
    second = asyncio.create_task(waiter())
    await wait_for(lambda: slots.waiting == 1)
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    assert slots.waiting == 0
    hold.set()
    await first
    assert slots.used == 0
    async with slots.hold():  # nothing is lost
        assert slots.used == 1


async def test_a_game_asking_for_more_slots_than_there_are_is_refused() -> None:
    with pytest.raises(ValueError, match="1 to 2"):
        async with HostedSlots(2).hold(3):
            pass
    with pytest.raises(ValueError, match="at least 1"):
        HostedSlots(0)


async def test_a_count_that_grows_lets_games_in_and_one_that_shrinks_holds_what_it_gave() -> None:
    """`resize` (a cluster's count follows its runners): grown, the waiting games come in
    at once; shrunk, the held slots stay held and the queue waits; a game that asked for
    more than the new capacity as it waited is let in alone once the others gave theirs
    back."""
    slots = HostedSlots(1)
    held: list[str] = []
    release = {name: asyncio.Event() for name in "abcd"}

    async def game(name: str, count: int) -> None:
        async with slots.hold(count):
            held.append(name)
            await release[name].wait()
            held.remove(name)

    a = asyncio.create_task(game("a", 1))
    b = asyncio.create_task(game("b", 1))
    await wait_for(lambda: held == ["a"] and slots.waiting == 1)
    slots.resize(4)  # a second runner with as many: b comes in
    await wait_for(lambda: held == ["a", "b"])
    c = asyncio.create_task(game("c", 2))
    await wait_for(lambda: held == ["a", "b", "c"])
    assert slots.used == 4
    d = asyncio.create_task(game("d", 2))
    await wait_for(lambda: slots.waiting == 1)
    slots.resize(1)  # the runner went: what is held stays held, d asked for more than 1
    for name in "abc":
        release[name].set()
        assert "d" not in held
        await wait_for(lambda name=name: name not in held)
    await wait_for(lambda: held == ["d"])
    assert slots.used == 2  # alone, all it asked for
    release["d"].set()
    await asyncio.gather(a, b, c, d)
    assert slots.used == 0 and slots.peak == 4
    with pytest.raises(ValueError):
        slots.resize(0)
