"""Round-robin tournaments: every ordered pair of bots plays N games, in processes.

Reproducibility: game ``i`` of every pairing uses the dice seed `game_seed(seed, i)`
(and `play_match` seeds each seat's generator from it), so the two seatings of a pair,
and every other pairing, meet the same dice: luck cancels out of the comparison. The
result of a tournament depends only on its `TournamentSpec`, not on the number of
processes or the order in which chunks finish.

Remote bots: a tournament asks a `BotMaker` for each seat's bot. The default builds
in-process bots from the registry; a server can pass its own picklable maker that
returns a proxy `Bot` for a connected client (the maker is called once per worker and
spec, and the bot's `choose_move` per move).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.bots import Bot
from arena.game import Game, Termination
from arena.match import play_match
from arena.record import to_jsonl
from arena.registry import default_registry

__all__ = [
    "BotMaker",
    "CellResult",
    "GameResult",
    "TournamentResult",
    "TournamentSpec",
    "game_id",
    "game_seed",
    "parse_game_id",
    "run_tournament",
]

CHUNK = 25
"""Games per work unit and per compressed log file."""


class BotMaker(Protocol):
    """Makes the bot for a spec string; must be picklable (it travels to the workers)."""

    def __call__(self, game: Game[Any, Any], spec: str) -> Bot: ...


def registry_bot(game: Game[Any, Any], spec: str) -> Bot:
    """The default `BotMaker`: an in-process bot from the installed plugins."""
    return default_registry().make_bot(game, spec)


@dataclass(frozen=True)
class TournamentSpec:
    """Everything a tournament's results depend on."""

    game: str
    settings: dict[str, Any]
    bots: tuple[str, ...]
    games: int
    seed: int = 0
    pairs: tuple[tuple[int, int], ...] | None = None
    """Which (first, second) pairs play; ``None`` is every ordered pair, self-play included."""

    def pairings(self) -> list[tuple[int, int]]:
        if self.pairs is not None:
            return list(self.pairs)
        n = len(self.bots)
        return [(i, j) for i in range(n) for j in range(n)]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["pairs"] = None if self.pairs is None else [list(p) for p in self.pairs]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentSpec:
        pairs = data.get("pairs")
        return cls(
            game=data["game"],
            settings=data["settings"],
            bots=tuple(data["bots"]),
            games=int(data["games"]),
            seed=int(data.get("seed", 0)),
            pairs=None if pairs is None else tuple((int(a), int(b)) for a, b in pairs),
        )


def game_seed(seed: int, index: int) -> int:
    """The dice seed of game `index` of every pairing."""
    return seed * 1_000_003 + index


def game_id(first: int, second: int, index: int) -> str:
    """``"F-S-I"``: first bot's index, second bot's index, game number (all 0-based)."""
    return f"{first}-{second}-{index}"


def parse_game_id(text: str) -> tuple[int, int, int]:
    try:
        first, second, index = (int(part) for part in text.split("-"))
    except ValueError:
        raise ValueError(f"{text!r} is not a game id (first-second-index, e.g. 0-3-17)") from None
    return first, second, index


def log_path(out: Path, first: int, second: int, index: int) -> Path:
    """The compressed file holding the log of game `index` of a pairing."""
    start = index - index % CHUNK
    return out / "logs" / f"{first}-{second}" / f"{start:06d}.jsonl.gz"


@dataclass
class CellResult:
    """Results of one pairing, from the first player's side."""

    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0
    forfeits: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0])
    squares: list[int] = field(default_factory=lambda: [0, 0])
    games: int = 0

    def add(self, result: GameResult) -> None:
        self.games += 1
        if result.winner == 0:
            self.first_wins += 1
        elif result.winner == 1:
            self.second_wins += 1
        else:
            self.draws += 1
        if result.forfeit:
            self.forfeits += 1
        for seat in (0, 1):
            self.scores[seat] += result.scores[seat]
            self.squares[seat] += result.scores[seat] ** 2


@dataclass(frozen=True)
class GameResult:
    first: int
    second: int
    index: int
    winner: int | None
    scores: tuple[int, int]
    forfeit: bool = False


@dataclass
class TournamentResult:
    spec: TournamentSpec
    cells: dict[tuple[int, int], CellResult]


# -- workers ------------------------------------------------------------------------

_WORKER_CACHE: dict[str, Any] = {}


def _worker_game(spec: TournamentSpec) -> Game[Any, Any]:
    key = json.dumps([spec.game, spec.settings], sort_keys=True)
    game = _WORKER_CACHE.get(key)
    if game is None:
        _WORKER_CACHE.clear()
        game = _WORKER_CACHE[key] = default_registry().load_game(spec.game, spec.settings)
    return game


