"""Worker processes: where the server's heavy work runs, never on its event loop.

A house bot's move (a solver may think for seconds and take gigabytes) or the replay
of an uploaded log would stall every game if it ran on the event loop, and even in a
thread it competes for the interpreter. `WorkerPool` runs such jobs in a pool of
worker processes (pebble's `ProcessPool`):

* each job has a time limit; when it is up, the job's worker is killed and replaced,
  so a runaway job costs only its own game or request;
* every worker runs under an address-space limit (``RLIMIT_AS``), so a job that
  would take the machine's memory fails with `MemoryError` instead;
* workers start from a clean fork server, not as forks of the server (which runs
  threads), and keep whatever a job function caches at module level between jobs.

A job is a module-level function and picklable arguments; its failure comes back as
a `JobFailed` that says why (time, memory, a crash or an exception in the job).

    pool = WorkerPool(WorkerLimits(processes=2, memory_mb=1024))
    value = await pool.run(some_module.function, arg, timeout=5.0)
    pool.close()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import pebble

from arena.errors import ArenaError

__all__ = ["JobFailed", "WorkerLimits", "WorkerPool"]

T = TypeVar("T")

FailureKind = Literal["timeout", "memory", "crashed", "error"]


@dataclass(frozen=True)
class WorkerLimits:
    """How many worker processes run jobs, and the memory each may map."""

    processes: int = 2
    memory_mb: int = 1024
    """Address-space limit of each worker (``RLIMIT_AS``), in MiB; 0: no limit."""


class JobFailed(ArenaError):
    """A job did not return a value: `kind` says why, the message says what happened."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind


def _limit_memory(memory_mb: int) -> None:
    """Worker initializer: cap the worker's address space."""
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class WorkerPool:
    """A pool of worker processes with per-job time and memory limits (module docstring)."""

    def __init__(self, limits: WorkerLimits = WorkerLimits()) -> None:
        self.limits = limits
        self._pool = pebble.ProcessPool(
            max_workers=limits.processes,
            initializer=_limit_memory,
            initargs=(limits.memory_mb,),
            context=multiprocessing.get_context("forkserver"),
        )
        self._closed = False

    async def run(self, function: Callable[..., T], *args: Any, timeout: float) -> T:
        """Run ``function(*args)`` in a worker; its value, or `JobFailed`.

        Raises:
            JobFailed: the job overran `timeout` seconds (its worker was killed), ran
                out of memory, killed its worker, or raised (the message names it).
            RuntimeError: the pool is closed.
        """
        if self._closed:
            raise RuntimeError("the worker pool is closed")
        future = self._pool.schedule(function, args=args, timeout=timeout)
        try:
            return await asyncio.wrap_future(future)
        except concurrent.futures.TimeoutError:
            raise JobFailed("timeout", f"took longer than {timeout:g} s") from None
        except MemoryError:
            raise JobFailed(
                "memory", f"needed more than {self.limits.memory_mb} MiB of memory") from None
        except pebble.ProcessExpired as error:
            raise JobFailed("crashed", f"its worker died (exit code {error.exitcode})") from None
        except asyncio.CancelledError:
            future.cancel()  # type: ignore[no-untyped-call]  # pebble kills its worker
            raise
        except Exception as error:  # noqa: BLE001 - the job's own failure, reported as such
            raise JobFailed("error", f"{type(error).__name__}: {error}") from None

    def close(self) -> None:
        """Stop the workers (running jobs are killed); safe to call twice."""
        if not self._closed:
            self._closed = True
            self._pool.stop()  # type: ignore[no-untyped-call]
            self._pool.join(timeout=5)
