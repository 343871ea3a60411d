"""The bots connected to the other gateways, as their presence says (docs/cluster.md).

A gateway follows the other gateways' `Presence` (their bots online and gone, put in
step by a snapshot when it falls out: `arena.cluster.follower`) for two reasons:

* **Connected anywhere** (`connected`): a bot connected to any gateway is connected to
  the arena, for the web's checks (a page a load balancer sends to one gateway while
  the bot is on another).
* **The author's own program first** (`own_program`): a program a bot's author connects
  under its name takes precedence over its hosted one (`arena.server.hosted`), so the
  gateway that runs a hosted bot starts its program only while no program of
  its author is connected anywhere. Hosted connections do not count for that.
* **Where a bot went** (`gateway_of`): a host's message for a bot that left this
  gateway for another, sent here before the host heard of the move, is forwarded there
  (`arena.cluster.gateway.GatewayRelay`).

A gateway that falls silent (dead) has its bots forgotten (`silent`: the follower
decides when, from the heartbeat interval).
"""

from __future__ import annotations

__all__ = ["Elsewhere"]


class Elsewhere:
    """The connections of bots on the other gateways."""

    def __init__(self) -> None:
        self.conns: dict[str, dict[str, tuple[str, bool]]] = {}
        """Per gateway: connection -> its bot, and whether it is the bot's hosted program."""
        self.names: dict[str, int] = {}
        """Each bot's connections on the other gateways."""
        self.own: dict[str, int] = {}
        """Each bot's connections of its author's own program (not hosted ones)."""
        self.at: dict[str, str] = {}
        """The gateway of each bot's connection heard of last (kept while it has one)."""

    def online(self, gateway: str, conn: str, name: str, hosted: bool = False) -> None:
        theirs = self.conns.setdefault(gateway, {})
        if theirs.get(conn) != (name, hosted):
            self.gone(gateway, conn)
            theirs[conn] = (name, hosted)
            _count(self.names, name, +1)
            self.at[name] = gateway
            if not hosted:
                _count(self.own, name, +1)

    def gone(self, gateway: str, conn: str) -> None:
        known = self.conns.get(gateway, {}).pop(conn, None)
        if known is not None:
            name, hosted = known
            _count(self.names, name, -1)
            if name not in self.names:
                self.at.pop(name, None)
            if not hosted:
                _count(self.own, name, -1)

    def silent(self, gateway: str) -> None:
        """`gateway` said nothing for too long: its bots are gone."""
        for conn in list(self.conns.get(gateway, ())):
            self.gone(gateway, conn)
        self.conns.pop(gateway, None)

    def connected(self, name: str) -> bool:
        """Whether `name` is connected to another gateway."""
        return name in self.names

    def gateway_of(self, name: str) -> str | None:
        """The other gateway `name` connected to last, if it is connected to one."""
        return self.at.get(name)

    def own_program(self, name: str) -> bool:
        """Whether a program of `name`'s author (not its hosted one) is connected to
        another gateway."""
        return name in self.own


def _count(counts: dict[str, int], name: str, change: int) -> None:
    left = counts.get(name, 0) + change
    if left > 0:
        counts[name] = left
    else:
        counts.pop(name, None)