def _worker_bot(game: Game[Any, Any], maker: BotMaker, spec: str) -> Bot:
    key = f"bot:{id(game)}:{spec}"
    bot = _WORKER_CACHE.get(key)
    if bot is None:
        bot = _WORKER_CACHE[key] = maker(game, spec)
    return bot


Job = tuple[TournamentSpec, BotMaker, str | None, int, int, int, int]


def play_chunk(job: Job) -> list[GameResult]:
    """Play games ``start..stop-1`` of one pairing; write their logs if `out` is set."""
    spec, maker, out, first, second, start, stop = job
    game = _worker_game(spec)
    bots = [_worker_bot(game, maker, spec.bots[first]), _worker_bot(game, maker, spec.bots[second])]
    names = [spec.bots[first], spec.bots[second]]
    results = []
    lines = []
    for index in range(start, stop):
        match = play_match(
            game, bots, seed=game_seed(spec.seed, index), names=names,
            match_id=game_id(first, second, index),
        )
        outcome = match.outcome
        assert outcome is not None
        scores = outcome.scores
        if scores is None:  # a forfeit: the scores on the board when it happened
            scores = getattr(match.state, "scores", lambda: (0, 0))()
        results.append(GameResult(
            first, second, index, outcome.winner, (int(scores[0]), int(scores[1])),
            outcome.termination is not Termination.NORMAL,
        ))
        if out is not None:
            lines.append(json.dumps({"id": match.id, "log": to_jsonl(match.record())}))
    if out is not None:
        write_chunk_logs(Path(out), first, second, start, lines)
    return results


def write_chunk_logs(out: Path, first: int, second: int, start: int, lines: list[str]) -> None:
    """Store the logs of one chunk of a pairing's games (``{"id", "log"}`` JSON lines)."""
    path = log_path(out, first, second, start)
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as stream:
        stream.write("\n".join(lines) + "\n")


def jobs_for(spec: TournamentSpec, maker: BotMaker, out: Path | None) -> list[Job]:
    jobs = []
    for first, second in spec.pairings():
        for start in range(0, spec.games, CHUNK):
            stop = min(spec.games, start + CHUNK)
            jobs.append((spec, maker, None if out is None else str(out), first, second, start, stop))
    # Expensive pairings are not known in advance; interleave pairings for a steady ETA.
    jobs.sort(key=lambda job: (job[5], job[3], job[4]))
    return jobs


def run_tournament(
    spec: TournamentSpec,
    *,
    out: Path | None = None,
    processes: int | None = None,
    maker: BotMaker = registry_bot,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentResult:
    """Play the tournament; `progress(done_games, total_games)` is called as chunks finish."""
    jobs = jobs_for(spec, maker, out)
    total = sum(job[6] - job[5] for job in jobs)
    cells = {pair: CellResult() for pair in spec.pairings()}
    done = 0
    processes = processes or os.cpu_count() or 1
    for results in _map(play_chunk, jobs, processes):
        for game_result in results:
            cells[(game_result.first, game_result.second)].add(game_result)
        done += len(results)
        if progress is not None:
            progress(done, total)
    outcome = TournamentResult(spec, cells)
    if out is not None:
        from arena.tournament.report import write_reports

        write_reports(outcome, out)
    return outcome


def _map(function: Callable[[Job], list[GameResult]], jobs: Sequence[Job], processes: int
         ) -> Iterator[list[GameResult]]:
    if processes <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield function(job)
        return
    import multiprocessing

    context = multiprocessing.get_context("fork")
    with context.Pool(processes) as pool:
        yield from pool.imap_unordered(function, jobs, chunksize=1)


def read_game_log(out: Path, text_id: str) -> str:
    """The JSON Lines log of one game of a tournament written to `out`."""
    first, second, index = parse_game_id(text_id)
    path = log_path(out, first, second, index)
    if not path.is_file():
        raise FileNotFoundError(f"no logs for game {text_id} ({path} is missing)")
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        for line in stream:
            if line.strip():
                item = json.loads(line)
                if item["id"] == text_id:
                    return str(item["log"])
    raise KeyError(f"game {text_id} is not in {path}")


def iter_game_logs(out: Path) -> Iterator[tuple[str, str]]:
    """Every (id, JSON Lines log) stored under `out`."""
    for path in sorted((out / "logs").glob("*/*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            for line in stream:
                if line.strip():
                    item = json.loads(line)
                    yield str(item["id"]), str(item["log"])
