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

Two bots of one person (`arena.storage.people`: ``owner_of`` names each bot's person)
are never paired: the ladder's games are rated, and a person's bots feeding each other
rating is what the pair limit is against. Each is paired with somebody else's bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from arena.errors import ArenaError, SettingsError
from arena.limits import check_settings
from arena.names import HOUSE_PREFIX, is_guest, is_house
from arena.registry import Registry
from arena.server.config import LadderConfig, ServerConfig
from arena.server.session import Session
from arena.starts import draw_settings

__all__ = ["LADDER_NAME", "PAIR_WINDOW", "Ladder", "check_ladders", "ladder_candidates"]

PAIR_WINDOW = 3600.0
"""Seconds over which `LadderConfig.pairings_per_hour` counts a pair's pairings."""


def ladder_candidates(config: LadderConfig, sessions: Mapping[str, Session],
                      bot_games: Mapping[str, Collection[str]]) -> list[str]:
    """The players with room for a pairing's two games: connected bots (not guests,
    not paused on this ladder: `Session.seeks`) that play the ladder's game and did not
    leave the ladder out of their hello's ``ladders``, and the ladder's house bots
    (``house:SPEC``) when there is somebody for them to play. A bot's room counts its
    games on every ladder."""
    room = config.max_games - 2
    names = [
        name for name, session in sessions.items()
        if session.role == "bot" and not is_guest(name)
        and session.seeks(config.name)
        and (not session.games_played or config.game in session.games_played)
        and (not session.ladders or config.name in session.ladders)
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
        owner_of: the person a connected bot belongs to, or None; two bots of one
            person are never paired (required: no ladder forgets the check).
    """

    def __init__(
        self,
        config: LadderConfig,
        available: Callable[[], Sequence[str]],
        start_pair: Callable[[str, str], Any],
        recent: Iterable[tuple[float, str, str]] = (),
        *,
        owner_of: Callable[[str], str | None],
    ) -> None:
        self.config = config
        self._owner_of = owner_of
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
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"ladder {self.config.name}")

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

    def recount(self, recent: Iterable[tuple[float, str, str]]) -> None:
        """Count the pair cap from `recent` pairings again, forgetting those counted so
        far (a host that begins to lead: the former leader paired meanwhile)."""
        self._paired_at.clear()
        for at, first, second in sorted(recent):
            self._count(frozenset((first, second)), at)

    def may_pair(self, first: str, second: str, now: float) -> bool:
        """Whether the pair cap and their owners let `first` and `second` be paired at
        `now` (a rated challenge asks too: it counts as a pairing)."""
        return self._may_pair(first, second, now)

    def paired(self, first: str, second: str, now: float) -> None:
        """Count a pairing made outside the ladder's loop (an accepted rated challenge)."""
        pair = frozenset((first, second))
        self._met[pair] += 1
        self._count(pair, now)

    def _may_pair(self, first: str, second: str, now: float) -> bool:
        """Whether `first` and `second` may be paired at `now`: two house bots only
        with `house_vs_house`; two accounts below their `pairings_per_hour`, and not
        of the same person."""
        if is_house(first) or is_house(second):
            return self.config.house_vs_house or not (is_house(first) and is_house(second))
        owner = self._owner_of(first)
        if owner is not None and owner == self._owner_of(second):
            return False
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


LADDER_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A ladder's name: what ``hello.ladders`` and ``?ladder=`` carry (at most 64 characters)."""


def check_ladders(registry: Registry, config: ServerConfig) -> None:
    """Refuse ladders that could never play: two of one name, settings (or, for a
    ladder with a generator, a start drawn from a fixed seed) that are bad, beyond the
    limits or not for two players.

    Raises:
        SettingsError: what is wrong, naming the ladder.
    """
    names: set[str] = set()
    for ladder in config.all_ladders:
        if not LADDER_NAME.fullmatch(ladder.name):
            raise SettingsError(f"a ladder's name is 1-64 letters, digits, '-', '_' or '.', "
                                f"not {ladder.name!r}")
        if ladder.name in names:
            raise SettingsError(f"two ladders are named {ladder.name!r}: give each its own name")
        names.add(ladder.name)
        settings: Mapping[str, Any] = ladder.settings
        try:
            if ladder.generator is not None:
                settings = draw_settings(registry.game_class(ladder.game), ladder.generator, 0)
            rules = registry.load_game(ladder.game, settings)
            check_settings(rules, "standard", config.settings_limits)
        except ArenaError as error:
            raise SettingsError(f"ladder {ladder.name!r}: {error}") from None
        if rules.num_players() != 2:
            raise SettingsError(
                f"ladder {ladder.name!r}: a ladder pairs two bots, but {ladder.game} with these "
                f"settings is a {rules.num_players()}-player game: give settings for two players")
