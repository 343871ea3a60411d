"""The bounds on a bot's debug lines (``log`` messages, ``#`` lines of a program).

Announced in ``welcome.limits`` by the server and passed on in the ``limits`` line by the
stdio bridge, so both read the defaults from here (the bridge without importing the
server).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LogLimits", "note_size", "utc_day"]


@dataclass(frozen=True)
class LogLimits:
    """Bounds on a bot's ``log`` messages (announced in ``welcome.limits``)."""

    max_log_bytes: int = 1024
    """Longest text, in UTF-8 bytes; a longer one is refused (``log-too-long``)."""
    max_logs_per_turn: int = 10
    """Lines kept per bot per turn; more are dropped (``log-limit``, said once a turn)."""
    max_logs_per_game: int = 200
    """Lines kept per bot per game."""
    max_log_bytes_per_day: int = 4 * 1024 * 1024
    """UTF-8 bytes of lines kept per bot per UTC day, in all its games (what the server
    stores for it); more are dropped (``log-budget``, said once a game), its games go on."""

    def to_json(self) -> dict[str, int]:
        return {"max_log_bytes": self.max_log_bytes, "max_logs_per_turn": self.max_logs_per_turn,
                "max_logs_per_game": self.max_logs_per_game,
                "max_log_bytes_per_day": self.max_log_bytes_per_day}


def note_size(text: str) -> int:
    """A debug line's size as the limits count it: its UTF-8 bytes."""
    return len(text.encode("utf-8", "surrogatepass"))


def utc_day(now: float) -> int:
    """The UTC day of `now` (seconds since the epoch), as days since the epoch: the day
    `LogLimits.max_log_bytes_per_day` counts in."""
    return int(now // 86400)
