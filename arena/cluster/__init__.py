"""The arena as a cluster (docs/cluster.md): gateways and hosts over the bus.

`start_role` gives a started `ArenaServer` its part: a gateway's `GatewayRelay` (its
clients relay their bots to the hosts) or a host's `HostSide` (its games play bots
connected to the gateways; the ladders pair while it leads). ``--role all`` needs
neither: one process, no bus hop. The composition root (`arena.app`) calls it.
"""

from __future__ import annotations

import asyncio
import functools
import logging

from arena.bus import Bus, open_bus
from arena.cluster.gateway import GatewayRelay
from arena.cluster.host import HostSide, RemoteSession
from arena.cluster.slots import SlotKeeper
from arena.server import ArenaServer
from arena.server.hosted import HostedRunner
from arena.storage.leader import Leader
from arena.storage.shards import Shards, shard_of

__all__ = ["ClusterRole", "GatewayRelay", "HostSide", "RemoteSession", "share_hosted",
           "start_role"]

log = logging.getLogger("arena.cluster")


class ClusterRole:
    """A started role's bus and side; `close` ends them (after the server's shutdown)."""

    def __init__(self, bus: Bus, side: GatewayRelay | HostSide) -> None:
        self.bus = bus
        self.side = side

    async def drain(self) -> None:
        """Before the server's shutdown: a gateway tells the hosts its bots are gone
        (`GatewayRelay.drain`), a host stops pairing and taking pairings
        (`HostSide.drain`)."""
        await self.side.drain()

    async def close(self) -> None:
        try:
            await self.side.close()
        finally:
            await self.bus.close()


async def start_role(server: ArenaServer) -> ClusterRole | None:
    """Join `server` (started) to the bus as its ``config.role`` says; None for ``all``.

    Raises:
        BusFailure: the broker does not answer.
    """
    config = server.config
    if config.role == "all":
        return None
    bus = await open_bus(config.bus)
    side: GatewayRelay | HostSide
    try:
        if config.role == "gateway":
            side = GatewayRelay(bus, server.host, interval=config.presence_interval,
                                storage=server.storage, policies=server.challenges.policies)
            await side.start()
            server.clients.relay = side
            if server.uploads is not None:  # --hosted-dir: it runs a share of them
                assert server.hosted_slots is not None
                server.hosted_share = functools.partial(
                    share_hosted, Shards(config.db, "hosted"), Leader(config.db, "hosted"),
                    SlotKeeper(bus, server.hosted_slots, server.host,
                               interval=config.presence_interval))
                side.cpu_meter = server.hosted_cpu_ms
                server.taken_elsewhere = side.taken_elsewhere
                side.report_cpu(server.hosted_thinking)
        else:
            side = HostSide(server, bus, interval=config.presence_interval,
                            leader=Leader(config.db, "ladder"))
            await side.start()
    except BaseException:
        await bus.close()
        raise
    return ClusterRole(bus, side)


async def share_hosted(shards: Shards, leader: Leader, keeper: SlotKeeper,
                       runner: HostedRunner) -> None:
    """A gateway's part of the hosted bots (docs/cluster.md, "Hosted bots in the
    cluster"), until cancelled: `runner` runs the bots of the shards it holds (`Shards`,
    the share of each gateway with ``--hosted-dir``), and while it leads ``hosted`` it
    keeps the cluster's count of hosted slots (`SlotKeeper`): its own ``--hosted-slots``
    for each gateway running hosted bots."""
    each = keeper.slots.capacity

    def said() -> str:
        members = max(1, shards.members)
        return (f"hosted slots of the cluster: {keeper.slots.capacity} ({each} a gateway, "
                f"{members} gateway{'s' if members > 1 else ''} running hosted bots)")

    def counted(members: int) -> None:
        if keeper.slots.capacity == each * members:
            return
        keeper.slots.resize(each * members)
        if leader.leading:
            log.warning("the %s", said())

    async def apply(held: frozenset[int]) -> None:
        log.warning("this gateway runs the hosted bots of %d shards of %d: %s",
                    len(held), shards.shards, " ".join(map(str, sorted(held))) or "none")
        await runner.own(lambda name: shard_of(name, shards.shards) in held)

    async def keep() -> None:
        log.warning("this gateway keeps the %s", said())
        await asyncio.Event().wait()  # until the lead is lost (cancelled)

    shards.on_members = counted
    async with asyncio.TaskGroup() as group:
        group.create_task(shards.run(apply))
        group.create_task(leader.run(functools.partial(keeper.lead, keep)))
