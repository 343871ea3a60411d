"""What the server offers bots beyond the moves: legal moves and debug lines.

* Legal moves (the ``legal-moves`` capability): `LegalMoves.turn_fields` gives a
  ``your_turn``'s ``legal``, ``legal_count`` and ``legal_steps`` (`arena.legal`),
  computed once per turn of a game and only for clients that asked; `LegalMoves.answer`
  answers a ``legal`` request about a partial move.
* Debug lines (``log`` messages): `Notes.take` keeps them with the game's match (so
  they are stored with its record and shown in its replay), within `LogLimits`: their
  size, their number per turn and per game, and the bytes each bot may have stored per
  UTC day (counted here as lines are kept; the database adds each game's to the day's
  total with its result, and a bot's count starts from that total when it logs in).
  While the database's disk is short of space (`Notes.disk_low`, set by
  `arena.server.upkeep`), lines are dropped; the games go on either way.

Both return what to send (a message type and its fields) rather than sending it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from arena.bot_logs import LogLimits, note_size, utc_day
from arena.game import TERMINAL, Rejection
from arena.legal import (
    DEFAULT_MAX_LEGAL,
    builds_in_steps,
    illegal_steps,
    legal_fields,
    not_step_built,
    steps_answer,
)

if TYPE_CHECKING:
    from arena.server.live import LiveGame

__all__ = ["LegalMoves", "LogLimits", "Notes", "Reply", "Taken"]

Reply = tuple[str, dict[str, Any]]
"""A message to send: its type and fields."""


class LegalMoves:
    """The legal moves of each live game's current turn, computed once per turn."""

    def __init__(self, max_legal: int = DEFAULT_MAX_LEGAL, max_bytes: int | None = None) -> None:
        self.max_legal = max_legal
        self.max_bytes = max_bytes
        """Longest ``legal`` list, in bytes of its JSON (half the frame limit, so that a
        ``your_turn`` never outgrows the frame for its list); a longer one is left out
        (null, with its count), as when there are more than `max_legal` moves."""
        self._cache: dict[str, tuple[int, dict[str, Any]]] = {}
        self._answered: dict[str, tuple[int, int]] = {}
        """Per game: the turn, and the ``legal`` requests answered in it."""

    def answered(self, live: LiveGame) -> int:
        """The ``legal`` requests answered (with ``legal_steps``) in the game's turn."""
        turn, count = self._answered.get(live.id, (-1, 0))
        return count if turn == live.turn else 0

    def turn_fields(self, live: LiveGame) -> dict[str, Any]:
        cached = self._cache.get(live.id)
        if cached is not None and cached[0] == live.turn:
            return cached[1]
        fields = legal_fields(live.game, live.match.state, self.max_legal)
        listed = fields.get("legal")
        if listed and self.max_bytes is not None and (
                sum(len(move.encode()) + 3 for move in listed) > self.max_bytes):
            fields["legal"] = None
        self._cache[live.id] = (live.turn, fields)
        return fields

    def forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)
        self._answered.pop(game_id, None)

    def answer(self, live: LiveGame, seats: list[int], turn: int, steps: str) -> Reply:
        """The answer to a ``legal`` request (``legal_steps``, or an ``error``)."""
        game_id = live.id
        if not builds_in_steps(live.game):
            return _error(game_id, *not_step_built(live.game))
        if live.over or live.match.to_act() == TERMINAL:
            return _error(game_id, "game-over", "the game is over")
        if turn != live.turn:
            code = "stale-turn" if turn < live.turn else "future-turn"
            return _error(game_id, code, f"this is turn {live.turn}, not {turn}")
        if live.match.to_act() not in seats:
            return _error(game_id, "not-your-turn",
                          f"seat {live.match.to_act()} is to move in turn {live.turn}")
        result = steps_answer(live.game, live.match.state, steps)
        if isinstance(result, Rejection):
            return _error(game_id, *illegal_steps(result))
        self._answered[game_id] = (turn, self.answered(live) + 1)
        return "legal_steps", {"game_id": game_id, "turn": turn, "prefix": steps,
                               "legal_steps": result}


