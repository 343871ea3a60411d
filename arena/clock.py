"""A game's time control, one seat's clock and the timer of one move: values every player
runner shares.

The server (`arena.server.live`), the local runner of program bots (`arena.exec_bot`)
and `arena bot check` keep time by the same rules, so they live below all of them.

A move is timed by wall time (`WallTimer`), or -- for a hosted bot under a time control
of kind ``cpu`` -- by the CPU time its processes use (`CpuTimer`), so that a busy
machine cannot make it lose on time; a wall-time ceiling (`cpu_wall_ceiling_ms`) still
ends a move that sleeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Protocol

__all__ = ["CPU_POLL_SECONDS", "TIME_KINDS", "Clock", "CpuTimer", "MoveTimer", "TimeControl",
           "WallTimer", "cpu_wall_ceiling_ms"]

TIME_KINDS = ("wall", "cpu")
"""What a move's time is: wall time (every bot), or the CPU time of a hosted bot's
processes (`CpuTimer`; other bots in such a game keep wall time)."""


@dataclass(frozen=True)
class TimeControl:
    """Per-game time control and forfeit rules.

    A seat has `move_ms` for each move (`first_move_ms` for its first one); time beyond
    that comes out of its overage bank (`bank_ms`, kept for the whole game). A move
    that would overdraw the bank forfeits on time. `retries` illegal moves may be
    corrected per turn (0: the first illegal move forfeits). A bot whose connection
    stays down longer than `grace_ms` forfeits every game it is playing.

    `kind` says what a move's time is (`TIME_KINDS`): ``wall`` (the default), or ``cpu``:
    a hosted bot's moves take the CPU time its processes use (other seats keep wall
    time). It is written in JSON only when it is not ``wall``, so a time control looks
    as it always did unless a game times by CPU.
    """

    move_ms: int = 2000
    bank_ms: int = 10_000
    first_move_ms: int = 5000
    retries: int = 0
    grace_ms: int = 10_000
    kind: str = "wall"

    def __post_init__(self) -> None:
        if self.kind not in TIME_KINDS:
            raise ValueError(f"time control kind must be one of {', '.join(TIME_KINDS)}, "
                             f"not {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = asdict(self)
        if self.kind == "wall":
            del data["kind"]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimeControl:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown time control fields {sorted(unknown)} (known: {sorted(known)})")
        for key, value in data.items():
            if key == "kind":
                if value not in TIME_KINDS:
                    raise ValueError(f"time control 'kind' must be one of "
                                     f"{', '.join(map(repr, TIME_KINDS))}")
            elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
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


class MoveTimer(Protocol):
    """The time of one move, from the moment the bot is asked."""

    def wait_seconds(self) -> float:
        """How long to wait for the move now, at most (0 or less: its time is up)."""
        ...

    def used_ms(self) -> float:
        """The move's time so far, as its clock is charged."""
        ...

    def overdrawn(self) -> bool:
        """Whether a move that arrives now comes too late."""
        ...

    def late(self) -> str:
        """What ran out, for the message of a move too late ("" for wall time)."""
        ...


class WallTimer:
    """Wall time: `allowance_ms` from now (`Clock.limit_ms` and the bank)."""

    def __init__(self, allowance_ms: float, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._start = now()
        self._deadline = self._start + allowance_ms / 1000

    def wait_seconds(self) -> float:
        return self._deadline - self._now()

    def used_ms(self) -> float:
        return (self._now() - self._start) * 1000

    def overdrawn(self) -> bool:
        return False  # a move read before the deadline is in time (`wait_seconds`)

    def late(self) -> str:
        return ""


CPU_POLL_SECONDS = 0.05
"""How often a CPU-timed move's processes are measured while it runs: a move may
overrun its CPU allowance by at most this much per processor before it loses."""


def cpu_wall_ceiling_ms(allowance_ms: float) -> float:
    """The wall time a CPU-timed move may take: three times its CPU allowance, and at
    least 10 s more than it -- generous to a bot slowed by a busy machine, and still an
    end for one that sleeps or waits for ever.

    >>> cpu_wall_ceiling_ms(2000), cpu_wall_ceiling_ms(12_000)
    (12000, 36000)
    """
    return max(3 * allowance_ms, allowance_ms + 10_000)


class CpuTimer:
    """CPU time: `allowance_ms` of the CPU time `cpu_ns()` counts (the processes of a
    hosted bot), within `cpu_wall_ceiling_ms` of wall time."""

    def __init__(self, allowance_ms: float, cpu_ns: Callable[[], int],
                 now: Callable[[], float] = time.monotonic,
                 poll_seconds: float = CPU_POLL_SECONDS) -> None:
        self._allowance_ms = allowance_ms
        self._cpu_ns = cpu_ns
        self._now = now
        self._poll = poll_seconds
        self._ceiling_ms = cpu_wall_ceiling_ms(allowance_ms)
        self._cpu_start = cpu_ns()
        self._wall_start = now()

    def used_ms(self) -> float:
        return (self._cpu_ns() - self._cpu_start) / 1e6

    def wall_ms(self) -> float:
        return (self._now() - self._wall_start) * 1000

    def wait_seconds(self) -> float:
        cpu_left = self._allowance_ms - self.used_ms()
        wall_left = self._ceiling_ms - self.wall_ms()
        if cpu_left <= 0 or wall_left <= 0:
            return 0.0
        return min(self._poll, cpu_left / 1000, wall_left / 1000)

    def overdrawn(self) -> bool:
        return self.used_ms() > self._allowance_ms or self.wall_ms() > self._ceiling_ms

    def late(self) -> str:
        if self.used_ms() > self._allowance_ms:
            return " of CPU time"
        return (f" of CPU time: it used {self.used_ms():.0f} ms of CPU time in "
                f"{self.wall_ms() / 1000:.1f} s, the wall-time ceiling of a CPU-timed move")
