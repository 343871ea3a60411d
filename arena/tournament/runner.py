"""Tournaments: round robins, gauntlets and Swiss, played in batches on any executor.

Reproducibility: pair ``i`` of every pairing is played on the dice of `game_seed(seed,
i)`, in both seat orders (and `play_match` seeds each seat's generator from it), so
luck cancels out of every comparison. The result of a tournament depends only on its
`TournamentSpec`: not on the executor (this process, local processes, a Ray cluster,
a server), the number of workers, the order in which batches finish, retries, or
interruptions (``resume``).

Bots: a worker builds each bot from its spec with a `BotMaker` (by default the plugin
registry, so any spec it accepts works), once per worker process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from arena.tournament.batch import CHUNK, Batch, BotMaker, registry_bot
from arena.tournament.executors import Executor, make_executor
from arena.tournament.formats import swiss_round
from arena.tournament.results import GameResult, TournamentResult
from arena.tournament.spec import GameKey, Pairing, TournamentSpec
from arena.tournament.store import ResultStore

__all__ = ["TournamentResult", "TournamentSpec", "batch_keys", "run_tournament"]

Progress = Callable[[int, int], None]


def batch_keys(batch: Batch) -> list[GameKey]:
    return [GameKey(batch.pairing, index, seat)
            for index in range(batch.start, batch.stop) for seat in batch.pairing.seats()]


def run_tournament(
    spec: TournamentSpec,
    *,
    out: Path | None = None,
    processes: int | None = None,
    maker: BotMaker = registry_bot,
    progress: Progress | None = None,
    resume: bool = False,
    cluster: str | None = None,
    executor: Executor | None = None,
) -> TournamentResult:
    """Play the tournament and return its tables.

    Args:
        out: the tournament directory: results database, logs and reports
            (`arena.tournament.store`); None keeps nothing.
        processes: local worker processes (default: every core; 1 plays here).
        maker: builds each bot from its spec in the worker that plays it.
        progress: called as ``progress(done_games, total_games)`` as batches finish.
        resume: continue the tournament stored in `out` (its spec must equal `spec`).
        cluster: a Ray cluster's address, instead of local processes.
        executor: where to play (overrides `processes` and `cluster`; not closed here).

    Raises:
        ArenaError: `out` holds another tournament, or this one and `resume` is False.
    """
    store = ResultStore(out, spec, resume=resume) if out is not None else None
    try:
        stored = store.results() if store is not None else {}
        own = executor is None
        runner = executor if executor is not None else make_executor(processes, cluster)
        try:
            result = TournamentResult.empty(spec)
            play = _Player(spec, maker, store, stored, result, runner, spec.total_games(), progress)
            if spec.format == "swiss":
                for _ in range(spec.rounds):
                    this_round = swiss_round(result)
                    result.rounds.append(this_round)
                    for pairing in this_round.pairings:
                        result.expect(pairing)
                    play(this_round.pairings)
            else:
                play(spec.pairings())
        finally:
            if own:
                runner.close()
    finally:
        if store is not None:
            store.close()
    if out is not None:
        from arena.tournament.report import write_reports

        write_reports(result, out)
    return result


class _Player:
    """Plays the batches of a set of pairings, skipping what is stored, storing the rest."""

    def __init__(self, spec: TournamentSpec, maker: BotMaker, store: ResultStore | None,
                 stored: dict[GameKey, GameResult], result: TournamentResult,
                 executor: Executor, total: int, progress: Progress | None) -> None:
        self.spec, self.maker, self.store, self.stored = spec, maker, store, stored
        self.result, self.executor, self.total, self.progress = result, executor, total, progress
        self.done = 0

    def _advance(self, games: int) -> None:
        self.done += games
        if self.progress is not None:
            self.progress(self.done, self.total)

    def __call__(self, pairings: Iterable[Pairing]) -> None:
        pairings = list(pairings)
        batches = []
        # Interleave the pairings: expensive ones are not known in advance (a steady ETA).
        for start in range(0, self.spec.games, CHUNK):
            for pairing in pairings:
                stop = min(self.spec.games, start + CHUNK)
                batch = Batch(self.spec, pairing, start, stop, self.maker, self.store is not None)
                keys = batch_keys(batch)
                if all(key in self.stored for key in keys):
                    for key in keys:
                        self.result.add(self.stored[key])
                    self._advance(len(keys))
                else:
                    batches.append(batch)
        for done in self.executor.map_unordered(batches):
            new = [r for r in done.results if r.key not in self.stored]
            if self.store is not None:
                self.store.add(done, new)
            for game in done.results:
                self.result.add(self.stored.get(game.key, game))
            self._advance(len(done.results))
