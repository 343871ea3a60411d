"""Imported by a server the benchmarks start: notes every event-loop callback that uses
more than 5 ms of CPU (the thread's own time, so not a wait for a busy machine's cores)
in the file named by ``$ARENA_LOOPWATCH``, one line ``<unix time> <cpu ms>`` each."""

from __future__ import annotations

import asyncio.events
import os
import time
from typing import Any

_PATH = os.environ["ARENA_LOOPWATCH"]
_run = asyncio.events.Handle._run


def _timed_run(self: Any) -> None:
    started = time.thread_time()
    _run(self)
    used = time.thread_time() - started
    if used > 0.005:
        with open(_PATH, "a", encoding="utf-8") as out:
            out.write(f"{time.time():.3f} {used * 1000:.1f}\n")


asyncio.events.Handle._run = _timed_run  # type: ignore[method-assign]
