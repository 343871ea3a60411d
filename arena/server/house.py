"""House bots in worker processes: the jobs a worker runs, and the server's side of them.

A house bot (``house:SPEC``) is a built-in bot the server plays itself. Its thinking
never runs on the event loop: every move is a job on the server's `WorkerPool`. The
job gets the game's name and settings, the bot's spec, the state as JSON and the
move's seed, which is derived from the game's seed, its id, the seat and the turn, so
a game stays reproducible whichever worker plays which move.

A worker keeps the games and the bots it built (bounded, least recently used first)
and runs a bot's ``prepare`` hook once, when it builds the bot. Building and preparing
(importing the plugins, loading tables) happen off the clock, in a job of their own
(`prepare_bot_job`), in a worker the server picks; the server remembers which workers
have which bot ready and sends the moves there (`HouseBots.worker_for`). A move job
that finds no ready bot in its worker (it was evicted, or the worker replaced)
answers ``None`` at once, and the game stops the house seat's clock while a worker
prepares it (`LiveGame` pauses it). The move itself runs on the seat's clock like
anybody's: its job's time limit is the time left, and a job still thinking when that
is up is killed with its worker, so a slow house bot only loses its own game on time.
"""

from __future__ import annotations

import functools
import json
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache

from arena.bots import Bot, prepare_bot
from arena.game import Game
from arena.registry import BUILTIN_PLUGINS, Registry, default_registry
from arena.workers import WorkerPool

__all__ = ["HouseBotKey", "HouseBots", "choose_move_job", "move_seed", "prepare_bot_job"]

GAMES_KEPT = 16
"""Games (rules bound to settings) a worker keeps built."""
BOTS_KEPT = 32
"""Prepared bots a worker keeps."""


@dataclass(frozen=True)
class HouseBotKey:
    """Which bot, for which game: what a worker needs to build it (and its cache key)."""

    plugins: tuple[str, ...]
    entry_points: bool
    game: str
    settings: str
    """The game's settings as canonical JSON."""
    spec: str


def move_seed(game_seed: int | None, game_id: str, seat: int, turn: int) -> str:
    """The seed of a house bot's generator for one move (reproducible, per game)."""
    return f"{game_seed}:{game_id}:{seat}:{turn}"


# -- in the worker ----------------------------------------------------------------------

_GAMES: LRUCache[tuple[tuple[str, ...], bool, str, str], Game[Any, Any]] = LRUCache(GAMES_KEPT)
_BOTS: LRUCache[HouseBotKey, tuple[Game[Any, Any], Bot]] = LRUCache(BOTS_KEPT)


@functools.lru_cache(maxsize=4)
def _registry(plugins: tuple[str, ...], entry_points: bool) -> Registry:
    if plugins == BUILTIN_PLUGINS and entry_points:
        return default_registry()
    return Registry(plugins, entry_points=entry_points)


def _game(key: HouseBotKey) -> Game[Any, Any]:
    game_key = (key.plugins, key.entry_points, key.game, key.settings)
    game = _GAMES.get(game_key)
    if game is None:
        registry = _registry(key.plugins, key.entry_points)
        game = _GAMES[game_key] = registry.load_game(key.game, json.loads(key.settings))
    return game


def prepare_bot_job(key: HouseBotKey) -> float:
    """Worker job: build the bot and run its ``prepare`` hook, unless this worker has it
    already; the seconds that took."""
    if key in _BOTS:
        _BOTS[key]
        return 0.0
    started = time.perf_counter()
    game = _game(key)
    bot = _registry(key.plugins, key.entry_points).make_bot(game, key.spec, allow_exec=False)
    prepare_bot(bot, game)
    _BOTS[key] = (game, bot)
    return time.perf_counter() - started


def choose_move_job(key: HouseBotKey, state: Mapping[str, Any], seed: str) -> str | None:
    """Worker job: the bot's move string, or None if this worker has no ready bot (the
    server then runs `prepare_bot_job` off the clock and asks again)."""
    ready = _BOTS.get(key)
    if ready is None:
        return None
    game, bot = ready
    move = bot.choose_move(game, game.state_from_json(state), random.Random(seed))
    return move if isinstance(move, str) else game.format_move(move)


# -- in the server ----------------------------------------------------------------------


class HouseBots:
    """The server's side: house bots' jobs on its worker pool.

    Args:
        pool: the server's worker pool.
        registry: the server's registry (workers rebuild it from its plugin list).
        prepare_timeout: seconds a bot may take to be built and prepared.
    """

    def __init__(self, pool: WorkerPool, registry: Registry, prepare_timeout: float) -> None:
        self.pool = pool
        self.registry = registry
        self.prepare_timeout = prepare_timeout
        self._ready: LRUCache[HouseBotKey, frozenset[int]] = LRUCache(1024)
        """Per bot, the workers that prepared it (a hint: a worker's answer decides)."""

    def key(self, game: Game[Any, Any], spec: str) -> HouseBotKey:
        settings = json.dumps(game.settings(), sort_keys=True, separators=(",", ":"))
        return HouseBotKey(self.registry.plugins, self.registry.entry_points, game.type.name,
                           settings, spec)

    def worker_for(self, key: HouseBotKey) -> int | None:
        """The least loaded worker that has the bot ready, or None if none has, or if
        those that have are busy while another worker is idle (prepare it there)."""
        pool = self.pool
        ready = self._ready.get(key)
        if not ready:
            return None
        worker = pool.least_loaded(ready)
        if pool.load(worker) and not pool.load(pool.least_loaded()):
            return None
        return worker

    async def prepare(self, key: HouseBotKey, worker: int | None = None) -> int:
        """Build and prepare the bot in `worker` (default: the least loaded); the
        worker. `JobFailed` if it cannot."""
        worker = self.pool.least_loaded() if worker is None else worker
        await self.pool.run(prepare_bot_job, key, timeout=self.prepare_timeout, worker=worker)
        self._ready[key] = self._ready.get(key, frozenset()) | {worker}
        return worker

    async def choose(self, key: HouseBotKey, state: Mapping[str, Any], seed: str, *,
                     worker: int, timeout: float) -> str | None:
        """The bot's move, thought in `worker` within `timeout` seconds (None: the bot
        is not ready there).

        Raises:
            JobFailed: the bot overran `timeout` (its worker was killed), ran out of
                memory or failed.
        """
        move = await self.pool.run(choose_move_job, key, dict(state), seed, timeout=timeout,
                                   worker=worker)
        if move is None:
            self._ready[key] = self._ready.get(key, frozenset()) - {worker}
        return move
