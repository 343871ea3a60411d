"""Checking log files: read them in any known format, replay them, report the first defect.

First the seed's commitment, when the log has one (the server's logs do: the seed was
fixed before the first move, `arena.seeds`). The replay itself (turn numbers and
players, chance outcomes against the seed, each move's legality, the recorded facts, the
result) is `arena.replay.Replay`; this module reads files and reports on them
(`arena validate`).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cachetools import LRUCache

from arena.errors import ArenaError, LogFormatError, SettingsError
from arena.game import Game
from arena.record import MatchRecord, read_jsonl
from arena.registry import Registry, default_registry
from arena.replay import Defect, Replay
from arena.seeds import check_commitment

__all__ = ["MAX_LOG_BYTES", "Defect", "read_log", "validate_file", "validate_record"]

MAX_LOG_BYTES = 256 * 1024 * 1024


def read_log(path: str | Path, registry: Registry | None = None) -> MatchRecord:
    """Read a log file in any format the registry knows (`parse_log`).

    Raises:
        LogFormatError: the file is too large, not UTF-8, or not a log.
        OSError: the file cannot be read.
    """
    path = Path(path)
    if path.stat().st_size > MAX_LOG_BYTES:
        raise LogFormatError(f"the file is larger than {MAX_LOG_BYTES // 2**20} MiB",
                             code="log-too-large", params={"mib": MAX_LOG_BYTES // 2**20})
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LogFormatError(f"not UTF-8 text (byte {error.start})", code="log-not-utf8",
                             params={"byte": error.start}) from None
    return parse_log(text, registry)


def parse_log(text: str, registry: Registry | None = None) -> MatchRecord:
    """Read a log: the arena's JSON Lines, or a format a plugin reads (`LogFormat`,
    detected from the start of the text).

    Args:
        text: the whole log.
        registry: whose plugins' formats are tried (by default the default registry).

    Raises:
        LogFormatError: the text is empty, in no known format, or a known format with
            a defect (the message names the line).
    """
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{"):
        return read_jsonl(text.lstrip("\ufeff").splitlines())
    if not stripped:
        raise LogFormatError("the file is empty", code="log-empty")
    formats = (registry or default_registry()).log_formats
    for log_format in formats:
        if log_format.detect(stripped):
            return log_format.read(text)
    known = ", ".join(["an arena JSON Lines log", *(f.name for f in formats)])
    raise LogFormatError(f"unknown log format (not {known.replace(', ', ' nor ')})", 1,
                         code="log-format-unknown",
                         params={"known": ", ".join(f.name for f in formats)})


def validate_record(
    record: MatchRecord, registry: Registry | None = None, *, accelerate: bool = True
) -> Defect | None:
    """Replay `record` through the referee; the first defect, or ``None`` if all is right.

    With `accelerate`, the game's `replay_prefix` first replays the leading turns it can
    vouch for (compiled, for the substitution game); the referee judges the rest.
    """
    registry = registry or default_registry()
    try:
        game = _load_game(registry, record.game, record.settings)
    except SettingsError as error:
        return Defect("bad-settings", str(error))
    if record.seed_commitment is not None:
        if record.seed is None:
            return Defect("missing-seed", "the log commits to a seed (seed_commitment) but does "
                                          "not reveal it")
        if not check_commitment(record.id, record.seed, record.seed_commitment):
            return Defect("seed-commitment-mismatch",
                          f"seed {record.seed} of game {record.id!r} is not the seed committed to "
                          f"before the first move ({record.seed_commitment})")
    return Replay(record, game, accelerate=accelerate).check()


def _load_game(registry: Registry, name: str, settings: Any) -> Game[Any, Any]:
    """The game for these settings, compiled once for all the logs that share them
    (a tournament's thousands of logs have one grammar)."""
    try:
        key = json.dumps([name, settings], sort_keys=True)
    except (TypeError, ValueError):
        return registry.load_game(name, settings)
    cache = _GAMES.get(registry)
    if cache is None:
        cache = _GAMES[registry] = LRUCache(maxsize=64)
    game = cache.get(key)
    if game is None:
        game = cache[key] = registry.load_game(name, settings)
    return game


_GAMES: weakref.WeakKeyDictionary[Registry, LRUCache[str, Game[Any, Any]]] = (
    weakref.WeakKeyDictionary())


@dataclass(frozen=True)
class FileReport:
    path: str
    defect: Defect | None = None
    error: str | None = None
    game: str | None = None
    """The game of the log, once read."""

    @property
    def status(self) -> int:
        """0 valid, 1 invalid, 2 unreadable (the exit status of `arena validate`)."""
        return 2 if self.error is not None else 1 if self.defect is not None else 0

    def __str__(self) -> str:
        return self.line()

    def line(self, defect: str | None = None) -> str:
        """The report's line; `defect`: the defect in other words than its own."""
        if self.error is not None:
            return f"{self.path}: UNREADABLE {self.error}"
        if self.defect is not None:
            return f"{self.path}: INVALID {defect or self.defect}"
        return f"{self.path}: OK"


def validate_file(path: str | Path, registry: Registry | None = None,
                  say: Callable[[ArenaError], str] = str) -> FileReport:
    """Read and validate one log file; never raises for a bad file. `say` words why a
    file cannot be read (`arena.speech.Speech.error`: in a person's language)."""
    try:
        record = read_log(path, registry)
    except (OSError, ArenaError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else \
            say(error) if isinstance(error, ArenaError) else str(error)
        return FileReport(str(path), error=reason)
    return FileReport(str(path), defect=validate_record(record, registry), game=record.game)
