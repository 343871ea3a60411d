"""Sim solver figures: K3..K7 values and game counts, K8 (solve and count) on request.

Run from the repository root (build the extension first for the compiled figures):

    python setup.py build_ext --inplace
    PYTHONPATH=. python bench/bench_sim.py [--k8] [--no-symmetry]
"""

from __future__ import annotations

import argparse
import resource
import time

from arena.games.sim.solver import SimSolver, compiled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--k8", action="store_true",
        help="also K8: solve (0.4 s) and count the games (about 30 s, 1.5 GB)",
    )
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
        # The Python fallback would take hours on K8; without symmetry, K7 needs tens of GB.
        if n <= (8 if compiled and symmetry else 6):
            began = time.perf_counter()
            counted = solver.count_sequences(
                progress=lambda positions, size: print(
                    f"     ... {positions} positions, {size / 1e9:.2f} GB", flush=True
                )
            )
            print(
                f"     {counted.total} complete games, {counted.draws} draws, "
                f"{counted.positions} positions, {time.perf_counter() - began:.3f} s, "
                f"table {counted.table_bytes / 1e6:.1f} MB"
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(f"peak resident memory: {peak / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
