"""The worker pool: values come back, and runaway jobs fail alone with a reason."""

from __future__ import annotations

import asyncio
import os

import pytest

from arena.workers import JobFailed, WorkerLimits, WorkerPool
from tests.server import worker_jobs


@pytest.fixture
async def pool():
    workers = WorkerPool(WorkerLimits(processes=2, memory_mb=512))
    yield workers
    workers.close()


async def test_a_job_returns_its_value_from_another_process(pool: WorkerPool) -> None:
    pid, doubled = await pool.run(worker_jobs.pid_and_double, 21, timeout=30)
    assert doubled == 42
    assert pid != os.getpid()


async def test_an_endless_job_is_killed_at_its_time_limit(pool: WorkerPool) -> None:
    with pytest.raises(JobFailed) as failure:
        await pool.run(worker_jobs.spin_forever, timeout=0.5)
    assert failure.value.kind == "timeout"
    # the pool replaced the killed worker: jobs still run
    assert (await pool.run(worker_jobs.pid_and_double, 1, timeout=30))[1] == 2


async def test_a_job_over_the_memory_limit_fails_with_memory(pool: WorkerPool) -> None:
    with pytest.raises(JobFailed) as failure:
        await pool.run(worker_jobs.allocate_mib, 2048, timeout=30)
    assert failure.value.kind == "memory"
    assert "512 MiB" in str(failure.value)


async def test_an_exception_in_the_job_names_it(pool: WorkerPool) -> None:
    with pytest.raises(JobFailed) as failure:
        await pool.run(worker_jobs.fail, "no such position", timeout=30)
    assert failure.value.kind == "error"
    assert "ValueError: no such position" in str(failure.value)


async def test_the_event_loop_runs_while_a_job_computes(pool: WorkerPool) -> None:
    job = asyncio.ensure_future(pool.run(worker_jobs.spin_forever, timeout=60))
    ticks = 0
    while ticks < 50:  # the loop keeps turning while the worker spins
        await asyncio.sleep(0)
        ticks += 1
    assert not job.done()
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job


async def test_a_closed_pool_refuses_jobs() -> None:
    workers = WorkerPool(WorkerLimits(processes=1))
    workers.close()
    workers.close()
    with pytest.raises(RuntimeError, match="closed"):
        await workers.run(worker_jobs.pid_and_double, 1, timeout=1)


async def test_workers_yield_the_cpu_to_the_server(pool: WorkerPool) -> None:
    assert await pool.run(worker_jobs.niceness, timeout=30) >= os.nice(0) + 10


async def test_a_job_can_name_its_worker_and_load_is_counted(pool: WorkerPool) -> None:
    pids = {worker: (await pool.run(worker_jobs.pid_and_double, 1, timeout=30, worker=worker))[0]
            for worker in range(pool.size)}
    assert len(set(pids.values())) == pool.size == 2
    again = await pool.run(worker_jobs.pid_and_double, 1, timeout=30, worker=1)
    assert again[0] == pids[1]
    spinning = asyncio.ensure_future(pool.run(worker_jobs.spin_forever, timeout=60, worker=0))
    await asyncio.sleep(0)
    assert pool.load(0) == 1 and pool.least_loaded() == 1
    spinning.cancel()
    with pytest.raises(asyncio.CancelledError):
        await spinning
    assert pool.load(0) == 0


async def test_a_worker_out_of_memory_is_replaced_with_its_caches_gone(pool: WorkerPool) -> None:
    pid, _ = await pool.run(worker_jobs.pid_and_double, 1, timeout=30, worker=0)
    with pytest.raises(JobFailed) as failure:
        await pool.run(worker_jobs.allocate_mib, 2048, timeout=30, worker=0)
    assert failure.value.kind == "memory"
    fresh, _ = await pool.run(worker_jobs.pid_and_double, 1, timeout=30, worker=0)
    assert fresh != pid


async def test_the_modules_a_pool_warms_are_imported_before_the_first_job() -> None:
    """A fresh worker (one that replaced a killed one, say) imports them as it starts, so
    a job's time limit is its own, not the imports' (the replays' workers warm their job's
    module and the game plugins)."""
    warmed = WorkerPool(WorkerLimits(processes=1, memory_mb=512, warm=("arena.games.sim",)))
    cold = WorkerPool(WorkerLimits(processes=1, memory_mb=512))
    try:
        assert await warmed.run(worker_jobs.imported, "arena.games.sim", timeout=30)
        assert not await cold.run(worker_jobs.imported, "arena.games.sim", timeout=30)
        with pytest.raises(JobFailed):
            await warmed.run(worker_jobs.spin_forever, timeout=0.2)
        # the worker that replaced the killed one was warmed too
        assert await warmed.run(worker_jobs.imported, "arena.games.sim", timeout=30)
    finally:
        warmed.close()
        cold.close()
