"""Which bots' own programs are connected to the other gateways (docs/cluster.md,
"Hosted bots in the cluster").

A program a bot's author connects under its name takes precedence over its hosted one
(`arena.server.hosted`): the runner starts the hosted program only while the bot is not
taken. In one process the sessions say it; in the cluster the author's program may be
connected to another gateway, so the gateway that runs the hosted bots follows the
others' presence (`Presence`: their bots online, gone, and every few seconds all of
them). A connection not listed again for `SILENT_ROUNDS` snapshot intervals is taken for
gone (its gateway died, or its ``gone`` was missed).
"""

from __future__ import annotations

from arena.cluster.messages import Presence

__all__ = ["SILENT_ROUNDS", "Elsewhere"]

SILENT_ROUNDS = 3
"""Snapshot intervals a connection may go unlisted before it is taken for gone."""


class Elsewhere:
    """The connections of bots' own programs (not hosted ones) on the other gateways.

    Args:
        gateway: this gateway's name (its own presence is not followed here).
        interval: seconds between a gateway's snapshots.
    """

    def __init__(self, gateway: str, interval: float) -> None:
        self.gateway = gateway
        self.expiry = SILENT_ROUNDS * interval
        self._seen: dict[str, tuple[str, float]] = {}
        """Each connection -> its bot's name, and when it was last listed."""
        self._bots: dict[str, set[str]] = {}
        """Each bot -> its connections."""

    def heard(self, news: Presence, now: float) -> None:
        """A gateway's news (`now` on the loop's clock)."""
        if news.gateway == self.gateway:
            return
        for conn in news.gone:
            self._drop(conn)
        for presence in news.online:
            if presence.hosted:
                continue
            self._seen[presence.conn] = (presence.name, now)
            self._bots.setdefault(presence.name, set()).add(presence.conn)

    def connected(self, name: str, now: float) -> bool:
        """Whether a program of `name`'s author is connected to another gateway."""
        return any(now - self._seen[conn][1] <= self.expiry
                   for conn in self._bots.get(name, ()))

    def prune(self, now: float) -> None:
        """Forget the connections unlisted for too long."""
        for conn in [conn for conn, (_, seen) in self._seen.items() if now - seen > self.expiry]:
            self._drop(conn)

    def _drop(self, conn: str) -> None:
        seen = self._seen.pop(conn, None)
        if seen is None:
            return
        conns = self._bots.get(seen[0])
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self._bots[seen[0]]
