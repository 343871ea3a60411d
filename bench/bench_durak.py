"""Durak solver figures: cold-cache solve times and the greedy bot's agreement rate.

    PYTHONPATH=. python bench/bench_durak.py [--quick] [--verify-smallest N]

Each deal is solved by a fresh solver (empty tables), so the times are what a first
query costs; repeated queries are answered from the table or the SQLite store.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time

from arena.games.durak.solver import COMPILED, DurakSolver, Position
from bots.durak.agreement import measure_agreement


def random_deal(rng: random.Random, size: int) -> str:
    while True:
        deal = "".join(rng.choice("01") for _ in range(size))
        if "0" in deal and "1" in deal:
            return deal


def timed(position: Position, full: bool) -> tuple[float, int]:
    solver = DurakSolver()
    started = time.perf_counter()
    if full:
        solver.solve(position)
    else:
        solver.value(position)
    return time.perf_counter() - started, solver.nodes


def report(label: str, positions: list[Position], full: bool = False) -> None:
    times = []
    nodes = []
    for position in positions:
        seconds, count = timed(position, full)
        times.append(seconds)
        nodes.append(count)
    print(
        f"{label:44} deals {len(times):3}  mean {statistics.fmean(times):8.4f} s  "
        f"max {max(times):8.4f} s  mean nodes {statistics.fmean(nodes):12.0f}"
    )


def smallest_beat_check(size: int) -> None:
    """Is the smallest beating card always an optimal beat (unweighted)?"""
    for draw_rule in (False, True):
        solver = DurakSolver()
        checked = 0
        started = time.perf_counter()
        for n in range(2, size + 1):
            for owners in map("".join, itertools.product("01", repeat=n)):
                if "0" not in owners or "1" not in owners:
                    continue
                position = Position(owners, None, draw_rule)
                for card in position.mover_cards():
                    beats = position.beats(card)
                    if len(beats) < 2:
                        continue
                    values = [solver.reply_value(position, card, b) for b in beats]
                    checked += 1
                    if min(values) < values[0]:
                        print(f"  counterexample: {owners} lay {card}: {values}")
                        return
        print(
            f"smallest beat optimal in all {checked} lays with a choice of beats, "
            f"{'D-Durak' if draw_rule else 'Durak'}, up to {size} cards "
            f"({time.perf_counter() - started:.1f} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer deals")
    parser.add_argument("--verify-smallest", type=int, default=0, metavar="N")
    args = parser.parse_args()
    rng = random.Random(2026)
    k = 3 if args.quick else 10
    print(f"compiled search: {COMPILED}")
    report("unweighted 20 cards, value", [Position(random_deal(rng, 20)) for _ in range(4 * k)])
    report(
        "unweighted 20 cards, full report",
        [Position(random_deal(rng, 20)) for _ in range(k)],
        full=True,
    )
    report("unweighted 30 cards, value", [Position(random_deal(rng, 30)) for _ in range(k)])
    report(
        "unweighted 30 cards, D-Durak, value",
        [Position(random_deal(rng, 30), None, True) for _ in range(k)],
    )
    report("unweighted 30 cards, 0^15 1^15 (hardest seen)", [Position("0" * 15 + "1" * 15)])
    report(
        "unweighted 30 cards, full report",
        [Position(random_deal(rng, 30)) for _ in range(2)],
        full=True,
    )
    for low, high in ((-5, 5), (1, 9)):
        deals = [
            Position(random_deal(rng, 16), tuple(rng.randint(low, high) for _ in range(16)))
            for _ in range(max(2, k // 2))
        ]
        report(f"weighted 16 cards (weights {low}..{high}), value", deals)
    deals = [
        Position(random_deal(rng, 14), tuple(rng.randint(-5, 5) for _ in range(14)))
        for _ in range(k)
    ]
    report("weighted 14 cards (weights -5..5), value", deals)
    for style in ("table", "lowest", "runs"):
        for cards in (10, 16, 24):
            started = time.perf_counter()
            deals = (40 if args.quick else 150) if cards < 24 else (10 if args.quick else 30)
            agreement = measure_agreement(cards=cards, deals=deals, seed=cards, style=style)
            print(
                f"durak-greedy style={style:6} agreement, {cards} cards: {agreement.rate:.1%} of "
                f"{agreement.decisions} decisions (lays {agreement.lay_rate:.1%}, answers "
                f"{agreement.answer_rate:.1%}) [{time.perf_counter() - started:.1f} s]"
            )
    for cards in (10, 14):
        started = time.perf_counter()
        agreement = measure_agreement(
            cards=cards, deals=20 if args.quick else 60, seed=cards, weights=(-5, 5)
        )
        print(
            f"durak-greedy weighted (-5..5) agreement, {cards} cards: {agreement.rate:.1%} of "
            f"{agreement.decisions} decisions (lays {agreement.lay_rate:.1%}, answers "
            f"{agreement.answer_rate:.1%}) [{time.perf_counter() - started:.1f} s]"
        )
    if args.verify_smallest:
        smallest_beat_check(args.verify_smallest)


if __name__ == "__main__":
    main()
