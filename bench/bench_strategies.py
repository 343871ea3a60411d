"""Substitution strategies: decision times, per-game times, and the table-6.1 round robin.

1. Each bot's decision time per move (median and p99) around move 100 (moves 90-110 of
   200-turn games on `medium`, against the random bot), on one core.
2. Per-game times (median) of the issue's pairings on `medium` and `low`, on one core,
   next to the thesis program's figures.
3. The wall time of the 8-bot table-6.1 round robin on `classic` (every core).

    python bench/bench_strategies.py [--games 30] [--rr-games 500] [--skip-rr]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from arena.experiments.thesis import THESIS_BOTS
from arena.games.substitution import Settings, SubstitutionGame
from arena.match import Match, play_match
from arena.registry import default_registry
from arena.tournament import TournamentSpec, run_tournament

BOTS = [spec for spec, _ in THESIS_BOTS] + [
    "inversed-smart-random", "improved-random", "mixed:equal", "deep-search",
]

PAIRINGS = [
    ("random", "random", {"medium": 6.7, "low": 4.1}),
    ("search:depth=4", "search:depth=4", {"medium": 69, "low": 610}),
    ("adaptive-random:omega=10", "search:depth=4", {"medium": 23, "low": 378}),
]


def decision_times(game: SubstitutionGame, spec: str, games: int) -> list[float]:
    registry = default_registry()
    bot, other = registry.make_bot(game, spec), registry.make_bot(game, "random")
    times = []
    for seed in range(games):
        match = Match(game, [spec, "random"], seed=seed)
        rngs = [random.Random(f"{seed}:bot:0"), random.Random(f"{seed}:bot:1")]
        while (seat := match.to_act()) >= 0:
            state = match.state
            if seat == 0:
                start = time.perf_counter()
                move = bot.choose_move(game, state, rngs[0])
                elapsed = time.perf_counter() - start
                if 90 <= state.turn // 2 <= 110:
                    times.append(elapsed)
            else:
                move = other.choose_move(game, state, rngs[1])
            match.submit(seat, move)
    return times


def per_game(game: SubstitutionGame, first: str, second: str, games: int) -> float:
    registry = default_registry()
    bots = [registry.make_bot(game, first), registry.make_bot(game, second)]
    times = []
    for seed in range(games):
        start = time.perf_counter()
        play_match(game, bots, seed=seed)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="games per measurement")
    parser.add_argument("--rr-games", type=int, default=500, help="games per round-robin cell")
    parser.add_argument("--skip-rr", action="store_true", help="skip the round robin")
    args = parser.parse_args()

    medium = SubstitutionGame(Settings.preset("medium", moves=200))
    print("1. decision time per move around move 100 (medium, vs random)")
    print(f"   {'bot':28s} {'median':>10s} {'p99':>10s}")
    for spec in BOTS:
        times = sorted(decision_times(medium, spec, max(3, args.games // 5)))
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(f"   {spec:28s} {statistics.median(times) * 1e6:8.0f} us {p99 * 1e6:8.0f} us", flush=True)

    print("\n2. per-game time (median, one core), 200 turns per player")
    print(f"   {'pairing':52s} {'grammar':8s} {'ours':>9s} {'thesis':>9s}")
    for grammar in ("medium", "low"):
        game = SubstitutionGame(Settings.preset(grammar, moves=200))
        for first, second, thesis in PAIRINGS:
            ms = per_game(game, first, second, args.games) * 1000
            print(f"   {first + ' vs ' + second:52s} {grammar:8s} {ms:6.1f} ms {thesis[grammar]:6.1f} ms",
                  flush=True)

    if args.skip_rr:
        return
    bots = tuple(spec for spec, _ in THESIS_BOTS)
    spec = TournamentSpec("substitution", Settings.preset("classic", 200).to_json(), bots,
                          args.rr_games, 0)
    start = time.perf_counter()
    run_tournament(spec, processes=os.cpu_count())
    elapsed = time.perf_counter() - start
    games = len(bots) ** 2 * args.rr_games
    print(f"\n3. table-6.1 round robin on classic: {games} games in {elapsed:.1f} s "
          f"({elapsed / 60:.2f} min, {os.cpu_count()} processes; target < 5 min for 32000 games)")


if __name__ == "__main__":
    main()
