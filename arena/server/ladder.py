"""Continuous matchmaking: pair the available bots, two games per pairing.

Every `LadderConfig.interval` seconds the ladder lists the bots that play its game and
have room for two more games (connected external bots, and house bots), shuffles them
with its own generator and pairs them off. A pairing plays two games with the seats
swapped, each with its own secret dice: the ladder's bots are strangers, and two games
on the same dice would tell each of them the other game's rolls (and the first
``game_over`` would reveal the second game's seed). Paired dice stay where the bots
are trusted: in-process tournaments, and games an operator requests with a seed.
Pairings that already met least often are preferred, so a small field still mixes.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.names import HOUSE_PREFIX, is_guest
from arena.server.config import LadderConfig
from arena.server.session import Session

__all__ = ["Ladder", "ladder_candidates"]


def ladder_candidates(config: LadderConfig, sessions: Mapping[str, Session],
                      bot_games: Mapping[str, set[str]]) -> list[str]:
    """The players with room for a pairing's two games: connected bots (not guests)
    that play the ladder's game, and the ladder's house bots (``house:SPEC``) when
    there is somebody for them to play."""
    room = config.max_games - 2
    names = [
        name for name, session in sessions.items()
        if session.role == "bot" and not is_guest(name)
        and (not session.games_played or config.game in session.games_played)
        and len(bot_games.get(name, ())) <= room
    ]
    if names or config.house_vs_house:
        names += [
            HOUSE_PREFIX + spec for spec in config.house
            if len(bot_games.get(HOUSE_PREFIX + spec, ())) <= room
        ]
    return names


class Ladder:
    """The matchmaking loop of one server.

    Args:
        config: the ladder's game, settings and house bots.
        available: returns the names of the bots with room for two games (house bots
            as ``house:SPEC``).
        start_pair: starts the two games of a pairing ``(a, b)``.
    """

    def __init__(
        self,
        config: LadderConfig,
        available: Callable[[], Sequence[str]],
        start_pair: Callable[[str, str], Any],
    ) -> None:
        self.config = config
        self._available = available
        self._start_pair = start_pair
        self._rng = random.Random(config.seed)
        self._met: Counter[frozenset[str]] = Counter()
        self._task: asyncio.Task[None] | None = None
        self.pairings = 0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="ladder")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            self.tick()
            await asyncio.sleep(self.config.interval)

    def tick(self) -> int:
        """Make the pairings possible now; return how many were made."""
        names = list(self._available())
        self._rng.shuffle(names)
        made = 0
        while len(names) >= 2:
            first = names.pop(0)
            candidates = [
                other for other in names
                if self.config.house_vs_house
                or not (first.startswith("house:") and other.startswith("house:"))
            ]
            if not candidates:
                continue
            second = min(candidates, key=lambda other: self._met[frozenset((first, other))])
            names.remove(second)
            self._met[frozenset((first, second))] += 1
            self._start_pair(first, second)
            self.pairings += 1
            made += 1
        return made
