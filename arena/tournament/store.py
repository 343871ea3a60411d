"""A tournament directory: its results database and its games' logs, safe to kill.

``DIR/results.sqlite`` holds the spec and one row per game, keyed by (pairing, pair
index, seat) and written once. The driver stores a batch by writing its log files
first (each to a temporary name, then renamed) and then its results in one
transaction, so after a crash (even ``kill -9``) every stored result has its log and a
batch is either stored whole or not at all. `--resume DIR` replays what is missing;
games are deterministic, so the final tables equal those of an uninterrupted run.

Logs: ``DIR/logs/F-S/NNNNNN.jsonl.gz``, the games of seat order F-S from pair NNNNNN
on (one file per batch), lines ``{"id": "F-S-I", "log": ...}``.
"""

from __future__ import annotations

import bisect
import gzip
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

from arena.errors import ArenaError
from arena.game import Termination
from arena.tournament.batch import BatchResult
from arena.tournament.results import GameResult
from arena.tournament.spec import GameKey, Pairing, TournamentSpec, parse_game_id

__all__ = ["RESULTS_FILE", "ResultStore", "iter_game_logs", "read_game_log", "write_logs"]

RESULTS_FILE = "results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    low INTEGER NOT NULL, high INTEGER NOT NULL, pair INTEGER NOT NULL, seat INTEGER NOT NULL,
    winner INTEGER, first_score NUMERIC, second_score NUMERIC, termination TEXT NOT NULL,
    PRIMARY KEY (low, high, pair, seat)
) WITHOUT ROWID;
"""


class ResultStore:
    """The results of one tournament in ``DIR/results.sqlite`` (see the module).

    A directory that holds this tournament already is an error unless `resume` (then
    its results are kept); one that holds another tournament is always an error.
    """

    def __init__(self, directory: Path, spec: TournamentSpec, *, resume: bool = False) -> None:
        self.directory = directory
        path = directory / RESULTS_FILE
        directory.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        stored = self._db.execute("SELECT value FROM meta WHERE key = 'spec'").fetchone()
        if stored is None:
            self._db.execute("INSERT INTO meta VALUES ('spec', ?)", (json.dumps(spec.to_json()),))
        elif json.loads(stored[0]) != spec.to_json():
            self.close()
            raise ArenaError(
                f"{directory} holds another tournament (its spec differs); "
                "use another directory"
            )
        elif not resume:
            self.close()
            raise ArenaError(
                f"{directory} already holds this tournament: continue it with --resume "
                f"{directory}, or use another directory"
            )

    @staticmethod
    def stored_spec(directory: Path) -> TournamentSpec:
        """The spec of the tournament in `directory` (for ``--resume DIR``)."""
        path = directory / RESULTS_FILE
        if not path.is_file():
            raise ArenaError(f"{directory} holds no tournament to resume (no {RESULTS_FILE})")
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'spec'").fetchone()
        finally:
            db.close()
        if row is None:
            raise ArenaError(f"{path} has no tournament spec")
        return TournamentSpec.from_json(json.loads(row[0]))

    def results(self) -> dict[GameKey, GameResult]:
        """Every stored result by its key."""
        stored = {}
        for low, high, pair, seat, winner, a, b, termination in self._db.execute(
            "SELECT * FROM results"
        ):
            key = GameKey(Pairing(low, high), pair, seat)
            scores = None if a is None else (a, b)
            stored[key] = GameResult(key.first, key.second, pair, winner, scores,
                                     Termination(termination))
        return stored

    def add(self, done: BatchResult, results: Iterable[GameResult]) -> None:
        """Store a batch: its logs, then `results` (the ones not stored yet) at once."""
        for (first, second), data in done.logs:
            write_logs(self.directory, first, second, done.batch.start, data)
        rows = [
            (r.key.pairing.low, r.key.pairing.high, r.index, r.key.seat, r.winner,
             None if r.scores is None else r.scores[0], None if r.scores is None else r.scores[1],
             r.termination.value)
            for r in results
        ]
        self._db.execute("BEGIN")
        try:
            self._db.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        self._db.close()


def _log_folder(out: Path, first: int, second: int) -> Path:
    return out / "logs" / f"{first}-{second}"


def write_logs(out: Path, first: int, second: int, start: int, data: bytes) -> None:
    """Store the compressed logs of the games of seat order first-second from pair `start`."""
    folder = _log_folder(out, first, second)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{start:06d}.jsonl.gz"
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _log_file(out: Path, first: int, second: int, index: int) -> Path | None:
    """The log file that holds pair `index` of seat order first-second, if any."""
    folder = _log_folder(out, first, second)
    starts = sorted(int(p.name.split(".")[0]) for p in folder.glob("*.jsonl.gz"))
    position = bisect.bisect_right(starts, index)
    return None if position == 0 else folder / f"{starts[position - 1]:06d}.jsonl.gz"


def read_game_log(out: Path, text_id: str) -> str:
    """The JSON Lines log of one game of a tournament written to `out`."""
    first, second, index = parse_game_id(text_id)
    path = _log_file(out, first, second, index)
    if path is None:
        raise FileNotFoundError(f"no logs for game {text_id} in {out}")
    for item in _read(path):
        if item["id"] == text_id:
            return str(item["log"])
    raise KeyError(f"game {text_id} is not in {path}")


def _read(path: Path) -> Iterator[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        for line in stream:
            if line.strip():
                yield json.loads(line)


def iter_game_logs(out: Path) -> Iterator[tuple[str, str]]:
    """Every (id, JSON Lines log) stored under `out`."""
    for path in sorted((out / "logs").glob("*/*.jsonl.gz")):
        for item in _read(path):
            yield str(item["id"]), str(item["log"])
