"""Pentanomial against trinomial SPRT: games to a decision on the same game pairs.

For each pairing and each of `--runs` seeds, the same stream of seat-swapped game pairs
(pair i on the dice of seed i) feeds two GSPRTs with the same hypotheses (elo0=0,
elo1=10, α=β=0.05, logistic model): one counts the pairs (pentanomial), the other the
games one by one (trinomial, as if they were independent). The figure is the median
number of games each needs to decide, and how many fewer the pentanomial test needs
(issue 15's target: at least 15% fewer).

    python bench/bench_sprt.py [--runs 9] [--moves 40] [--max-games 6000] [--jobs N] \
        [--pairing A,B ...]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time

from arena.games.substitution import Settings
from arena.tournament.executors import make_executor
from arena.tournament.matchup import match_batches
from arena.tournament.spec import TournamentSpec
from arena.tournament.stats import SPRT

PAIRINGS = [
    ("search:depth=4", "search:depth=1"),
    ("smart-random", "better-smart-random"),  # nearly equal
]


def games_to_decision(spec: TournamentSpec, sprt: SPRT, executor: object) -> tuple[
        tuple[int | None, str | None], tuple[int | None, str | None]]:
    """(games, decision) of the pentanomial and the trinomial test on one seed."""
    penta, tri = [0] * 5, [0] * 3
    penta_done: tuple[int | None, str | None] = (None, None)
    tri_done: tuple[int | None, str | None] = (None, None)
    with contextlib.closing(match_batches(executor, spec)) as stream:  # type: ignore[arg-type]
        for done in stream:
            points: dict[int, list[float]] = {}
            for game in done.results:  # bot A is bot 0, first in seat order 0
                points.setdefault(game.index, []).append(game.points(0 if game.first == 0 else 1))
            for index in range(done.batch.start, done.batch.stop):
                pair = points[index]
                penta[round(2 * sum(pair))] += 1
                for one in pair:
                    tri[round(2 * one)] += 1
                    games = sum(tri)
                    if tri_done[0] is None and (d := sprt.decision(sprt.llr(tri))):
                        tri_done = (games, d)
                if penta_done[0] is None and (d := sprt.decision(sprt.llr(penta))):
                    penta_done = (2 * sum(penta), d)
                if penta_done[0] is not None and tri_done[0] is not None:
                    return penta_done, tri_done
    return penta_done, tri_done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--max-games", type=int, default=6000)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--pairing", action="append", metavar="A,B",
                        help="bots to compare (repeatable; default: the two of the issue)")
    args = parser.parse_args()
    pairings = [tuple(p.split(",", 1)) for p in args.pairing] if args.pairing else PAIRINGS
    sprt = SPRT(0, 10, 0.05, 0.05)
    settings = Settings.preset("classic", args.moves).to_json()
    print(f"GSPRT elo0=0 elo1=10 alpha=beta=0.05; classic grammar, {args.moves} turns; "
          f"{args.runs} runs (seeds 0..{args.runs - 1}); at most {args.max_games} games a run")
    print(f"{'pairing':40} {'median games: pentanomial':>26} {'trinomial':>10} "
          f"{'fewer':>7} {'same decision':>14} {'undecided (p/t)':>16}")
    started = time.perf_counter()
    with make_executor(args.jobs or None) as executor:
        for a, b in pairings:
            penta_games, tri_games, same, undecided = [], [], 0, [0, 0]
            for seed in range(args.runs):
                spec = TournamentSpec("substitution", settings, (a, b), args.max_games // 2, seed)
                (pg, pd), (tg, td) = games_to_decision(spec, sprt, executor)
                # an undecided run counts as the limit (so the medians are lower bounds)
                penta_games.append(pg if pg is not None else args.max_games)
                tri_games.append(tg if tg is not None else args.max_games)
                undecided[0] += pg is None
                undecided[1] += tg is None
                same += pd == td
            p, t = statistics.median(penta_games), statistics.median(tri_games)
            print(f"{a + ' vs ' + b:40} {p:>26.0f} {t:>10.0f} {1 - p / t:>6.0%} "
                  f"{same:>9}/{args.runs} {undecided[0]:>10}/{undecided[1]}", flush=True)
    print(f"({time.perf_counter() - started:.0f} s on {executor.describe()})")


if __name__ == "__main__":
    main()
