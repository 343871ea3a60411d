"""A match between two bots: game pairs until the pentanomial SPRT decides (`arena match`).

Pair ``i`` is two games on the dice of `game_seed(seed, i)`, bot A first in one and
second in the other, scored from A's side: 0, ½, 1, 1½ or 2 points. Pairs are played in
batches on any executor, but counted in order of their index: the match stops at the
first pair after which the log-likelihood ratio crosses a bound (or at the game limit),
so its result does not depend on the number of workers; pairs played beyond that
point are dropped.
"""

from __future__ import annotations

import contextlib
import gzip
import json
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.tournament.batch import Batch, BatchResult, BotMaker, registry_bot
from arena.tournament.executors import Executor, make_executor
from arena.tournament.spec import Pairing, TournamentSpec
from arena.tournament.stats import SPRT, EloEstimate, estimate
from arena.tournament.store import write_logs

__all__ = ["MATCH_CHUNK", "MatchResult", "MatchSpec", "match_batches", "run_match"]

MATCH_CHUNK = 5
"""Pairs per batch: small, so that little is played past the SPRT's decision."""

UNBOUNDED = 2**40
"""Pairs of an SPRT match without a game limit (it ends when the test decides)."""


@dataclass(frozen=True)
class MatchSpec:
    """Everything a match's result depends on."""

    game: str
    settings: dict[str, Any]
    bots: tuple[str, str]
    seed: int = 0
    games: int = 100
    """Pairs of dice without an SPRT (each played in both seat orders)."""
    sprt: SPRT | None = None
    max_games: int | None = None
    """With an SPRT: stop undecided after this many games (pairs × 2)."""

    def max_pairs(self) -> int:
        if self.sprt is None:
            return self.games
        return UNBOUNDED if self.max_games is None else max(1, self.max_games // 2)

    def tournament(self) -> TournamentSpec:
        """The two-bot tournament whose pairing (0, 1) this match plays."""
        return TournamentSpec(self.game, self.settings, self.bots, self.max_pairs(), self.seed)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "settings": self.settings, "bots": list(self.bots),
                "seed": self.seed, "games": self.games if self.sprt is None else None,
                "sprt": None if self.sprt is None else self.sprt.to_json(),
                "max_games": self.max_games}


@dataclass
class MatchResult:
    """The state of a match after `pairs` pairs (bot A's side): live, then final."""

    spec: MatchSpec
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    trinomial: list[int] = field(default_factory=lambda: [0] * 3)
    """Losses, draws and wins of A over the same games, each game on its own."""
    llr: float = 0.0
    decision: str | None = None

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    def estimate(self) -> EloEstimate | None:
        return estimate(self.pentanomial)

    def to_json(self) -> dict[str, Any]:
        sprt = self.spec.sprt
        e = self.estimate()
        elo = e.to_json() if e is not None else {}
        return {
            "bots": list(self.spec.bots),
            "games": 2 * self.pairs,
            "pairs": self.pairs,
            "pentanomial": list(self.pentanomial),
            "wins": self.trinomial[2], "draws": self.trinomial[1], "losses": self.trinomial[0],
            "llr": round(self.llr, 4) if sprt else None,
            "lower_bound": round(sprt.lower_bound, 4) if sprt else None,
            "upper_bound": round(sprt.upper_bound, 4) if sprt else None,
            "decision": self.decision or "none",
            "elo": elo.get("elo"),
            "elo_ci": elo.get("elo_ci"),
            "nelo": elo.get("nelo"),
            "nelo_ci": elo.get("nelo_ci"),
            "los": elo.get("los"),
            "score": elo.get("score"),
            "score_ci": elo.get("score_ci"),
            "spec": self.spec.to_json(),
        }

    def status(self) -> str:
        """One line: LLR, bounds, pentanomial counts, Elo."""
        parts = [f"{2 * self.pairs} games"]
        sprt = self.spec.sprt
        if sprt is not None:
            parts.append(f"LLR {self.llr:+.2f} ({sprt.lower_bound:+.2f}, {sprt.upper_bound:+.2f})")
        parts.append("ptnml(0-2) [" + ", ".join(map(str, self.pentanomial)) + "]")
        e = self.estimate()
        if e is not None:
            parts.append(f"Elo {e.elo_text()}")
        return " · ".join(parts)


def run_match(
    spec: MatchSpec,
    *,
    out: Path | None = None,
    processes: int | None = None,
    cluster: str | None = None,
    executor: Executor | None = None,
    maker: BotMaker = registry_bot,
    progress: Callable[[MatchResult], None] | None = None,
) -> MatchResult:
    """Play the match; `progress(result)` is called as pairs are counted."""
    tournament = spec.tournament()
    total = spec.max_pairs()
    result = MatchResult(spec)
    own = executor is None
    runner = executor if executor is not None else make_executor(processes, cluster)

    try:
        with contextlib.closing(match_batches(runner, tournament, maker, out is not None)) as stream:
            for done in stream:
                last = _count(result, done)
                if out is not None:
                    _store_logs(out, done, last)
                if progress is not None:
                    progress(result)
                if result.decision is not None or result.pairs >= total:
                    break
    finally:
        if own:
            runner.close()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "match.json").write_text(json.dumps(result.to_json(), indent=1) + "\n",
                                        encoding="utf-8")
    return result


def match_batches(executor: Executor, spec: TournamentSpec, maker: BotMaker = registry_bot,
                  logs: bool = False) -> Generator[BatchResult, None, None]:
    """The batches of pairing (0, 1) of `spec`, `MATCH_CHUNK` pairs each, in pair order.

    They run on `executor` (a bounded number ahead) and come back in any order; those
    that finish early wait here for their turn. Stop iterating to stop playing.
    """
    total = spec.games

    def batches() -> Iterator[Batch]:
        for start in range(0, total, MATCH_CHUNK):
            yield Batch(spec, Pairing(0, 1), start, min(total, start + MATCH_CHUNK), maker, logs)

    waiting: dict[int, BatchResult] = {}
    next_start = 0
    stream = executor.map_unordered(batches())
    try:
        for done in stream:
            waiting[done.batch.start] = done
            while next_start in waiting:
                ready = waiting.pop(next_start)
                next_start = ready.batch.stop
                yield ready
    finally:
        stream.close()


def _count(result: MatchResult, done: BatchResult) -> int:
    """Count a batch's pairs in order until the SPRT decides; the last pair counted."""
    sprt = result.spec.sprt
    points: dict[int, list[float]] = {}
    for game in done.results:  # bot A is bot 0: first in seat order 0, second in 1
        points.setdefault(game.index, []).append(game.points(0 if game.first == 0 else 1))
    last = done.batch.start - 1
    for index in range(done.batch.start, done.batch.stop):
        pair = points[index]
        result.pentanomial[round(2 * sum(pair))] += 1
        for one in pair:
            result.trinomial[round(2 * one)] += 1
        last = index
        if sprt is not None:
            result.llr = sprt.llr(result.pentanomial)
            result.decision = sprt.decision(result.llr)
            if result.decision is not None:
                break
    return last


def _store_logs(out: Path, done: BatchResult, last: int) -> None:
    """The logs of a batch's counted games (pairs up to `last`)."""
    for (first, second), data in done.logs:
        lines = [line for line in gzip.decompress(data).decode().splitlines()
                 if line and int(json.loads(line)["id"].rsplit("-", 1)[1]) <= last]
        if lines:
            write_logs(out, first, second, done.batch.start,
                       gzip.compress(("\n".join(lines) + "\n").encode()))
