"""What the server offers bots beyond the moves: legal moves and debug lines.

* Legal moves (the ``legal-moves`` capability): `LegalMoves.turn_fields` gives a
  ``your_turn``'s ``legal``, ``legal_count`` and ``legal_steps`` (`arena.legal`),
  computed once per turn of a game and only for clients that asked; `LegalMoves.answer`
  answers a ``legal`` request about a partial move.
* Debug lines (``log`` messages): `Notes.take` keeps them with the game's match (so
  they are stored with its record and shown in its replay), within `LogLimits`.

Both return what to send (a message type and its fields) rather than sending it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.game import TERMINAL, Rejection
from arena.legal import DEFAULT_MAX_LEGAL, builds_in_steps, legal_fields, steps_answer

if TYPE_CHECKING:
    from arena.server.live import LiveGame

__all__ = ["LegalMoves", "LogLimits", "Notes", "Reply"]

Reply = tuple[str, dict[str, Any]]
"""A message to send: its type and fields."""


class LegalMoves:
    """The legal moves of each live game's current turn, computed once per turn."""

    def __init__(self, max_legal: int = DEFAULT_MAX_LEGAL) -> None:
        self.max_legal = max_legal
        self._cache: dict[str, tuple[int, dict[str, Any]]] = {}

    def turn_fields(self, live: LiveGame) -> dict[str, Any]:
        cached = self._cache.get(live.id)
        if cached is not None and cached[0] == live.turn:
            return cached[1]
        fields = legal_fields(live.game, live.match.state, self.max_legal)
        self._cache[live.id] = (live.turn, fields)
        return fields

    def forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)

    def answer(self, live: LiveGame, seats: list[int], turn: int, steps: str) -> Reply:
        """The answer to a ``legal`` request (``legal_steps``, or an ``error``)."""
        game_id = live.id
        if not builds_in_steps(live.game):
            return _error(game_id, "not-step-built",
                          f"{live.game.type.name} moves are not built in steps: use the "
                          "'legal' list of your_turn")
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
            step = "" if result.step is None else f" (step {result.step})"
            return _error(game_id, "illegal-steps", f"{result.code}{step}: {result.message}")
        return "legal_steps", {"game_id": game_id, "turn": turn, "prefix": steps,
                               "legal_steps": result}


@dataclass(frozen=True)
class LogLimits:
    """Bounds on a bot's ``log`` messages (announced in ``welcome.limits``)."""

    max_log_bytes: int = 1024
    """Longest text, in UTF-8 bytes; a longer one is refused (``log-too-long``)."""
    max_logs_per_turn: int = 10
    """Lines kept per bot per turn; more are dropped (``log-limit``, said once a turn)."""
    max_logs_per_game: int = 200
    """Lines kept per bot per game."""

    def to_json(self) -> dict[str, int]:
        return {"max_log_bytes": self.max_log_bytes, "max_logs_per_turn": self.max_logs_per_turn,
                "max_logs_per_game": self.max_logs_per_game}


@dataclass
class _Count:
    turn: int = -1
    in_turn: int = 0
    in_game: int = 0
    warned_turn: int = -1


@dataclass
class Notes:
    """Counts each bot's ``log`` messages per game against the `LogLimits`."""

    limits: LogLimits = field(default_factory=LogLimits)
    _counts: dict[tuple[str, int], _Count] = field(default_factory=dict)

    def take(self, live: LiveGame, seat: int, text: str) -> Reply | None:
        """Keep `text` with the game (`Match.note`), or say why not (an ``error``)."""
        limits = self.limits
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > limits.max_log_bytes:
            return _error(live.id, "log-too-long",
                          f"a log text of {size} bytes; at most {limits.max_log_bytes}")
        count = self._counts.setdefault((live.id, seat), _Count())
        if count.turn != live.turn:
            count.turn, count.in_turn = live.turn, 0
        if count.in_turn >= limits.max_logs_per_turn or count.in_game >= limits.max_logs_per_game:
            if count.warned_turn == live.turn:
                return None
            count.warned_turn = live.turn
            return _error(live.id, "log-limit",
                          f"more than {limits.max_logs_per_turn} log lines this turn or "
                          f"{limits.max_logs_per_game} this game: dropped until the next turn")
        count.in_turn += 1
        count.in_game += 1
        live.match.note(seat, text, live.turn)
        return None

    def forget(self, game_id: str) -> None:
        for key in [key for key in self._counts if key[0] == game_id]:
            del self._counts[key]


def _error(game_id: str, code: str, message: str) -> Reply:
    return "error", {"code": code, "message": message, "fatal": False, "game_id": game_id}
