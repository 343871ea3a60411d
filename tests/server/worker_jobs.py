"""Module-level jobs for the worker pool's tests (workers import them by name)."""

from __future__ import annotations

import os


def pid_and_double(value: int) -> tuple[int, int]:
    return os.getpid(), 2 * value


def spin_forever() -> None:
    while True:
        pass


def allocate_mib(mib: int) -> int:
    block = bytearray(mib * 1024 * 1024)
    return len(block)


def fail(message: str) -> None:
    raise ValueError(message)


def forget_house_bots() -> int:
    """Drop the house bots this worker has ready (as if they had been evicted)."""
    from arena.server import house

    count = len(house._BOTS)
    house._BOTS.clear()
    return count


def niceness() -> int:
    import os

    return os.nice(0)
def replay_when_released(log: str, plugins: object, limits: object, extra: object,
                         out: str, gzipped: bool) -> object:
    """A replay job that waits until the file named by the "log" exists (the test
    releases it), then answers a tiny replay."""
    import gzip
    from pathlib import Path

    from arena.web.replay import ReplayAnswer
    from tests.waiting import wait_for_sync

    wait_for_sync(Path(log).exists, 120, f"{log} exists")
    answer = b'{"released": true}'
    Path(out).write_bytes(gzip.compress(answer) if gzipped else answer)
    return ReplayAnswer(len(answer))


def replay_forever(log: str, *rest: object) -> object:
    """A replay job that never ends (its worker is killed at the time limit)."""
    while True:
        pass


def replay_that_fails(*args: object) -> object:
    """A replay job with a bug of its own (what a plugin's rules might raise)."""
    raise RuntimeError("internal detail")


def imported(module: str) -> bool:
    """Whether `module` was imported in this worker before the job began."""
    import sys

    return module in sys.modules
