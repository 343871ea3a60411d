"""The two-player race solved exactly: win probabilities under perfect play.

``W[a, b]`` is the probability that the player about to roll, with tiles ``a`` up,
wins against an opponent with tiles ``b`` up, both playing to win (not to be fast:
a player behind may gamble). After a roll the mover picks the best of its moves
(``1`` if it empties the board, else ``1 - W[b, a']``) and, where allowed, passing
(``1 - W[b, a]``). Moves shrink the total number of tiles up, so positions are solved
in order of that total; only passing links ``(a, b)`` with ``(b, a)``, and each such
pair is solved exactly as a 2x2 linear system under a passing policy, improving the
policy until it is stable (policy iteration).

The solver is compiled (`_race.pyx`, 12 tiles in about a second on two cores);
`_pyrace.py` is the same algorithm vectorised with numpy (15-20 s), used when the
extension is not built. Solved tables are kept on disk (`cache_dir`), so a machine
solves each setting once: the file is checksummed, written atomically (concurrent
processes never see half a file) and mapped read-only, so the processes of a
tournament share one copy in memory.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import struct
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from arena.games.tiles.rules import ROLLS, Choice, Roll, move_options

try:
    from arena.games.tiles._race import solve_wins as _solve_compiled
except ImportError:  # pragma: no cover - the extension is not built: same table, slower
    _solve_compiled = None  # type: ignore[assignment]

compiled = _solve_compiled is not None
"""Whether the compiled solver is built (otherwise the numpy version is used)."""

__all__ = [
    "RaceTable",
    "cache_dir",
    "cache_path",
    "compiled",
    "race_table",
    "solve_race",
    "solver_inputs",
]

log = logging.getLogger(__name__)

_ORDER = {Choice.PAIR: 0, Choice.SUM: 1, Choice.PASS: 2}


class RaceTable:
    """Win probabilities for the player to roll, indexed ``[own board, other board]``."""

    def __init__(self, tiles: int, voluntary_skip: bool, wins: npt.NDArray[np.float64]) -> None:
        self.tiles = tiles
        self.voluntary_skip = voluntary_skip
        self.wins = wins

    @property
    def first_player(self) -> float:
        full = (1 << self.tiles) - 1
        return float(self.wins[full, full])

    def option_values(self, board: int, other: int, roll: Roll) -> dict[Choice, float]:
        """The mover's winning chance after each legal choice."""
        values = {
            choice: 1.0 if after == 0 else 1.0 - float(self.wins[other, after])
            for choice, after in move_options(board, roll).items()
        }
        if self.voluntary_skip or not values:
            values[Choice.PASS] = 1.0 - float(self.wins[other, board])
        return values

    def best_choice(self, board: int, other: int, roll: Roll) -> Choice:
        values = self.option_values(board, other, roll)
        return max(values, key=lambda c: (values[c], -_ORDER[c]))


def solver_inputs(tiles: int) -> tuple[npt.NDArray[np.intc], npt.NDArray[np.float64]]:
    """What both solvers take: ``children[r, k, board]``, the board left by move k
    (pair, sum) on roll r or -1, and the chance of each roll."""
    size = 1 << tiles
    children = np.full((len(ROLLS), 2, size), -1, dtype=np.intc)
    for r, (roll, _) in enumerate(ROLLS):
        for board in range(size):
            for choice, after in move_options(board, roll).items():
                children[r, 0 if choice is Choice.PAIR else 1, board] = after
    return children, np.array([weight / 36.0 for _, weight in ROLLS])


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def solve_race(
    tiles: int, voluntary_skip: bool = False, *, reference: bool = False, threads: int | None = None
) -> RaceTable:
    """Solve the race now (no cache). `reference` uses the numpy version (`_pyrace`);
    the compiled one runs on `threads` threads (default: the CPUs this process may use).
    """
    children, probs = solver_inputs(tiles)
    if reference or _solve_compiled is None:
        from arena.games.tiles import _pyrace

        wins = _pyrace.solve_wins(children, probs, voluntary_skip)
    else:
        wins = _solve_compiled(children, probs, voluntary_skip, threads or _default_threads())
    return RaceTable(tiles, voluntary_skip, wins)


# -- the disk cache ----------------------------------------------------------------------

