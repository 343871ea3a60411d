"""Batches on a Ray cluster (``--cluster ray://HOST:PORT``, ``HOST:PORT`` or ``auto``).

Ray is an optional extra (``pip install 'arena[cluster]'``) imported only here. Each
batch is a Ray task needing one CPU; Ray reuses its worker processes, so a worker keeps
the game and the bots it built (and prepared) for the batches that follow
(`arena.tournament.batch`). Results stream back to the driver as tasks finish; the
driver stores them. A task whose worker or node died is submitted again (Ray then
places it on a live node); the games it replays are the same, so the tables do not
change.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys
from typing import Any

from arena.errors import ArenaError
from arena.tournament.batch import Batch, BatchResult, play_batch
from arena.tournament.executors import Windowed, WorkerLost

__all__ = ["CONNECT_TRIES", "RayExecutor", "ray_address"]

CONNECT_TRIES = 3


def ray_address(cluster: str) -> str:
    """The address `ray.init` takes for a ``--cluster`` value."""
    cluster = cluster.strip()
    if not cluster:
        raise ArenaError("--cluster needs an address: ray://HOST:PORT, HOST:PORT or auto")
    return cluster


def _play_on_ray(batch: Batch) -> BatchResult:
    import ray

    result = play_batch(batch)
    node = ray.get_runtime_context().get_node_id()
    return dataclasses.replace(result, worker=f"{node}:{os.getpid()}")


class RayExecutor(Windowed):
    """Runs batches as Ray tasks on the cluster at `cluster` (see the module)."""

    def __init__(self, cluster: str) -> None:
        try:
            import ray as ray_module
        except ImportError:
            raise ArenaError(
                "--cluster needs Ray, an optional extra: pip install 'arena[cluster]'"
            ) from None
        ray: Any = ray_module
        self._ray = ray
        self.address = ray_address(cluster)
        self._owner = not ray.is_initialized()
        if self._owner:
            self._join()
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < 1:
            self.close()
            raise ArenaError(f"the Ray cluster at {self.address} has no CPU to run games on")
        self.workers = cpus
        self._remote = ray.remote(num_cpus=1, max_retries=0, scheduling_strategy="SPREAD")(
            _play_on_ray)

    def _join(self) -> None:
        """Connect; a Ray client connection is tried `CONNECT_TRIES` times (its server on
        the head can fail to start a session for a new client while the head is busy)."""
        ray = self._ray
        tries = CONNECT_TRIES if self.address.startswith("ray://") else 1
        for attempt in range(1, tries + 1):
            try:
                ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING)
                return
            except (ConnectionError, RuntimeError, ValueError) as error:
                ray.shutdown()
                if attempt == tries:
                    raise ArenaError(
                        f"cannot join the Ray cluster at {self.address}: {error}") from None
                print(f"joining {self.address} failed ({str(error).splitlines()[-1]}); "
                      "trying again", file=sys.stderr)

    def describe(self) -> str:
        return f"Ray cluster {self.address} ({self.workers} CPUs)"

    def _submit(self, batch: Batch) -> Any:
        return self._remote.remote(batch)

    def _wait(self, handles: list[Any]) -> list[Any]:
        ready, rest = self._ray.wait(handles, num_returns=1)
        if rest:  # and whatever else is done already
            more, _ = self._ray.wait(rest, num_returns=len(rest), timeout=0)
            ready += more
        return list(ready)

    def _result(self, handle: Any) -> BatchResult:
        ray = self._ray
        try:
            result: BatchResult = ray.get(handle)
        except ray.exceptions.RayTaskError as error:  # the game or a bot raised
            raise error.as_instanceof_cause() from None
        except ray.exceptions.RayError as error:  # the worker or its node died
            raise WorkerLost(type(error).__name__) from None
        return result

    def _cancel(self, handle: Any) -> None:
        # a task that has just ended cannot be cancelled: nothing to do then
        with contextlib.suppress(Exception):
            self._ray.cancel(handle, force=True)

    def close(self) -> None:
        if self._owner and self._ray.is_initialized():
            self._ray.shutdown()
