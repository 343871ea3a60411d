"""The thesis program's text log, exactly as its `Game` class writes it (UTF-8)::

    <GameSettings NumberOfMoves="200"> ... </GameSettings>

    Игрок 1: Random Strategy
    Игрок 2: Search Strategy 4
    Индекс выпавшей продукции: 5
    Номер хода:1, Игрок: 0
    Ход:-1 0 1, 0 3 0
    Банк: 0 0 1 0 0 0 0 0 0 0 0 
    ...
    Результаты:
    Счёт игрока 0: 41
    Счёт игрока 1: 30

``Номер хода`` counts rounds from 1 and ``Игрок`` is 0 or 1; the bank line lists the
bank after the turn, each count followed by a space. When the program's referee
stopped a game it wrote ``ERROR`` and the error before the turn; we keep that text.
"""

from __future__ import annotations

import re
from typing import Any

from arena.errors import GrammarError, LogFormatError
from arena.game import Outcome, winner_by_score
from arena.games.substitution.settings import Settings
from arena.record import MatchRecord, TurnRecord

__all__ = ["looks_like_thesis_log", "read_thesis_log", "write_thesis_log"]

_PLAYER = re.compile(r"Игрок ([12]): (.*)")
_ROLL = re.compile(r"Индекс выпавшей продукции: (-?[0-9]{1,9})")
_NUMBER = re.compile(r"Номер хода:\s*([0-9]{1,9}), Игрок: ([0-9]{1,9})")
_MOVE = re.compile(r"Ход:(.*)")
_BANK = re.compile(r"Банк:((?: [0-9]{1,9})*) ?")
_SCORE = re.compile(r"Счёт игрока ([01]): (-?[0-9]{1,12})")


def looks_like_thesis_log(first_line: str) -> bool:
    return first_line.lstrip("\ufeff \t").startswith("<GameSettings")


def write_thesis_log(record: MatchRecord) -> str:
    """The thesis's text log of a substitution-game record."""
    settings = Settings.from_json(record.settings)
    lines = [settings.to_xml(), ""]
    lines += [f"Игрок {seat + 1}: {name}" for seat, name in enumerate(record.players)]
    for turn in record.turns:
        lines.append(f"Индекс выпавшей продукции: {turn.chance}")
        lines.append(f"Номер хода:{turn.turn // 2 + 1}, Игрок: {turn.player}")
        lines.append(f"Ход:{turn.move}")
        bank = turn.facts.get("bank", [])
        lines.append("Банк: " + "".join(f"{count} " for count in bank))
    if record.outcome is not None and record.outcome.scores is not None:
        lines.append("Результаты:")
        lines += [f"Счёт игрока {seat}: {score}" for seat, score in enumerate(record.outcome.scores)]
    return "\n".join(lines) + "\n"


def read_thesis_log(text: str) -> MatchRecord:
    """Read a thesis log; raise `LogFormatError` naming the line that cannot be read."""
    lines = text.lstrip("\ufeff").splitlines()
    end = next((i for i, line in enumerate(lines) if line.rstrip().endswith("</GameSettings>")), None)
    if end is None or not looks_like_thesis_log(lines[0] if lines else ""):
        raise LogFormatError("no <GameSettings> ... </GameSettings> block at the top", 1,
                             code="thesis-no-settings", params=GAME)
    try:
        settings = Settings.from_xml("\n".join(lines[: end + 1]).encode("utf-8"))
    except GrammarError as error:
        raise LogFormatError(f"settings: {error.reason}", error.line, code=error.code,
                             params={**error.params, **GAME}) from None
    reader = _Lines(lines, end + 1)
    players = []
    for seat in (1, 2):
        number, line = reader.next_content()
        match = _PLAYER.fullmatch(line)
        if match is None or int(match[1]) != seat:
            raise _unexpected(f"Игрок {seat}: NAME", line, number)
        players.append(match[2])
    turns: list[TurnRecord] = []
    scores: list[int] = []
    errors: list[str] = []
    while not reader.done():
        number, line = reader.next_content()
        if line == "ERROR":
            errors.append(reader.next_raw()[1])
            continue
        if line == "Результаты:":
            for seat in (0, 1):
                number, line = reader.next_content()
                match = _SCORE.fullmatch(line)
                if match is None or int(match[1]) != seat:
                    raise _unexpected(f"Счёт игрока {seat}: N", line, number)
                scores.append(int(match[2]))
            if not reader.done():
                number, line = reader.next_content()
                raise LogFormatError(f"unexpected line after the results: {line[:60]!r}", number,
                                     code="thesis-after-results", params={"found": line[:60], **GAME})
            break
        roll = _expect(_ROLL, line, number, "Индекс выпавшей продукции: D")
        number, line = reader.next_content()
        round_, player = _expect(_NUMBER, line, number, "Номер хода:M, Игрок: P", groups=2)
        number, line = reader.next_raw()
        move = _MOVE.fullmatch(line)
        if move is None:
            raise _unexpected("Ход:MOVE", line, number)
        number, line = reader.next_raw()
        bank_match = _BANK.fullmatch(line)
        if bank_match is None:
            raise _unexpected("Банк: C0 C1 ... ", line, number)
        bank = [int(count) for count in bank_match[1].split()]
        turn_index = (int(round_) - 1) * 2 + int(player)
        turns.append(TurnRecord(turn_index, int(player), move[1], int(roll), {"bank": bank}))
    outcome = Outcome(winner_by_score(scores), tuple(scores)) if scores else None
    extra: dict[str, Any] = {"source_format": "thesis"}
    if errors:
        extra["errors"] = errors
    return MatchRecord(
        game="substitution",
        settings=settings.to_json(),
        players=tuple(players),
        turns=tuple(turns),
        outcome=outcome,
        chance_name="roll",
        extra=extra,
    )


def _expect(pattern: re.Pattern[str], line: str, number: int, shape: str, groups: int = 1) -> Any:
    match = pattern.fullmatch(line)
    if match is None:
        raise _unexpected(shape, line, number)
    return match[1] if groups == 1 else match.groups()


GAME: dict[str, str | int] = {"game": "substitution"}
"""The game whose words say a log's defect (its renderer's `settingsReasons`)."""


def _unexpected(shape: str, line: str, number: int) -> LogFormatError:
    return LogFormatError(f"expected {shape!r}, found {line[:60]!r}", number,
                          code="thesis-expected", params={"expected": shape, "found": line[:60], **GAME})


class _Lines:
    """Walks the lines of a log, skipping blank ones where the format allows them."""

    def __init__(self, lines: list[str], start: int) -> None:
        self.lines = lines
        self.index = start

    def done(self) -> bool:
        while self.index < len(self.lines) and not self.lines[self.index].strip():
            self.index += 1
        return self.index >= len(self.lines)

    def next_content(self) -> tuple[int, str]:
        if self.done():
            raise LogFormatError("the log ends too early", len(self.lines), code="thesis-too-short",
                                 params=GAME)
        return self.next_raw()

    def next_raw(self) -> tuple[int, str]:
        if self.index >= len(self.lines):
            raise LogFormatError("the log ends too early", len(self.lines), code="thesis-too-short",
                                 params=GAME)
        line = self.lines[self.index].rstrip("\r")
        self.index += 1
        return self.index, line
