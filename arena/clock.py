"""A game's time control and one seat's clock: values every player runner shares.

The server (`arena.server.live`), the local runner of program bots (`arena.exec_bot`)
and `arena bot check` keep time by the same rules, so they live below all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

__all__ = ["Clock", "TimeControl"]


@dataclass(frozen=True)
class TimeControl:
    """Per-game time control and forfeit rules.

    A seat has `move_ms` for each move (`first_move_ms` for its first one); time beyond
    that comes out of its overage bank (`bank_ms`, kept for the whole game). A move
    that would overdraw the bank forfeits on time. `retries` illegal moves may be
    corrected per turn (0: the first illegal move forfeits). A bot whose connection
    stays down longer than `grace_ms` forfeits every game it is playing.
    """

    move_ms: int = 2000
    bank_ms: int = 10_000
    first_move_ms: int = 5000
    retries: int = 0
    grace_ms: int = 10_000

    def to_json(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown time control fields {sorted(unknown)} (known: {sorted(known)})")
        for key, value in data.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"time control {key!r} must be a non-negative integer")
        return replace(cls(), **data)



@dataclass
class Clock:
    """One seat's clock: the move allowance and the overage bank (milliseconds)."""

    control: TimeControl
    bank_ms: float = 0.0
    moves: int = 0

    def __post_init__(self) -> None:
        self.bank_ms = float(self.control.bank_ms)

    def limit_ms(self) -> int:
        return self.control.first_move_ms if self.moves == 0 else self.control.move_ms

    def charge(self, elapsed_ms: float) -> None:
        self.bank_ms = max(0.0, self.bank_ms - max(0.0, elapsed_ms - self.limit_ms()))
        self.moves += 1
