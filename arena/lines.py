"""The line protocol between the arena and a bot program on its stdin/stdout (sans-I/O).

One implementation serves both ways of running a program: the stdio bridge
(`clients.bridge`, a program playing on a server) and the local runner
(`arena.exec_bot`, ``exec:COMMAND`` wherever a bot is named). This module only writes
and reads lines; the callers own the process and the clock. The lines are UTF-8, one
message per line, a keyword and (mostly) one JSON object (`docs/bots.md`):

to the program
    ``arena 1`` once, first; ``limits {...}`` right after it (`LIMIT_FIELDS`);
    ``start {...}`` when a game starts (again for every game in progress if the
    program is new); ``turn {...}`` when it must move; ``legal {...}``
    answering a ``?legal`` query; ``rejected {...}``; ``over {...}``; ``quit`` at the end.

from the program
    after each ``turn``: any number of ``# text`` debug lines and ``?legal STEPS``
    queries, then exactly one line, the move string (an empty line is the empty move).

    >>> lines = LineProtocol()
    >>> lines.read("# thinking")
    Comment(text='thinking')
    >>> lines.read("?legal -1 0 1")
    LegalQuery(steps='-1 0 1')
    >>> lines.read("-1 0 1, 0 3 0")
    MoveLine(text='-1 0 1, 0 3 0')
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "LEGAL_FIRST_ENV",
    "LIMIT_FIELDS",
    "LINE_PROTOCOL_VERSION",
    "MAX_LINE",
    "Comment",
    "LegalQuery",
    "LineProtocol",
    "MoveLine",
    "ProgramLine",
    "exit_text",
    "first_legal",
    "legal_first",
]

LINE_PROTOCOL_VERSION = 1
LEGAL_FIRST_ENV = "ARENA_LEGAL_FIRST"
"""The environment variable that gives every program started by this process (``exec:``
bots, ``arena connect --exec``) the turn lines of before 2026-11-23 (`legal_first`)."""
MAX_LINE = 256 * 1024
"""Longest line read from a program (bytes), as long as the largest WebSocket message."""

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True)
class MoveLine:
    """The program's move (the whole line, without its line ending)."""

    text: str


@dataclass(frozen=True)
class Comment:
    """A ``#`` line: a debug note, kept with the game's log."""

    text: str


@dataclass(frozen=True)
class LegalQuery:
    """``?legal STEPS``: the legal next steps after a partial move (step-built games)."""

    steps: str


ProgramLine = MoveLine | Comment | LegalQuery


class LineProtocol:
    """Writes the lines a program reads and reads the lines it writes."""

    def hello(self) -> str:
        return f"arena {LINE_PROTOCOL_VERSION}"

    def limits(self, *, max_legal: int | None, max_log_bytes: int, max_logs_per_turn: int,
               max_logs_per_game: int, max_log_bytes_per_day: int | None) -> str:
        """``limits``: what the program may send and will get (`LIMIT_FIELDS`); the time
        it may take is each game's (``start.time_control``, ``turn.clock``)."""
        return "limits " + _dumps({
            "max_line": MAX_LINE, "max_legal": max_legal, "max_log_bytes": max_log_bytes,
            "max_logs_per_turn": max_logs_per_turn, "max_logs_per_game": max_logs_per_game,
            "max_log_bytes_per_day": max_log_bytes_per_day,
        })

    def start(self, *, game_id: str, game: str, settings: Mapping[str, Any], seat: int,
              players: list[str], time_control: Mapping[str, Any], chance_name: str) -> str:
        return "start " + _dumps({
            "game_id": game_id, "game": game, "settings": settings, "seat": seat,
            "players": players, "time_control": time_control, "chance_name": chance_name,
        })

    def turn(self, fields: Mapping[str, Any]) -> str:
        """``turn`` with the your_turn fields a program uses (see `TURN_FIELDS`)."""
        return "turn " + _dumps({key: fields[key] for key in TURN_FIELDS if key in fields})

    def legal(self, answer: Mapping[str, Any]) -> str:
        return "legal " + _dumps(answer)

    def rejected(self, *, game_id: str, turn: int, move: str, code: str, message: str,
                 step: int | None, retries_left: int) -> str:
        return "rejected " + _dumps({
            "game_id": game_id, "turn": turn, "move": move, "code": code, "message": message,
            "step": step, "retries_left": retries_left,
        })

    def over(self, *, game_id: str, result: str, winner: int | None, scores: Any,
             termination: str, reason: str, seat: int | None) -> str:
        return "over " + _dumps({
            "game_id": game_id, "result": result, "winner": winner, "scores": scores,
            "termination": termination, "reason": reason, "seat": seat,
        })

    def quit(self) -> str:
        return "quit"

    def read(self, line: str) -> ProgramLine:
        """What a line from the program is (its line ending already removed)."""
        if line.startswith("#"):
            return Comment(line[1:].strip())
        if line.startswith("?legal"):
            return LegalQuery(line[len("?legal"):].strip())
        return MoveLine(line)


