"""Continuous matchmaking: pair the available bots, two games per pairing.

Every `LadderConfig.interval` seconds the ladder lists the bots that play its game and
have room for two more games (connected external bots, and house bots), shuffles them
with its own generator and pairs them off. A pairing plays two games with the seats
swapped, each with its own secret dice: the ladder's bots are strangers, and two games
on the same dice would tell each of them the other game's rolls (and the first
``game_over`` would reveal the second game's seed). Paired dice stay where the bots
are trusted: in-process tournaments, and games an operator requests with a seed.
Pairings that already met least often are preferred, so a small field still mixes.

The same two accounts are paired at most `LadderConfig.pairings_per_hour` times in any
60 minutes (`PAIR_WINDOW`): a bot that resigns every game hands its partner at most
that many pairings' wins an hour, and a ring of colluding accounts no more per pair.
Pairings with a house bot are not counted: a house bot plays every game out and
belongs to no account, so nobody gains rating from it but by beating it, and a small
field (two bots and a house bot) still gets games while its two bots wait for their
pair's next turn. The pairings of the last hour are read back from the database when
the server starts (`recent`), so a restart does not reset the count. The ladder is
given the time (`tick`): it reads no clock of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from arena.names import HOUSE_PREFIX, is_guest, is_house
from arena.server.config import LadderConfig
from arena.server.session import Session

__all__ = ["PAIR_WINDOW", "Ladder", "ladder_candidates"]

PAIR_WINDOW = 3600.0
"""Seconds over which `LadderConfig.pairings_per_hour` counts a pair's pairings."""


def ladder_candidates(config: LadderConfig, sessions: Mapping[str, Session],
                      bot_games: Mapping[str, set[str]]) -> list[str]:
    """The players with room for a pairing's two games: connected bots (not guests,
    not paused: `Session.seeking`) that play the ladder's game, and the ladder's house bots (``house:SPEC``) when
    there is somebody for them to play."""
    room = config.max_games - 2
    names = [
        name for name, session in sessions.items()
        if session.role == "bot" and not is_guest(name)
        and session.seeking
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
        recent: earlier pairings as ``(time, a, b)`` (seconds since the epoch), counted
            against `LadderConfig.pairings_per_hour` (those of the last hour matter).
    """

    def __init__(
        self,
        config: LadderConfig,
        available: Callable[[], Sequence[str]],
        start_pair: Callable[[str, str], Any],
        recent: Iterable[tuple[float, str, str]] = (),
    ) -> None:
        self.config = config
        self._available = available
        self._start_pair = start_pair
        self._rng = random.Random(config.seed)
        self._met: Counter[frozenset[str]] = Counter()
        self._paired_at: dict[frozenset[str], deque[float]] = {}
        """Per pair of accounts, the times of its pairings in the last `PAIR_WINDOW`."""
        self._next_sweep = 0.0
        self._task: asyncio.Task[None] | None = None
        self.pairings = 0
        for at, first, second in sorted(recent):
            self._count(frozenset((first, second)), at)

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
            self.tick(time.time())
            await asyncio.sleep(self.config.interval)

    def tick(self, now: float) -> int:
        """Make the pairings possible at `now` (seconds since the epoch); return how
        many were made."""
        if now >= self._next_sweep:
            self._sweep(now)
        names = list(self._available())
        self._rng.shuffle(names)
        made = 0
        while len(names) >= 2:
            first = names.pop(0)
            candidates = [other for other in names if self._may_pair(first, other, now)]
            if not candidates:
                continue
            second = min(candidates, key=lambda other: self._met[frozenset((first, other))])
            names.remove(second)
            pair = frozenset((first, second))
            self._met[pair] += 1
            self._count(pair, now)
            self._start_pair(first, second)
            self.pairings += 1
            made += 1
        return made

    def may_pair(self, first: str, second: str, now: float) -> bool:
        """Whether the pair cap lets `first` and `second` be paired at `now` (a rated
        challenge asks too: it counts as a pairing)."""
        return self._may_pair(first, second, now)

    def paired(self, first: str, second: str, now: float) -> None:
        """Count a pairing made outside the ladder's loop (an accepted rated challenge)."""
        pair = frozenset((first, second))
        self._met[pair] += 1
        self._count(pair, now)

    def _may_pair(self, first: str, second: str, now: float) -> bool:
        """Whether `first` and `second` may be paired at `now`: two house bots only
        with `house_vs_house`; two accounts below their `pairings_per_hour`."""
        if is_house(first) or is_house(second):
            return self.config.house_vs_house or not (is_house(first) and is_house(second))
        limit = self.config.pairings_per_hour
        if limit <= 0:
            return True
        times = self._paired_at.get(frozenset((first, second)))
        if times is None:
            return True
        while times and times[0] <= now - PAIR_WINDOW:
            times.popleft()
        return len(times) < limit

    def _count(self, pair: frozenset[str], at: float) -> None:
        """Remember a pairing of two accounts (house bots' pairings are not limited)."""
        if len(pair) == 2 and not any(is_house(name) for name in pair):
            self._paired_at.setdefault(pair, deque()).append(at)

    def _sweep(self, now: float) -> None:
        """Forget the pairs that have not been paired within `PAIR_WINDOW` (once a
        minute), so the memory follows the pairs of the last hour only."""
        self._next_sweep = now + 60.0
        for pair in [pair for pair, times in self._paired_at.items()
                     if not times or times[-1] <= now - PAIR_WINDOW]:
            del self._paired_at[pair]
