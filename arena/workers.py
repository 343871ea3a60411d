"""Worker processes: where the heavy work of the server and the web runs, off the event loop.

A house bot's move (a solver may think for seconds and take gigabytes) or the replay
of an uploaded log would stall every game if it ran on the event loop, and even in a
thread it competes for the interpreter. `WorkerPool` runs such jobs in a pool of
worker processes (pebble's `ProcessPool`):

* each job has a time limit; when it is up, the job's worker is killed and replaced,
  so a runaway job costs only its own game or request;
* workers run at a lower scheduling priority (``nice``) than the server, so that a
  busy worker never takes the CPU from the event loop;
* every worker runs under an address-space limit (``RLIMIT_AS``), so a job that
  would take the machine's memory fails with `MemoryError` instead; the worker then
  exits and is replaced, so that whatever the job had cached is gone with it;
* workers start from a clean fork server, not as forks of the server (which runs
  threads), and keep whatever a job function caches at module level between jobs;
* a job may name the worker it runs in (`run`'s ``worker``), so that work that
  prepared something in one worker (a house bot's tables) finds it there again; each
  worker takes its jobs in order, and `load` tells how many each has.

A job is a module-level function and picklable arguments; its failure comes back as
a `JobFailed` that says why (time, memory, a crash or an exception in the job).

    pool = WorkerPool(WorkerLimits(processes=2, memory_mb=1024))
    value = await pool.run(some_module.function, arg, timeout=5.0)
    pool.close()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import multiprocessing
import os
import resource
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import pebble

from arena.errors import ArenaError

__all__ = ["WORKER_NICE", "JobFailed", "WorkerLimits", "WorkerPool", "limit_worker"]

T = TypeVar("T")

FailureKind = Literal["timeout", "memory", "crashed", "error"]


WORKER_NICE = 10
"""How much lower a worker process's scheduling priority is than the server's."""

_MEMORY_EXIT = 86
"""Exit status of a worker that ran out of memory (see `_guarded`)."""


@dataclass(frozen=True)
class WorkerLimits:
    """How many worker processes run jobs, and the memory each may map."""

    processes: int = 2
    memory_mb: int = 1024
    """Address-space limit of each worker (``RLIMIT_AS``), in MiB; 0: no limit."""
    max_tasks: int = 0
    """Jobs a worker runs before it is replaced by a fresh one (0: no limit)."""
    nice: int = WORKER_NICE
    """How much lower the workers' scheduling priority is than the server's."""
    warm: tuple[str, ...] = ()
    """Modules each worker imports as it starts, before its first job: a job's time
    limit is then its own, not the imports' of a fresh worker (one that replaced a
    killed worker, on a loaded machine, could spend most of a short limit on them)."""


class JobFailed(ArenaError):
    """A job did not return a value: `kind` says why, the message says what happened."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind


def limit_worker(memory_mb: int, nice: int = WORKER_NICE, warm: tuple[str, ...] = ()) -> None:
    """Lower this worker process's priority, import `warm`, cap its address space: what
    every worker of the server does first (the pools' initializer; the web's tournament
    worker)."""
    if nice > 0:
        os.nice(nice)
    for module in warm:
        importlib.import_module(module)
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _guarded(function: Callable[..., T], args: tuple[Any, ...]) -> T:
    """Run a job in a worker; a worker out of memory exits (its caches with it)."""
    try:
        return function(*args)
    except MemoryError:
        os._exit(_MEMORY_EXIT)


class WorkerPool:
    """A pool of worker processes with per-job time and memory limits (module docstring)."""

    def __init__(self, limits: WorkerLimits = WorkerLimits()) -> None:
        self.limits = limits
        context = multiprocessing.get_context("forkserver")
        # one single-process pool per worker, so that a job can name its worker
        self._workers = [
            pebble.ProcessPool(max_workers=1, max_tasks=limits.max_tasks,
                               initializer=limit_worker,
                               initargs=(limits.memory_mb, limits.nice, limits.warm),
                               context=context)
            for _ in range(max(1, limits.processes))
        ]
        self._load = [0] * len(self._workers)
        self._started = [False] * len(self._workers)
        self._starting = [asyncio.Lock() for _ in self._workers]
        self._closed = False

    @property
    def size(self) -> int:
        """The number of workers (numbered from 0)."""
        return len(self._workers)

    def load(self, worker: int) -> int:
        """Jobs given to `worker` that have not finished (running or waiting)."""
        return self._load[worker]

    def least_loaded(self, workers: Iterable[int] | None = None) -> int:
        """Of `workers` (default: all), the one with the fewest unfinished jobs."""
        candidates = range(self.size) if workers is None else workers
        return min(candidates, key=lambda worker: (self._load[worker], worker))

    async def run(self, function: Callable[..., T], *args: Any, timeout: float,
                  worker: int | None = None) -> T:
        """Run ``function(*args)`` in a worker (`worker`, or the least loaded one); its
        value, or `JobFailed`.

        Raises:
            JobFailed: the job overran `timeout` seconds (its worker was killed), ran
                out of memory, killed its worker, or raised (the message names it).
            RuntimeError: the pool is closed.
        """
        if self._closed:
            raise RuntimeError("the worker pool is closed")
        if worker is None:
            worker = self.least_loaded()
        future = await self._schedule(worker, function, args, timeout)
        self._load[worker] += 1
        try:
            return await asyncio.wrap_future(future)
        except concurrent.futures.TimeoutError:
            raise JobFailed("timeout", f"took longer than {timeout:g} s") from None
        except MemoryError:  # raised while the result was being sent back
            raise JobFailed("memory", self._memory_message()) from None
        except pebble.ProcessExpired as error:
            if error.exitcode == _MEMORY_EXIT:
                raise JobFailed("memory", self._memory_message()) from None
            raise JobFailed("crashed", f"its worker died (exit code {error.exitcode})") from None
        except asyncio.CancelledError:
            future.cancel()  # pebble kills its worker
            raise
        except Exception as error:  # noqa: BLE001 - the job's own failure, reported as such
            raise JobFailed("error", f"{type(error).__name__}: {error}") from None
        finally:
            self._load[worker] -= 1

    async def _schedule(self, worker: int, function: Callable[..., Any],
                        args: tuple[Any, ...], timeout: float) -> Any:
        """Hand the job to `worker`'s pool. Its first job starts the pool, which starts
        the fork server and waits for it: that happens in a thread, not on the loop."""
        pool = self._workers[worker]
        if not self._started[worker]:
            async with self._starting[worker]:
                if not self._started[worker]:
                    future = await asyncio.to_thread(pool.schedule, _guarded,
                                                     args=(function, args), timeout=timeout)
                    self._started[worker] = True
                    return future
        return pool.schedule(_guarded, args=(function, args), timeout=timeout)

    def _memory_message(self) -> str:
        return f"needed more than {self.limits.memory_mb} MiB of memory"

    def close(self) -> None:
        """Stop the workers (running jobs are killed); safe to call twice."""
        if not self._closed:
            self._closed = True
            for pool in self._workers:
                pool.stop()  # type: ignore[no-untyped-call]
            for pool in self._workers:
                pool.join(timeout=5)
