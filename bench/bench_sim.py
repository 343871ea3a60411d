"""Sim solver figures: K3..K7 values, the K6 solve and sequence-count times, K8 on request.

Run from the repository root (build the extension first for the compiled figures):

    python setup.py build_ext --inplace
    PYTHONPATH=. python bench/bench_sim.py [--k8] [--no-symmetry]
"""

from __future__ import annotations

import argparse
import time

from arena.games.sim.solver import SimSolver, compiled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--k8", action="store_true", help="also solve K8 (about 0.5 s compiled)")
    parser.add_argument("--no-symmetry", action="store_true", help="plain table, for comparison")
    args = parser.parse_args()
    symmetry = not args.no_symmetry
    print(f"compiled core: {compiled}; symmetry: {symmetry}")
    sizes = [3, 4, 5, 6, 7] + ([8] if args.k8 else [])
    for n in sizes:
        if n >= 8 and not compiled:
            print(f"K{n}: skipped without the compiled core")
            continue
        solver = SimSolver(n, symmetry=symmetry)
        solution = solver.solve()
        print(
            f"K{n}: value {solution.value:6}  positions {solution.positions:>9}  "
            f"time {solution.seconds:8.3f} s"
        )
        if n <= (7 if compiled else 6):  # K8 has too many positions to count in memory
            began = time.perf_counter()
            counted = solver.count_sequences()
            print(
                f"     {counted.total} complete games, {counted.draws} draws, "
                f"{counted.positions} positions, {time.perf_counter() - began:.3f} s"
            )


if __name__ == "__main__":
    main()
