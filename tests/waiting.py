"""Waiting on a condition instead of sleeping a guessed time (the suite's one helper).

A test that sleeps and then asserts fails on a loaded machine and wastes time on an idle
one; these poll the condition (briefly, without busy-spinning) and fail with a clear
message only after a generous timeout. Timing itself is measured in `bench/`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

__all__ = ["wait_for", "wait_for_sync"]

TIMEOUT = 20.0
"""Seconds: long enough for a loaded 2-core machine; a passing test never waits it out."""


async def wait_for(condition: Callable[[], object], timeout: float = TIMEOUT,
                   what: str | None = None) -> None:
    """Return once `condition()` is true; fail the test after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    delay = 0.001
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"still not true after {timeout} s: {what or _name(condition)}")
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.02)


def wait_for_sync(condition: Callable[[], object], timeout: float = TIMEOUT,
                  what: str | None = None) -> None:
    """`wait_for` for code outside an event loop (threads, subprocesses)."""
    deadline = time.monotonic() + timeout
    delay = 0.001
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout} s: {what or _name(condition)}")
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def _name(condition: Callable[[], object]) -> str:
    code = getattr(condition, "__code__", None)
    where = f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})" if code else ""
    return f"{getattr(condition, '__qualname__', repr(condition))}{where}"
