"""Disconnect grace: a bot that drops out of its games has a while to come back.

When a bot playing live games disconnects, each game's own grace period
(`TimeControl.grace_ms`) starts: one timer per distinct period. A timer that expires
before the bot is back forfeits the games with that period (`Termination.DISCONNECT`);
coming back, or running out of live games, cancels them. The bot's clock runs on
meanwhile, so a grace period only saves games whose clocks allow it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection

from arena.game import Termination
from arena.server.live import LiveGame

__all__ = ["GraceTimers"]


class GraceTimers:
    """The grace timers of the disconnected bots of one server.

    Args:
        games_of: the live games a player plays in.
        connected: the connected bots' names (a bot back in time is in it).
    """

    def __init__(self, games_of: Callable[[str], list[LiveGame]],
                 connected: Collection[str]) -> None:
        self._games_of = games_of
        self._connected = connected
        self._timers: dict[str, list[asyncio.TimerHandle]] = {}
        """Per disconnected bot, a forfeit timer per game grace period it plays under."""

    def start(self, name: str) -> None:
        """`name` has gone: start a timer per grace period of the games it plays."""
        games = self._games_of(name)
        if not games:
            return
        loop = asyncio.get_running_loop()
        graces = {live.control.grace_ms for live in games}
        self._timers[name] = [loop.call_later(grace / 1000, self._expired, name, grace)
                              for grace in sorted(graces)]

    def cancel(self, name: str) -> None:
        """`name` is back, or has no live game left: no forfeit for it."""
        for handle in self._timers.pop(name, ()):
            handle.cancel()

    def cancel_all(self) -> None:
        for name in list(self._timers):
            self.cancel(name)

    def _expired(self, name: str, grace_ms: int) -> None:
        """`name` has been away for `grace_ms`: it forfeits the games with that grace."""
        if name in self._connected:
            return
        for live in self._games_of(name):
            if live.control.grace_ms == grace_ms:
                live.forfeit_player(name, Termination.DISCONNECT,
                                    f"{name} stayed disconnected longer than {grace_ms} ms")
