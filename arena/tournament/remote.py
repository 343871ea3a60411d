"""Tournaments over an arena server: bots connected to it play as ``ws:NAME``.

The server (asked as an operator account) plays each batch's games; bots given as
``ws:NAME`` are the server's connected bots, every other spec a built-in bot the server
runs as a house player. Everything else is the in-process runner's (`run_tournament`
with a `ServerExecutor`): the same formats, game ids, dice seeds, stored logs, resume,
tables, and the same forfeit rule (`arena.tournament.results`): a game forfeited on
the server (a timeout, a disconnection) has no scores, as in-process.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from pathlib import Path

from arena.tournament.batch import Batch, BatchResult, log_line, pack_logs
from arena.tournament.executors import Executor
from arena.tournament.results import TournamentResult, game_result
from arena.tournament.runner import run_tournament
from arena.tournament.spec import TournamentSpec, game_id, game_seed
from clients.operator import GameRequest, play_games

__all__ = [
    "REMOTE_PREFIX",
    "ServerExecutor",
    "player_of",
    "remote_pairings",
    "run_remote_tournament",
]

REMOTE_PREFIX = "ws:"


def player_of(spec: str) -> str:
    """The server's name for a tournament bot: ``ws:NAME`` is the connected bot NAME,
    any other spec a house bot the server runs (``house:SPEC``)."""
    return spec[len(REMOTE_PREFIX):] if spec.startswith(REMOTE_PREFIX) else f"house:{spec}"


def remote_pairings(bots: tuple[str, ...], self_play: bool = True) -> tuple[tuple[int, int], ...]:
    """Every ordered pair, without a connected bot against itself (one connection
    cannot hold both seats of a game)."""
    return tuple(
        (i, j)
        for i in range(len(bots))
        for j in range(len(bots))
        if (i != j or (self_play and not bots[i].startswith(REMOTE_PREFIX)))
    )


class ServerExecutor(Executor):
    """Plays each batch on the server at `url`, `concurrency` games at a time."""

    def __init__(self, url: str, token: str, concurrency: int = 8) -> None:
        self.url, self.token, self.workers = url, token, concurrency

    def describe(self) -> str:
        return f"the server {self.url}"

    def map_unordered(self, batches: Iterable[Batch]) -> Generator[BatchResult, None, None]:
        for batch in batches:
            spec = batch.spec
            games = [(index, *batch.pairing.players(seat))
                     for index in range(batch.start, batch.stop) for seat in batch.pairing.seats()]
            requests = [
                GameRequest(spec.game, spec.settings,
                            (player_of(spec.bots[first]), player_of(spec.bots[second])),
                            seed=game_seed(spec.seed, index))
                for index, first, second in games
            ]
            records = play_games(self.url, self.token, requests, concurrency=self.workers)
            results = []
            lines: dict[tuple[int, int], list[str]] = {}
            for (index, first, second), record in zip(games, records, strict=True):
                assert record.outcome is not None
                results.append(game_result(first, second, index, record.outcome))
                if batch.logs:
                    lines.setdefault((first, second), []).append(
                        log_line(game_id(first, second, index), record))
            logs = pack_logs(lines)
            yield BatchResult(batch, tuple(results), logs, (), self.url)


def run_remote_tournament(
    spec: TournamentSpec,
    *,
    url: str,
    token: str,
    out: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    concurrency: int = 8,
    resume: bool = False,
) -> TournamentResult:
    """Play the tournament on the server at `url` with an operator `token`."""
    return run_tournament(spec, out=out, progress=progress, resume=resume,
                          executor=ServerExecutor(url, token, concurrency))
