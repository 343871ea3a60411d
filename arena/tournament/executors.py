"""Where batches run: in this process, in a pool of local processes, or (`cluster`) on Ray.

Every executor takes an iterable of batches and yields their results as they finish,
in any order, keeping only a bounded number in flight (so a match can stop early and an
endless stream of batches is fine). A batch whose worker died is retried elsewhere, up
to `RETRIES` times; an exception raised by the game or a bot is not retried: it stops
the run with its message.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
from collections.abc import Generator, Iterable
from types import TracebackType
from typing import Any, Self

from arena.errors import ArenaError
from arena.tournament.batch import Batch, BatchResult, play_batch

__all__ = [
    "RETRIES", "Executor", "InProcess", "LocalPool", "Windowed", "WorkerLost", "make_executor",
]

RETRIES = 3
"""How many times a batch is retried after its worker died."""


class Executor:
    """Runs batches; yields results as they finish (see the module)."""

    workers: int = 1
    retried: int = 0
    """Batches retried after their worker died, so far."""

    def map_unordered(self, batches: Iterable[Batch]) -> Generator[BatchResult, None, None]:
        raise NotImplementedError

    def describe(self) -> str:
        return f"{self.workers} worker{'s' if self.workers != 1 else ''}"

    def close(self) -> None:
        """Stop the workers (batches still running are abandoned)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


class InProcess(Executor):
    """Plays every batch here, one after the other (``--jobs 1``)."""

    def map_unordered(self, batches: Iterable[Batch]) -> Generator[BatchResult, None, None]:
        for batch in batches:
            yield play_batch(batch)

    def describe(self) -> str:
        return "this process"


class WorkerLost(Exception):
    """The worker (process or node) playing a batch died: the batch may be retried."""


class Windowed(Executor):
    """An executor that submits batches and waits on handles (pool futures, Ray refs).

    At most ``2 × workers`` batches are in flight, so a worker never waits for the
    driver to hand it the next one and an early stop wastes little.
    """

    def _submit(self, batch: Batch) -> Any:
        raise NotImplementedError

    def _wait(self, handles: list[Any]) -> list[Any]:
        """Block until some handles are done; return them."""
        raise NotImplementedError

    def _result(self, handle: Any) -> BatchResult:
        """The result of a finished handle; raise `WorkerLost` if its worker died."""
        raise NotImplementedError

    def _cancel(self, handle: Any) -> None:
        raise NotImplementedError

    def map_unordered(self, batches: Iterable[Batch]) -> Generator[BatchResult, None, None]:
        pending: dict[Any, tuple[Batch, int]] = {}
        source = iter(batches)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < 2 * self.workers:
                    batch = next(source, None)
                    if batch is None:
                        exhausted = True
                        break
                    pending[self._submit(batch)] = (batch, 0)
                if not pending:
                    return
                for handle in self._wait(list(pending)):
                    batch, tries = pending.pop(handle)
                    try:
                        result = self._result(handle)
                    except WorkerLost as lost:
                        if tries >= RETRIES:
                            raise ArenaError(
                                f"batch {batch.name()} lost its worker {tries + 1} times "
                                f"({lost})") from None
                        self.retried += 1
                        pending[self._submit(batch)] = (batch, tries + 1)
                        continue
                    yield result
        finally:
            for handle in pending:
                self._cancel(handle)


class LocalPool(Windowed):
    """Worker processes on this machine (pebble's pool, forked from this process)."""

    def __init__(self, processes: int) -> None:
        import pebble

        self.workers = processes
        self._pool = pebble.ProcessPool(max_workers=processes,
                                        context=multiprocessing.get_context("fork"))

    def _submit(self, batch: Batch) -> Any:
        return self._pool.schedule(play_batch, (batch,))

    def _wait(self, handles: list[Any]) -> list[Any]:
        done, _ = concurrent.futures.wait(handles, return_when=concurrent.futures.FIRST_COMPLETED)
        return list(done)

    def _result(self, handle: Any) -> BatchResult:
        import pebble

        try:
            result: BatchResult = handle.result()
        except pebble.ProcessExpired as error:
            raise WorkerLost(str(error)) from None
        return result

    def _cancel(self, handle: Any) -> None:
        # Only batches not started yet: pebble cancels a running one by killing its
        # worker, which could die holding the pool's channel and stall the pool.
        if not handle.running():
            handle.cancel()

    def close(self) -> None:
        self._pool.stop()  # type: ignore[no-untyped-call]
        self._pool.join()


def make_executor(processes: int | None = None, cluster: str | None = None) -> Executor:
    """The executor for ``--jobs N`` (default: every core) or ``--cluster ADDRESS``."""
    if cluster is not None:
        from arena.tournament.cluster import RayExecutor

        return RayExecutor(cluster)
    if processes is None:
        processes = multiprocessing.cpu_count()
    if processes <= 1:
        return InProcess()
    return LocalPool(processes)
