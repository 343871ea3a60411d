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
from typing import Self

from arena.errors import ArenaError
from arena.tournament.batch import Batch, BatchResult, play_batch

__all__ = ["RETRIES", "Executor", "InProcess", "LocalPool", "make_executor"]

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


class LocalPool(Executor):
    """Worker processes on this machine (pebble's pool, forked from this process)."""

    def __init__(self, processes: int) -> None:
        import pebble

        self.workers = processes
        self._pool = pebble.ProcessPool(max_workers=processes,
                                        context=multiprocessing.get_context("fork"))

    def map_unordered(self, batches: Iterable[Batch]) -> Generator[BatchResult, None, None]:
        import pebble

        pending: dict[concurrent.futures.Future[BatchResult], tuple[Batch, int]] = {}
        source = iter(batches)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < 2 * self.workers:
                    batch = next(source, None)
                    if batch is None:
                        exhausted = True
                        break
                    pending[self._pool.schedule(play_batch, (batch,))] = (batch, 0)
                if not pending:
                    return
                done, _ = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    batch, tries = pending.pop(future)
                    try:
                        result = future.result()
                    except pebble.ProcessExpired as error:
                        if tries >= RETRIES:
                            raise ArenaError(
                                f"batch {batch.name()} lost its worker {tries + 1} times "
                                f"({error})") from None
                        self.retried += 1
                        pending[self._pool.schedule(play_batch, (batch,))] = (batch, tries + 1)
                        continue
                    yield result
        finally:
            for future in pending:
                future.cancel()

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
