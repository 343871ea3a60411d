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


def replay_when_released(log: str, *rest: object) -> object:
    """A replay job that waits until the file named by the "log" exists (the test
    releases it), then answers a tiny replay."""
    import time
    from pathlib import Path

    from arena.web.replay import ReplayAnswer

    while not Path(log).exists():
        time.sleep(0.01)
    return ReplayAnswer(b'{"released": true}')


def replay_forever(log: str, *rest: object) -> object:
    """A replay job that never ends (its worker is killed at the time limit)."""
    while True:
        pass
