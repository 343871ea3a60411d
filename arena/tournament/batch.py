"""The unit of work: a pairing × K pairs of dice, played wherever a worker runs.

A worker builds the game and every bot it needs from their specs (a bot spec is any
string the registry accepts) and keeps them for the batches that follow. Every game
calls the bot's `prepare` hook (`arena.match.Match.run`), which does its work the first
time only (the `Bot` contract): so a bot's tables are made once per worker process,
not once per batch. A batch's result depends only on the batch, never on the
worker: a batch that is retried elsewhere gives the same games.
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass
from typing import Any, Protocol

from arena.bots import Bot
from arena.game import Game
from arena.match import play_match
from arena.record import MatchRecord, to_jsonl
from arena.registry import default_registry
from arena.tournament.results import GameResult, game_result
from arena.tournament.spec import Pairing, TournamentSpec, game_id, game_seed

__all__ = [
    "CHUNK", "Batch", "BatchResult", "BotMaker", "log_line", "pack_logs", "play_batch",
    "registry_bot",
]

CHUNK = 25
"""Pairs of dice per batch of a tournament (and per compressed log file)."""


class BotMaker(Protocol):
    """Makes the bot for a spec string; must be picklable (it travels to the workers)."""

    def __call__(self, game: Game[Any, Any], spec: str) -> Bot: ...


def registry_bot(game: Game[Any, Any], spec: str) -> Bot:
    """The default `BotMaker`: any bot spec the installed plugins' registry accepts."""
    return default_registry().make_bot(game, spec)


@dataclass(frozen=True)
class Batch:
    """Pairs ``start .. stop - 1`` of one pairing, every seat order of each pair."""

    spec: TournamentSpec
    pairing: Pairing
    start: int
    stop: int
    maker: BotMaker = registry_bot
    logs: bool = False

    def games(self) -> int:
        return (self.stop - self.start) * len(self.pairing.seats())

    def name(self) -> str:
        return f"{self.pairing.low}-{self.pairing.high}:{self.start}-{self.stop}"


@dataclass(frozen=True)
class BatchResult:
    """What a worker sends back: the results, the logs, and what it had to build."""

    batch: Batch
    results: tuple[GameResult, ...]
    logs: tuple[tuple[tuple[int, int], bytes], ...]
    """Per seat order (first, second): the gzip-compressed ``{"id", "log"}`` JSON lines."""
    built: tuple[str, ...]
    """The bot specs this worker built for this batch (empty once it has them)."""
    worker: str = ""
    """Where it ran (a process id, or a Ray node id)."""


_GAMES: dict[str, Game[Any, Any]] = {}
_BOTS: dict[tuple[str, Any, str], Bot] = {}


def _worker_game(spec: TournamentSpec) -> tuple[str, Game[Any, Any]]:
    key = json.dumps([spec.game, spec.settings], sort_keys=True)
    game = _GAMES.get(key)
    if game is None:
        _GAMES.clear()
        _BOTS.clear()
        game = _GAMES[key] = default_registry().load_game(spec.game, spec.settings)
    return key, game


def _worker_bot(key: str, game: Game[Any, Any], maker: BotMaker, spec: str,
                built: list[str]) -> Bot:
    bot = _BOTS.get((key, maker, spec))
    if bot is None:
        bot = _BOTS[(key, maker, spec)] = maker(game, spec)
        built.append(spec)
    return bot


def play_batch(batch: Batch) -> BatchResult:
    """Play a batch in this process (a worker, or the driver with one job)."""
    spec = batch.spec
    key, game = _worker_game(spec)
    built: list[str] = []
    pairing = batch.pairing
    bots = {b: _worker_bot(key, game, batch.maker, spec.bots[b], built)
            for b in (pairing.low, pairing.high)}
    results = []
    lines: dict[tuple[int, int], list[str]] = {}
    for index in range(batch.start, batch.stop):
        for seat in pairing.seats():
            first, second = pairing.players(seat)
            match = play_match(
                game, [bots[first], bots[second]], seed=game_seed(spec.seed, index),
                names=[spec.bots[first], spec.bots[second]], match_id=game_id(first, second, index),
            )
            assert match.outcome is not None
            results.append(game_result(first, second, index, match.outcome))
            if batch.logs:
                lines.setdefault((first, second), []).append(log_line(match.id, match.record()))
    return BatchResult(batch, tuple(results), pack_logs(lines), tuple(built), f"pid:{os.getpid()}")


def log_line(game: str, record: MatchRecord) -> str:
    """A game's line in a tournament's log files."""
    return json.dumps({"id": game, "log": to_jsonl(record)})


def pack_logs(lines: dict[tuple[int, int], list[str]]) -> tuple[tuple[tuple[int, int], bytes], ...]:
    """Log lines per seat order, gzip-compressed (as `BatchResult.logs`)."""
    return tuple(
        (order, gzip.compress(("\n".join(text) + "\n").encode(), compresslevel=6))
        for order, text in lines.items()
    )