_MAGIC = b"arena tiles race table v1\n"
_HEADER = struct.Struct(f"<{len(_MAGIC)}sBBI")
"""Magic, tiles, voluntary skip, CRC-32 of the table; the table (float64, little-endian,
row-major) starts at `_DATA_OFFSET`."""
_DATA_OFFSET = 64


def cache_dir() -> Path:
    """Where solved tables are kept: ``$ARENA_CACHE``, else the user's cache directory
    (``$XDG_CACHE_HOME/arena``, by default ``~/.cache/arena``)."""
    explicit = os.environ.get("ARENA_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "arena"


def cache_path(tiles: int, voluntary_skip: bool) -> Path:
    return cache_dir() / f"tiles-race-{tiles}-{'skip' if voluntary_skip else 'noskip'}.bin"


def _checksum(wins: npt.NDArray[np.float64]) -> int:
    return zlib.crc32(wins.data.cast("B"))


def _read_table(stream: BinaryIO, tiles: int, voluntary_skip: bool) -> npt.NDArray[np.float64]:
    """The table of a cache file, mapped read-only; `ValueError` if it is not a whole,
    intact table for these settings."""
    header = stream.read(_DATA_OFFSET)
    if len(header) < _DATA_OFFSET:
        raise ValueError("the header is cut short")
    magic, file_tiles, file_skip, checksum = _HEADER.unpack_from(header)
    if magic != _MAGIC or (file_tiles, file_skip) != (tiles, int(voluntary_skip)):
        raise ValueError("not a race table for these settings")
    size = 1 << tiles
    if os.fstat(stream.fileno()).st_size != _DATA_OFFSET + size * size * 8:
        raise ValueError("the file has the wrong size")
    wins = np.asarray(
        np.memmap(stream, dtype="<f8", mode="r", offset=_DATA_OFFSET, shape=(size, size))
    )
    if _checksum(wins) != checksum:
        raise ValueError("the checksum does not match")
    return wins


def _load(path: Path, tiles: int, voluntary_skip: bool) -> npt.NDArray[np.float64] | None:
    try:
        with path.open("rb") as stream:
            return _read_table(stream, tiles, voluntary_skip)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        log.warning("ignoring the race table cache %s: %s", path, error)
        return None


STALE_SECONDS = 3600.0
"""A temporary file older than this is left over from a killed writer (a build takes
seconds), and is removed by the next write."""


def _remove_stale(path: Path) -> None:
    """Remove temporary files of `path` that a killed process left behind."""
    now = time.time()
    for leftover in path.parent.glob(f".{path.name}.*"):
        with contextlib.suppress(OSError):
            if now - leftover.stat().st_mtime > STALE_SECONDS:
                leftover.unlink()


def _store(path: Path, table: RaceTable) -> None:
    """Write `table` to `path` atomically: a temporary file in the same directory,
    renamed over `path` once complete (readers see the old file or the new one)."""
    wins = np.ascontiguousarray(table.wins, dtype="<f8")
    header = _HEADER.pack(_MAGIC, table.tiles, int(table.voluntary_skip), _checksum(wins))
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(path)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(header.ljust(_DATA_OFFSET, b"\0"))
            stream.write(wins.data.cast("B"))
        # No fsync: a file cut short by a crash fails its size or checksum test and
        # is solved again.
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


_lock = threading.Lock()


@functools.cache
def _cached_table(tiles: int, voluntary_skip: bool) -> RaceTable:
    path = cache_path(tiles, voluntary_skip)
    wins = _load(path, tiles, voluntary_skip)
    if wins is not None:
        return RaceTable(tiles, voluntary_skip, wins)
    table = solve_race(tiles, voluntary_skip)
    try:
        _store(path, table)
    except OSError as error:  # a read-only home, a full disk: solved, just not kept
        log.warning("cannot keep the race table in %s: %s", path, error)
    return table


def race_table(tiles: int, voluntary_skip: bool = False) -> RaceTable:
    """The race table, from memory, the disk cache (`cache_path`) or solved now (then
    stored). Thread-safe: concurrent callers wait for one solve.

    12 tiles is 16.7M positions: 134 MB, about a second to solve on two cores, a few
    hundredths of a second to load (checksum included) once the file is in the page
    cache.
    """
    with _lock:
        return _cached_table(tiles, voluntary_skip)