LIMIT_FIELDS = ("max_line", "max_legal", "max_log_bytes", "max_logs_per_turn",
                "max_logs_per_game", "max_log_bytes_per_day")
"""The fields of the ``limits`` line: the longest line the program may write (bytes),
the longest ``legal`` list it gets (moves; null: no limit), the longest ``#`` line kept
(bytes), how many are kept per turn and per game, and the bytes of them a server
stores per bot and UTC day (null: no such budget, as when a program plays locally)."""


def exit_text(status: int | None, stderr_tail: Iterable[str] = ()) -> str:
    """How a program ended, for people: its exit status or the signal that killed it,
    then its last lines on standard error.

    >>> print(exit_text(-11, ["Segmentation fault"]))
    was killed by signal SIGSEGV (11); its last lines on standard error:
      | Segmentation fault
    """
    if status is None:
        text = "is still running"
    elif status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = "unknown"
        text = f"was killed by signal {name} ({-status})"
    else:
        text = f"exited with status {status}"
    tail = list(stderr_tail)
    if tail:
        text += "; its last lines on standard error:" + "".join(f"\n  | {line}" for line in tail)
    else:
        text += " (and wrote nothing on standard error)"
    return text


TURN_FIELDS = ("game_id", "game", "turn", "move_number", "seat", "chance", "state", "clock",
               "retries_left", "legal", "legal_count", "legal_steps")
"""The fields of a ``turn`` line, in order: the your_turn fields, the game's name (so a
program needs no memory of ``start``) and, where asked for, the legal moves."""


def legal_first(value: int | None = None, environ: Mapping[str, str] | None = None) -> int | None:
    """How many moves an old program's ``turn.legal`` holds: `value` if given, else
    ``$ARENA_LEGAL_FIRST``; None (or 0): today's ``legal``, every move or null.

    Before 2026-11-23 the ``legal`` of a ``turn`` line held the first moves (at most 50),
    never null where the game lists its moves; a program written then may not read a
    null. `first_legal` gives it that list again (`docs/bots.md`, CHANGELOG.md).

    >>> legal_first(None, {"ARENA_LEGAL_FIRST": "50"})
    50
    >>> legal_first(None, {}) is None
    True
    """
    if value is None:
        text = (os.environ if environ is None else environ).get(LEGAL_FIRST_ENV, "").strip()
        if not text:
            return None
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"${LEGAL_FIRST_ENV} must be a number of moves, not {text!r}"
                             ) from None
    if value < 0:
        raise ValueError(f"legal-first must be 0 or more moves, not {value}")
    return value or None


def first_legal(fields: dict[str, Any], moves: Callable[[int], Sequence[str]], count: int
                ) -> dict[str, Any]:
    """`fields` (a turn's) with ``legal`` as an old program knew it: the first `count`
    moves (`moves(count)`), or no ``legal`` at all where the game cannot list them."""
    try:
        listed = list(moves(count))
    except (NotImplementedError, KeyError):
        return {key: value for key, value in fields.items() if key != "legal"}
    return {**fields, "legal": listed[:count]}