class Taken(NamedTuple):
    """What became of a ``log`` line (`Notes.take`)."""

    counted: bool
    """Within the counts per turn and per game, so free of the message budget: kept, or
    dropped for the day's budget or the disk (limits of their own)."""
    reply: Reply | None
    """An ``error`` to send, if any."""


@dataclass
class _Count:
    turn: int = -1
    in_turn: int = 0
    in_game: int = 0
    warned_turn: int = -1
    told: set[str] = field(default_factory=set)
    """The refusals said in this game (each once)."""


@dataclass
class Notes:
    """Counts each bot's ``log`` messages against the `LogLimits` (module docstring)."""

    limits: LogLimits = field(default_factory=LogLimits)
    disk_low: bool = False
    """Whether the database's disk has less free space than the server's reserve: no
    line is kept meanwhile (``log-disk-low``)."""
    _counts: dict[tuple[str, int], _Count] = field(default_factory=dict)
    _spent: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per bot, a UTC day and the bytes of its lines kept (or stored) that day."""

    def take(self, live: LiveGame, seat: int, text: str, now: float) -> Taken:
        """Keep `text` with the game (`Match.note`) as `seat`'s line at `now` (seconds
        since the epoch), or say why not (an ``error``)."""
        limits = self.limits
        size = note_size(text)
        if size > limits.max_log_bytes:
            return Taken(False, _error(live.id, "log-too-long", f"a log text of {size} bytes; "
                                                                f"at most {limits.max_log_bytes}"))
        count = self._counts.setdefault((live.id, seat), _Count())
        if count.turn != live.turn:
            count.turn, count.in_turn = live.turn, 0
        if count.in_turn >= limits.max_logs_per_turn or count.in_game >= limits.max_logs_per_game:
            if count.warned_turn == live.turn:
                return Taken(False, None)
            count.warned_turn = live.turn
            return Taken(False, _error(
                live.id, "log-limit",
                f"more than {limits.max_logs_per_turn} log lines this turn or "
                f"{limits.max_logs_per_game} this game: dropped until the next turn"))
        count.in_turn += 1
        count.in_game += 1
        if self.disk_low:
            return Taken(True, _once(count, live.id, "log-disk-low", (
                "the server is short of disk space: debug lines are dropped until it has "
                "more (your games go on)")))
        name = live.players[seat]
        day = utc_day(now)
        spent = self.spent(name, day)
        if spent + size > limits.max_log_bytes_per_day:
            return Taken(True, _once(count, live.id, "log-budget", (
                f"{name} has {spent} bytes of debug lines stored today (UTC), at most "
                f"{limits.max_log_bytes_per_day} a day: dropped until 00:00 UTC (your "
                "games go on)")))
        self._spent[name] = (day, spent + size)
        live.match.note(seat, text, live.turn)
        return Taken(True, None)

    def spent(self, name: str, day: int) -> int:
        """The bytes of `name`'s lines kept on `day` (UTC days since the epoch)."""
        entry = self._spent.get(name)
        return entry[1] if entry is not None and entry[0] == day else 0

    def load(self, name: str, day: int, stored: int) -> None:
        """The database holds `stored` bytes of `name`'s lines for `day` (its games stored
        so far): count on from there, or from what this server counted if that is more
        (its live games' lines are not stored yet)."""
        self._spent[name] = (day, max(stored, self.spent(name, day)))

    def forget_days_before(self, day: int) -> None:
        """Drop the counts of days before `day` (bots that logged nothing since)."""
        for name in [name for name, (when, _) in self._spent.items() if when < day]:
            del self._spent[name]

    def forget(self, game_id: str) -> None:
        for key in [key for key in self._counts if key[0] == game_id]:
            del self._counts[key]


def _once(count: _Count, game_id: str, code: str, message: str) -> Reply | None:
    """An ``error`` the first time `code` is said in a game, then nothing."""
    if code in count.told:
        return None
    count.told.add(code)
    return _error(game_id, code, message)


def _error(game_id: str, code: str, message: str) -> Reply:
    return "error", {"code": code, "message": message, "fatal": False, "game_id": game_id}
