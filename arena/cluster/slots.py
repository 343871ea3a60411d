"""The hosted slots of a cluster (docs/cluster.md, "Hosted bots in the cluster"): one
count, kept by one gateway (the ``hosted`` leader).

The programs run on the gateways with ``--hosted-dir`` (each a share of the bots:
`arena.storage.shards`), while their games are played on every host: so one count of
`arena.sandbox.slots.HostedSlots` bounds them, kept by the gateway leading ``hosted``
(`SlotKeeper`: its ``--hosted-slots`` for each gateway running hosted bots, pooled), and
a host's games ask it for their slots (`RemoteSlots`, what a host's `Games` hold instead
of a `HostedSlots` of their own) before their clocks start.

What goes over the bus is state, not requests: a host publishes what its games hold and
what they wait for (`SlotsHeld` on ``hosted.slots``) at every change and every
`interval`; the keeper queues the waiting ones first come, first served in its
`HostedSlots` (a game needing two slots is never overtaken for ever), and gives a host's
games their slots (`SlotsGiven` on ``hosted.slots.given.<host>``). So a message lost is
made good by the next, and:

* a slot is given back when the host no longer lists it (its game ended, or ended while
  it waited: a slot given meanwhile comes back at once);
* a host silent for `SILENT_ROUNDS` intervals (dead) is taken to hold nothing;
* a gateway that starts leading asks every host what it holds (``hosted.slots.ask``),
  counts the slots its predecessor gave as held (`HostedSlots.adopt`), and gives none
  for its first `interval`, while the hosts answer;
* a game a host takes over from a dead one asks for its slots again (as a resumed game
  does in one process); until the dead host is taken for gone its slots count twice
  (the count errs on the safe side).

Budget: at most `MAX_WANTING` games of a host wait for slots at once; one more is not
started (`SlotsFull`: the game is aborted with that reason), so a host's `SlotsHeld`
stays well under the bus's message size.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from arena.bus import Bus, Message, Subscription
from arena.cluster.messages import (
    SLOTS,
    SLOTS_ASK,
    SlotsGiven,
    SlotsHeld,
    decode,
    encode,
    slots_given,
)
from arena.cluster.sender import Sender
from arena.sandbox.slots import HostedSlots

__all__ = ["MAX_WANTING", "SILENT_ROUNDS", "RemoteSlots", "SlotKeeper", "SlotsFull"]

log = logging.getLogger("arena.cluster")

MAX_WANTING = 10_000
"""Games of one host waiting for hosted slots at once, at most (each about 20 bytes of
its `SlotsHeld`)."""

SILENT_ROUNDS = 3
"""Intervals a host may stay silent before the keeper takes it to hold no slot."""


class SlotsFull(RuntimeError):
    """Too many games of this host wait for hosted slots already (`MAX_WANTING`)."""


class RemoteSlots:
    """A host's hosted slots, given by the gateway keeping the count (module
    docstring). What `Games` reads of a `HostedSlots`: `hold`, `capacity` (the keeper
    holds a game to its own capacity: a game with more hosted seats than it has slots
    holds them all), `used`, `waiting`, `peak`."""

    capacity = 1 << 30

    def __init__(self, bus: Bus, host: str, *, interval: float) -> None:
        self.bus = bus
        self.host = host
        self.interval = interval
        self.sender = Sender(bus)
        self.used = 0
        self.peak = 0
        self._holding: dict[str, int] = {}
        self._wanting: dict[str, tuple[int, asyncio.Future[None]]] = {}
        self._subscriptions: list[Subscription] = []
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """Games of this host waiting for slots."""
        return len(self._wanting)

    async def start(self) -> None:
        self._subscriptions = [await self.bus.subscribe(slots_given(self.host), self._given),
                               await self.bus.subscribe(SLOTS_ASK, self._asked)]
        self._task = asyncio.get_running_loop().create_task(self._heartbeat(),
                                                            name="hosted slots")
        self._tell()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._tell()  # what is still held (the keeper forgets it with the host's silence)
        await self.sender.close()
        for subscription in self._subscriptions:
            await subscription.close()

    @contextlib.asynccontextmanager
    async def hold(self, count: int = 1) -> AsyncIterator[None]:
        """Hold `count` slots of the keeper's for the body, waiting for them in its
        queue.

        Raises:
            SlotsFull: `MAX_WANTING` games of this host wait already.
        """
        if count < 1:
            raise ValueError(f"a game holds at least one hosted slot, not {count}")
        if len(self._wanting) >= MAX_WANTING:
            raise SlotsFull(f"{MAX_WANTING} games of this host wait for hosted slots "
                            "already: this one is not started")
        token = uuid.uuid4().hex[:16]
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._wanting[token] = (count, future)
        self._tell()
        try:
            await future
        except BaseException:  # its game ended while it waited: the keeper hears at once
            del self._wanting[token]
            self._tell()
            raise
        del self._wanting[token]
        self._holding[token] = count
        self.used += count
        self.peak = max(self.peak, self.used)
        self._tell()
        try:
            yield
        finally:
            del self._holding[token]
            self.used -= count
            self._tell()

    def _tell(self) -> None:
        """Publish what this host's games hold and want (in order after what was
        published before)."""
        self.sender.send(SLOTS, encode(SlotsHeld(
            self.host, dict(self._holding),
            tuple((token, count) for token, (count, _) in self._wanting.items()))))

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self._tell()

    async def _asked(self, message: Message) -> None:
        del message
        self._tell()

    async def _given(self, message: Message) -> None:
        given = decode(SlotsGiven, message.data)
        for token in given.tokens:
            wanted = self._wanting.get(token)
            if wanted is not None and not wanted[1].done():
                wanted[1].set_result(None)  # its `hold` tells the keeper it holds them
        # a token no longer wanted (its game ended meanwhile) was told as gone already:
        # the keeper took its slots back


@dataclass
class _Hold:
    count: int
    task: asyncio.Task[None] | None = None
    """Waiting for the slots, then holding them (None: not queued yet, or adopted)."""
    given: bool = False
    """Given by this keeper (its task holds them)."""
    adopted: bool = False
    """Given by the keeper before this one: counted by `HostedSlots.adopt`."""


@dataclass
class _Host:
    heard: float
    holds: dict[str, _Hold] = field(default_factory=dict)


class SlotKeeper:
    """The hosted slots of the cluster, kept by a gateway while it leads ``hosted``
    (`lead`). `slots`: its own `HostedSlots` (``--hosted-slots``, resized with the
    gateways running hosted bots: `arena.cluster.share_hosted`)."""

    def __init__(self, bus: Bus, slots: HostedSlots, runner: str, *, interval: float) -> None:
        self.bus = bus
        self.slots = slots
        self.runner = runner
        self.interval = interval
        self.sender: Sender | None = None
        self.hosts: dict[str, _Host] = {}
        self.asked = 0
        """Games that asked this keeper for slots so far."""
        self._ready = False

    @property
    def ready(self) -> bool:
        """Whether it gives slots (from its first interval of leading on)."""
        return self._ready

    async def lead(self, work: Callable[[], Awaitable[None]]) -> None:
        """Keep the count while `work` (running the programs) runs; until cancelled."""
        self.sender = Sender(self.bus)
        subscription = await self.bus.subscribe(SLOTS, self._held)
        loop = asyncio.get_running_loop()
        watch = loop.create_task(self._watch(), name="hosted slots keeper")
        try:
            await self.bus.publish(SLOTS_ASK, b"")
            await work()
        finally:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
            await subscription.close()
            for name in list(self.hosts):
                self._forget(name)
            self._ready = False
            await self.sender.close()

    async def _watch(self) -> None:
        """Give nothing for one interval (the hosts tell what they hold), then forget
        the hosts that fall silent."""
        loop = asyncio.get_running_loop()
        await asyncio.sleep(self.interval)
        self._ready = True
        for name in list(self.hosts):
            self._start_waiting(name)
        while True:
            await asyncio.sleep(self.interval)
            now = loop.time()
            for name, host in list(self.hosts.items()):
                if now - host.heard > SILENT_ROUNDS * self.interval:
                    log.warning("host %s is silent: its hosted slots are given back", name)
                    self._forget(name)

    def _forget(self, name: str) -> None:
        host = self.hosts.pop(name)
        for hold in host.holds.values():
            self._drop(hold)

    def _drop(self, hold: _Hold) -> None:
        if hold.adopted:
            self.slots.give_back(hold.count)
        elif hold.task is not None:
            hold.task.cancel()  # waiting or holding: `HostedSlots.hold` gives them back

    async def _held(self, message: Message) -> None:
        """A host's `SlotsHeld`: adopt what it holds that this keeper did not give,
        queue what it wants, take back what it no longer lists."""
        said = decode(SlotsHeld, message.data)
        now = asyncio.get_running_loop().time()
        host = self.hosts.get(said.host)
        if host is None:
            host = self.hosts[said.host] = _Host(now)
        host.heard = now
        wanting = dict(said.wanting)
        for token, hold in list(host.holds.items()):
            if token in said.holding:
                if not hold.given and not hold.adopted:  # the keeper before gave it
                    if hold.task is not None:
                        hold.task.cancel()
                    self.slots.adopt(hold.count)
                    hold.task, hold.adopted = None, True
            elif token not in wanting:
                del host.holds[token]
                self._drop(hold)
            elif hold.given:  # given, not heard of yet: again (a message may be lost)
                self._give(said.host, token)
        for token, count in said.holding.items():
            if token not in host.holds:  # given by the keeper before this one
                count = max(1, count)
                self.slots.adopt(count)
                host.holds[token] = _Hold(count, adopted=True)
        for token, count in said.wanting:
            if token not in host.holds:
                host.holds[token] = _Hold(max(1, count))
                self.asked += 1
        if self._ready:
            self._start_waiting(said.host)

    def _start_waiting(self, name: str) -> None:
        """Queue the host's new wants, in the order it asked."""
        host = self.hosts[name]
        for token, hold in host.holds.items():
            if hold.task is None and not hold.adopted:
                hold.task = asyncio.get_running_loop().create_task(
                    self._hold(name, token, hold), name=f"hosted slots of {name}")

    async def _hold(self, name: str, token: str, hold: _Hold) -> None:
        async with self.slots.hold(min(hold.count, self.slots.capacity)):
            hold.given = True
            self._give(name, token)
            await asyncio.Event().wait()  # until cancelled: given back

    def _give(self, name: str, token: str) -> None:
        if self.sender is not None:
            self.sender.send(slots_given(name), encode(SlotsGiven(self.runner, (token,))))
