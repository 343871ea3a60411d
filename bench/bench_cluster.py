"""Tournament throughput on a local Ray cluster against the local process pool.

One tournament (substitution, classic grammar, three bots, both seats of every pair of
dice) is played:

1. in this process and on a local pool of 2 processes;
2. on a Ray cluster started here (`ray start` on 127.0.0.1) with 1 and then 2 worker
   CPUs, twice each through one driver: the first run pays for starting Ray's worker
   processes, the second is the steady state.

Then the per-batch costs: the driver's CPU time per batch (submit, receive, store), and
Ray's round trip for a batch that plays one short game. From these, an estimate of the
efficiency of a 100-node cluster (docs/tournaments.md explains the model).

    python bench/bench_cluster.py [--games 150] [--moves 40] [--cores-per-node 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.games.substitution import Settings
from arena.tournament import TournamentSpec, run_tournament
from arena.tournament.batch import Batch, play_batch
from arena.tournament.executors import Executor, InProcess, LocalPool
from arena.tournament.spec import Pairing

BOTS = ("random", "short-words", "smart-random")


def timed(spec: TournamentSpec, executor: Executor, out: Path | None = None) -> tuple[float, float]:
    """(wall seconds, driver CPU seconds) of one run."""
    wall, cpu = time.perf_counter(), time.process_time()
    run_tournament(spec, executor=executor, out=out)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150, help="pairs of dice per pairing")
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--cores-per-node", type=int, default=2)
    args = parser.parse_args()
    spec = TournamentSpec("substitution", Settings.preset("classic", args.moves).to_json(), BOTS,
                          args.games, 1)
    games = spec.total_games()
    batches = len(spec.pairings()) * -(-args.games // 25)
    print(f"{games} games in {batches} batches (classic, {args.moves} turns, bots {BOTS}); "
          "measured on a shared 2-core machine")
    rows = []
    with InProcess() as here:
        wall, _ = timed(spec, here)
    rows.append(("this process", 1, wall))
    with LocalPool(2) as pool:
        timed(spec, pool)  # fork the workers and build the bots
        wall, _ = timed(spec, pool)
    rows.append(("local pool", 2, wall))

    from arena.tournament.cluster import RayExecutor
    from tests.tournament.ray_cluster import RayCluster

    driver_cpu = 0.0
    round_trip = 0.0
    for cpus in (1, 2):
        cluster = RayCluster(head_cpus=cpus).start()
        try:
            with RayExecutor(cluster.address) as ray_executor:
                cold, _ = timed(spec, ray_executor)
                with tempfile.TemporaryDirectory() as out:
                    wall, cpu = timed(spec, ray_executor, Path(out))
                rows.append(("Ray, first run (starts its workers)", cpus, cold))
                rows.append(("Ray, steady", cpus, wall))
                if cpus == 2:
                    driver_cpu = cpu / batches
                    tiny = TournamentSpec("substitution", Settings.preset("classic", 1).to_json(),
                                          ("random", "short-words"), 200, 1)
                    local = time.perf_counter()
                    for i in range(50):
                        play_batch(Batch(tiny, Pairing(0, 1), i, i + 1))
                    local = (time.perf_counter() - local) / 50
                    work = [Batch(tiny, Pairing(0, 1), i, i + 1) for i in range(200)]
                    start = time.perf_counter()
                    for _ in ray_executor.map_unordered(work):
                        pass
                    round_trip = (time.perf_counter() - start) / 200 * cpus - local
        finally:
            cluster.stop()
    print(f"{'where':40} {'workers':>7} {'wall s':>8} {'games/s':>8} {'vs 1 process':>13}")
    for name, workers, wall in rows:
        print(f"{name:40} {workers:>7} {wall:>8.2f} {games / wall:>8.0f} "
              f"{rows[0][2] / wall:>12.2f}x")
    ray_one = next(w for n, c, w in rows if n == "Ray, steady" and c == 1)
    ray_two = next(w for n, c, w in rows if n == "Ray, steady" and c == 2)
    print(f"Ray scaling efficiency, 1 -> 2 workers: {ray_one / ray_two / 2:.0%}; "
          f"Ray (2) against the local pool (2): {rows[1][2] / ray_two:.0%} of its throughput")
    batch_work = rows[0][2] / batches
    print(f"per batch: {batch_work * 1000:.0f} ms of play; driver CPU {driver_cpu * 1000:.1f} ms "
          f"(submit, receive, store results and logs); Ray round trip {round_trip * 1000:.1f} ms")
    cores = 100 * args.cores_per_node
    demand = cores / batch_work
    capacity = 1 / driver_cpu if driver_cpu else float("inf")
    efficiency = min(1.0, capacity / demand) * batch_work / (batch_work + max(round_trip, 0))
    print(f"estimate, 100 nodes x {args.cores_per_node} cores: the workers finish {demand:.0f} "
          f"batches/s, one driver stores up to {capacity:.0f}/s -> about {efficiency:.0%} "
          f"efficiency ({efficiency * cores:.0f} of {cores} cores busy) with batches of this size; "
          f"batches of {cores * driver_cpu:.1f} s of play or more keep every core busy")


if __name__ == "__main__":
    main()
