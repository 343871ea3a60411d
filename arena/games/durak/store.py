"""A persistent table of solved Durak positions (SQLite), keyed by canonical position.

Repeated queries are answered without searching, and `precompute` fills the table
with every position up to a size. One row per (variant, position key) holds the
solution as JSON (`Solution.to_store`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Self

from arena.games.durak.solver import Position, Solution

__all__ = ["SolutionStore", "all_positions"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS durak_solutions (
    variant TEXT NOT NULL,
    position TEXT NOT NULL,
    size INTEGER NOT NULL,
    value INTEGER NOT NULL,
    solution TEXT NOT NULL,
    PRIMARY KEY (variant, position)
)
"""


class SolutionStore:
    """Solutions in an SQLite file (or ``":memory:"``).

    With `autocommit` off (bulk precomputation) call `commit` yourself: a commit per
    solution costs a disk sync and dominates the time otherwise.
    """

    def __init__(self, path: str | Path, *, autocommit: bool = True) -> None:
        self.path = str(path)
        self.autocommit = autocommit
        self._db = sqlite3.connect(self.path)
        self._db.execute(_SCHEMA)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, position: Position) -> Solution | None:
        row = self._db.execute(
            "SELECT solution FROM durak_solutions WHERE variant = ? AND position = ?",
            (position.variant, position.key()),
        ).fetchone()
        if row is None:
            return None
        return Solution.from_store(position, json.loads(row[0]))

    def put(self, solution: Solution) -> None:
        position = solution.position
        self._db.execute(
            "INSERT OR REPLACE INTO durak_solutions VALUES (?, ?, ?, ?, ?)",
            (
                position.variant,
                position.key(),
                position.size,
                solution.value,
                json.dumps(solution.to_store(), separators=(",", ":")),
            ),
        )
        if self.autocommit:
            self._db.commit()

    def commit(self) -> None:
        self._db.commit()

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM durak_solutions").fetchone()[0])


def all_positions(size: int, draw_rule: bool) -> Iterator[Position]:
    """Every unweighted position with `size` cards in play."""
    for code in range(1, (1 << size) - 1):
        owners = "".join("1" if (code >> i) & 1 else "0" for i in range(size))
        yield Position(owners, None, draw_rule)
