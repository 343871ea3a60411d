"""Heap solver timings: EGE 49932 and other rule sets for targets up to 10^4.

    PYTHONPATH=. python bench/bench_heaps.py
"""

from __future__ import annotations

from typing import Any

from arena.games.heaps import HeapRules, solve_heaps
from arena.games.heaps.examples import example_rules

CASES: list[tuple[str, dict[str, Any], list[int]]] = [
    ("49932 (two heaps, product)", example_rules("49932"), [384, 1000, 10_000]),
    ("one heap, +1 +4 *3, sum", {"heaps": 1, "end": {"measure": "sum", "at_least": 1},
                                  "moves": {"any": ["+1", "+4", "*3"]}}, [100, 10_000]),
    ("two heaps, +1 *2, sum", {"heaps": 2, "end": {"measure": "sum", "at_least": 1},
                               "moves": {"any": ["+1", "*2"]}}, [100, 1000, 10_000]),
    ("two heaps, +1 *2, larger heap", {"heaps": 2, "end": {"measure": "max", "at_least": 1},
                                       "moves": {"any": ["+1", "*2"]}}, [100, 1000, 10_000]),
]


def main() -> None:
    for title, data, targets in CASES:
        for target in targets:
            report = solve_heaps(HeapRules.from_mapping(data, target=target))
            colours = report.solution.colour.values()
            print(
                f"{title:32} N={target:<6} positions {report.positions:>9}  "
                f"steps {max(colours, default=0):>5}  time {report.solution.seconds:.3f} s"
            )


if __name__ == "__main__":
    main()
