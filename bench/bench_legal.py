"""What the legal moves on the wire cost the server: `arena.legal.legal_fields` per turn.

    PYTHONPATH=. python bench/bench_legal.py [--games 3] [--max-legal 1000]

The server computes a turn's ``legal``/``legal_count``/``legal_steps`` once, on its event
loop, and only for clients that ask for the ``legal-moves`` capability. This plays
random games of every game and times that computation on every turn: the median, the
99th percentile and the worst (milliseconds), next to a plain move of the game for
scale. The substitution game's turns are the expensive ones: listing stops at
``max_legal`` + 1 moves, so a turn costs at most that many enumerated moves.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arena.bot_check import default_opponent
from arena.games.substitution import Settings
from arena.legal import legal_fields
from arena.match import Match
from arena.registry import default_registry

GAMES = {
    "substitution": Settings.preset("medium", 50).to_json(),
    "sim": {"vertices": 6},
    "heaps": {"example": "49932", "target": 384, "start": [7, 10]},
    "durak": {"cards": "0110100110011010", "draw_rule": False, "first": 0},
    "tiles": {"tiles": 12, "players": 2},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--max-legal", type=int, default=1000)
    args = parser.parse_args()
    registry = default_registry()
    print(f"{'game':14s} {'turns':>6s} {'median ms':>10s} {'p99 ms':>8s} {'max ms':>8s} "
          f"{'listed':>7s}")
    for name, settings in GAMES.items():
        game = registry.load_game(name, settings)
        bot = registry.make_bot(game, default_opponent(registry, name))
        times, listed = [], 0
        for seed in range(args.games):
            match, rng = Match(game, ["a", "b"], seed=seed), random.Random(seed)
            while match.to_act() >= 0:
                started = time.perf_counter()
                fields = legal_fields(game, match.state, args.max_legal)
                times.append((time.perf_counter() - started) * 1000)
                listed += fields["legal"] is not None
                match.submit(match.to_act(), bot.choose_move(game, match.state, rng))
        times.sort()
        print(f"{name:14s} {len(times):6d} {statistics.median(times):10.3f} "
              f"{times[int(len(times) * 0.99)]:8.3f} {times[-1]:8.3f} "
              f"{listed / len(times):6.0%}")


if __name__ == "__main__":
    main()
