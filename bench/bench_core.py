"""Substitution game core: play speed and replay-validation speed, on one core.

Plays complete random-vs-random games on `medium` (200 turns each player, so 400
moves a game) with every move judged by the referee, then validates the recorded logs
again through the referee. Prints games/s and turns/s for each, as the median of
several rounds, and their ratio.

    python bench/bench_core.py [--games 500] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena.games.substitution import Settings, SubstitutionGame
from arena.match import play_match
from arena.record import read_jsonl, to_jsonl
from arena.registry import default_registry
from arena.validate import validate_record

CPU = False


def timed(function, *args):
    start = time.perf_counter() if not CPU else time.process_time()
    result = function(*args)
    return (time.perf_counter() if not CPU else time.process_time()) - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--grammar", default="medium")
    args = parser.parse_args()

    game = SubstitutionGame(Settings.preset(args.grammar, moves=200))
    registry = default_registry()
    bots = [registry.make_bot(game, "random"), registry.make_bot(game, "random")]
    turns_per_game = 2 * game.moves

    # Finished games are dropped at once, as tournaments and the server do: keeping
    # hundreds of full histories alive would time the garbage collector, not the game.
    def play(seeds):
        for seed in seeds:
            play_match(game, bots, seed=seed)

    def play_and_record(seeds):
        for seed in seeds:
            play_match(game, bots, seed=seed).record()

    def validate(records):
        for record in records:
            assert validate_record(record) is None

    def validate_generic(records):
        for record in records:
            assert validate_record(record, accelerate=False) is None

    def validate_text(texts):
        for text in texts:
            assert validate_record(read_jsonl(text.splitlines())) is None

    seeds = range(args.games)
    records = [play_match(game, bots, seed=seed).record() for seed in seeds]
    texts = [to_jsonl(record) for record in records]
    rows = [
        ("play (referee on every move)", play, seeds),
        ("play + build the log records", play_and_record, seeds),
        ("validate recorded games", validate, records),
        ("validate, referee turn by turn", validate_generic, records),
        ("validate JSONL text (parse + check)", validate_text, texts),
    ]
    print(f"{args.games} random-vs-random games on {args.grammar!r}, {turns_per_game} moves each; "
          f"median of {args.rounds} rounds, one core")
    print(f"{'':38s} {'games/s':>10s} {'turns/s':>12s}")
    # Rounds interleave the rows, so that every row sees the same machine conditions
    # (this shared machine's speed drifts by tens of percent between minutes).
    times: dict[str, list[float]] = {label: [] for label, _, _ in rows}
    for _ in range(args.rounds):
        for label, function, data in rows:
            times[label].append(timed(function, data)[0])
    medians = {label: statistics.median(values) for label, values in times.items()}
    for label, _, _ in rows:
        games = args.games / medians[label]
        print(f"{label:38s} {games:10.0f} {games * turns_per_game:12.0f}")
    ratio = medians["play (referee on every move)"] / medians["validate recorded games"]
    print(f"validation is {ratio:.1f}x faster than play (target: 5x; play target 1000 games/s)")


if __name__ == "__main__":
    main()
