"""Replaying game logs through the referee and checking every recorded fact.

First the seed's commitment, when the log has one (the server's logs do: the seed was
fixed before the first move, `arena.seeds`). Then for each turn: the turn number and
player, the chance outcome (against the seed, when the log has one), the move's legality for that outcome, and the game's facts after the
move (the substitution game's bank). At the end: that the game is over, and the
scores and result. The first defect found is reported.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cachetools import LRUCache

from arena.errors import ArenaError, LogFormatError, SettingsError
from arena.game import CHANCE, TERMINAL, Game, Termination
from arena.match import ChanceSource
from arena.record import MatchRecord, read_jsonl
from arena.referee import Referee
from arena.registry import Registry, default_registry
from arena.seeds import check_commitment

__all__ = ["MAX_LOG_BYTES", "Defect", "read_log", "validate_file", "validate_record"]

MAX_LOG_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Defect:
    """The first thing wrong with a log: where (turn, player) and what (code, message)."""

    code: str
    message: str
    turn: int | None = None
    player: int | None = None

    def __str__(self) -> str:
        where = []
        if self.turn is not None:
            where.append(f"turn {self.turn}")
        if self.player is not None:
            where.append(f"player {self.player}")
        prefix = f"{', '.join(where)}: " if where else ""
        return f"{prefix}{self.code}: {self.message}"


def read_log(path: str | Path) -> MatchRecord:
    """Read a log in either format (detected from its first line).

    Raises `LogFormatError` (or `OSError`) when the file cannot be read as a log.
    """
    path = Path(path)
    if path.stat().st_size > MAX_LOG_BYTES:
        raise LogFormatError(f"the file is larger than {MAX_LOG_BYTES // 2**20} MiB")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LogFormatError(f"not UTF-8 text (byte {error.start})") from None
    return parse_log(text)


def parse_log(text: str) -> MatchRecord:
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{"):
        return read_jsonl(text.lstrip("\ufeff").splitlines())
    if stripped.startswith("<GameSettings"):
        from arena.games.substitution.thesis_log import read_thesis_log

        return read_thesis_log(text)
    if not stripped:
        raise LogFormatError("the file is empty")
    raise LogFormatError(
        "unknown log format (neither an arena JSON Lines log nor a thesis text log)", 1
    )


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
    referee = Referee(game)
    chance_name = game.type.chance_name
    dice = ChanceSource(record.seed) if record.seed is not None and game.type.chance else None
    if accelerate:
        start, state, pending = game.replay_prefix(record.turns, dice)
    else:
        start, state, pending = 0, game.initial_state(), None
    for index in range(start, len(record.turns)):
        turn = record.turns[index]

        def defect(code: str, message: str) -> Defect:
            return Defect(code, message, index, turn.player)  # noqa: B023

        if turn.turn != index:
            return defect("turn-number", f"turn {turn.turn} is recorded where turn {index} belongs")
        chance = None
        if game.to_act(state) == CHANCE:
            chance = turn.chance
            if chance is None:
                return defect(f"missing-{chance_name}", f"the turn records no {chance_name}")
            if dice is not None:
                expected = pending if pending is not None else dice.sample(game.chance_outcomes(state))
                pending = None
                if expected != chance:
                    return defect(
                        f"{chance_name}-mismatch",
                        f"the {chance_name} {chance!r} does not follow from seed {record.seed} "
                        f"(it gives {expected!r})",
                    )
        elif turn.chance is not None:
            return defect(f"unexpected-{chance_name}", f"no {chance_name} belongs before this move")
        verdict = referee.check(state, turn.move, player=turn.player, chance=chance)
        if verdict.state is None:
            assert verdict.rejection is not None
            return defect(verdict.rejection.code, f"move {turn.move!r}: {verdict.rejection.message}")
        state = verdict.state
        for key, value in game.facts(state).items():
            if key not in turn.facts:
                return defect(f"missing-{key}", f"the turn does not record the {key}")
            if turn.facts[key] != value:
                return defect(
                    f"{key}-mismatch", f"the log says {key} {turn.facts[key]!r}, the referee {value!r}"
                )
    outcome = record.outcome
    if outcome is None:
        return Defect("no-result", f"the log ends after {len(record.turns)} turns without a result")
    if outcome.termination is Termination.NORMAL:
        if game.to_act(state) != TERMINAL:
            return Defect(
                "unfinished",
                f"the result is recorded after {len(record.turns)} turns but the game is not over",
            )
        expected = game.outcome(state)
        assert expected is not None
        if outcome.scores is not None and tuple(outcome.scores) != tuple(expected.scores or ()):
            return Defect(
                "score-mismatch",
                f"the log says scores {list(outcome.scores)}, the referee {list(expected.scores or ())}",
            )
        if outcome.winner != expected.winner:
            return Defect(
                "result-mismatch", f"the log says {outcome.result}, the referee {expected.result}"
            )
    elif outcome.termination is not Termination.ABORTED:
        if outcome.loser is None or outcome.loser not in range(game.num_players()):
            return Defect("result-mismatch", f"a {outcome.termination.value} result names no loser")
        if game.num_players() == 2 and outcome.winner != 1 - outcome.loser:
            return Defect("result-mismatch", "the winner of a forfeit must be the other player")
    return None


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

    @property
    def status(self) -> int:
        """0 valid, 1 invalid, 2 unreadable (the exit status of `arena validate`)."""
        return 2 if self.error is not None else 1 if self.defect is not None else 0

    def __str__(self) -> str:
        if self.error is not None:
            return f"{self.path}: UNREADABLE {self.error}"
        if self.defect is not None:
            return f"{self.path}: INVALID {self.defect}"
        return f"{self.path}: OK"


def validate_file(path: str | Path, registry: Registry | None = None) -> FileReport:
    """Read and validate one log file; never raises for a bad file."""
    try:
        record = read_log(path)
    except (OSError, ArenaError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return FileReport(str(path), error=reason)
    return FileReport(str(path), defect=validate_record(record, registry))
