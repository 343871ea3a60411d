"""Waiting on a condition instead of sleeping a guessed time (the suite's one helper).

A test that sleeps and then asserts fails on a loaded machine and wastes time on an idle
one; these poll the condition (briefly, without busy-spinning) and fail with a clear
message only after a generous timeout. Timing itself is measured in `bench/`.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any

__all__ = ["never", "wait_for", "wait_for_sync"]

TIMEOUT = 20.0
"""Seconds: long enough for a loaded 2-core machine; a passing test never waits it out."""


async def wait_for(condition: Callable[[], Any], timeout: float = TIMEOUT,
                   what: str | None = None) -> Any:
    """Return `condition()`'s first true value (awaited, if it gives an awaitable); fail
    the test after `timeout` seconds. An exception from `condition` ends the wait (a
    condition may so report that what it waits on died)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    delay = 0.001
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"still not true after {timeout} s: {what or _name(condition)}")
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)


def wait_for_sync(condition: Callable[[], Any], timeout: float = TIMEOUT,
                  what: str | None = None) -> Any:
    """`wait_for` for code outside an event loop (threads, subprocesses)."""
    deadline = time.monotonic() + timeout
    delay = 0.001
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout} s: {what or _name(condition)}")
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    return value


async def never(*_: object) -> str:
    """A bot's move that never comes (the game must end some other way: a timeout, a
    disconnect, the test's end), rather than one that comes after a guessed time."""
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def _name(condition: Callable[[], object]) -> str:
    code = getattr(condition, "__code__", None)
    where = f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})" if code else ""
    return f"{getattr(condition, '__qualname__', repr(condition))}{where}"
