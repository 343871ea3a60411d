"""Disconnect grace: a bot that drops out of its games has a while to come back.

When a bot playing live games disconnects, each game's own grace period
(`TimeControl.grace_ms`) starts: one per distinct period. A period that runs out
before the bot is back forfeits the games with that period (`Termination.DISCONNECT`);
coming back, or running out of live games, cancels them. The bot's clock runs on
meanwhile, so a grace period only saves games whose clocks allow it.

`GraceTimers` keeps the periods without I/O, like `arena.server.live`: it is given the
time, says which periods ran out (`expired`) and when it must next be asked
(`wake_at`). The server's live games (`arena.server.games`) hold the one event-loop
timer that asks it, and forfeit the games.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Collection

__all__ = ["GraceTimers"]


class GraceTimers:
    """The grace periods of the disconnected bots of one server (see the module docstring)."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, str, int]] = []
        """A heap of (when, absence, name, grace_ms): a period running out at `when`
        (those of a bot back since, or cancelled, stay until they come up, and are skipped)."""
        self._away: dict[str, int] = {}
        """The disconnected bots waited for, each with the number of its absence."""
        self._absences = itertools.count()

    def start(self, name: str, graces: Collection[int], now: float) -> None:
        """`name` left at `now`, playing games with these grace periods (milliseconds)."""
        if not graces:
            return
        absence = self._away[name] = next(self._absences)
        for grace_ms in set(graces):
            heapq.heappush(self._due, (now + grace_ms / 1000, absence, name, grace_ms))

    def cancel(self, name: str) -> None:
        """`name` is back, or has no live game left: no forfeit for it."""
        self._away.pop(name, None)

    def cancel_all(self) -> None:
        self._away.clear()
        self._due.clear()

    @property
    def wake_at(self) -> float | None:
        """When the next period runs out (ask `expired` then), or None: none runs."""
        due, away = self._due, self._away
        while due and away.get(due[0][2]) != due[0][1]:
            heapq.heappop(due)  # cancelled: nobody waits for it
        return due[0][0] if due else None

    def expired(self, now: float) -> list[tuple[str, int]]:
        """The periods run out by `now`, as (bot, grace_ms): that bot forfeits the games
        it plays with that grace period. Each is told once."""
        out = []
        due, away = self._due, self._away
        while due and due[0][0] <= now:
            _, absence, name, grace_ms = heapq.heappop(due)
            if away.get(name) == absence:
                out.append((name, grace_ms))
        return out
