"""The arena as a cluster (docs/cluster.md): gateways and hosts over the bus.

`start_role` gives a started `ArenaServer` its part: a gateway's `GatewayRelay` (its
clients relay their bots to the hosts) or a host's `HostSide` (its games play bots
connected to the gateways; the ladders pair while it leads). ``--role all`` needs
neither: one process, no bus hop. The composition root (`arena.app`) calls it.
"""

from __future__ import annotations

import functools

from arena.bus import Bus, open_bus
from arena.cluster.gateway import GatewayRelay
from arena.cluster.host import HostSide, RemoteSession
from arena.cluster.slots import SlotKeeper
from arena.server import ArenaServer
from arena.storage.leader import Leader

__all__ = ["ClusterRole", "GatewayRelay", "HostSide", "RemoteSession", "start_role"]


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
            if server.uploads is not None:  # --hosted-dir: one gateway at a time runs them
                assert server.hosted_slots is not None
                leader = Leader(config.db, "hosted")
                # while it runs them, it keeps the hosted slots of every host's games
                keeper = SlotKeeper(bus, server.hosted_slots, server.host,
                                    interval=config.presence_interval)
                server.hosted_leader = lambda work: leader.run(
                    functools.partial(keeper.lead, work))
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
