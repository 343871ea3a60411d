"""Run a tournament on a Ray cluster and kill one of its nodes once that node has
returned two batches (so that it is warm and running the next one): ``python -m
tests.tournament.ray_kill_driver ADDRESS NODE_MANAGER_PORT PID SPEC_JSON``.

Prints one JSON object: the tournament's JSON tables, the batches retried, the bots each
worker process built, and the nodes that returned batches.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Generator, Iterable

import ray

from arena.tournament import TournamentSpec, run_tournament, to_json
from arena.tournament.batch import Batch, BatchResult
from arena.tournament.cluster import RayExecutor
from tests.tournament.ray_cluster import kill_tree, process_tree


class KillingExecutor(RayExecutor):
    def __init__(self, address: str, victim_port: int, victim_pid: int) -> None:
        super().__init__(address)
        [self.victim] = [n["NodeID"] for n in ray.nodes()
                         if n["Alive"] and n["NodeManagerPort"] == victim_port]
        self.victim_pid = victim_pid
        self.killed = False
        self.built: dict[str, list[str]] = {}
        self.nodes: list[str] = []

    def map_unordered(self, batches: Iterable[Batch]) -> Generator[BatchResult, None, None]:
        for result in super().map_unordered(batches):
            node = result.worker.split(":")[0]
            self.nodes.append(node)
            self.built.setdefault(result.worker, []).extend(result.built)
            if node == self.victim and self.nodes.count(node) == 2:
                kill_tree(process_tree(self.victim_pid))
                self.killed = True
            yield result


def main() -> None:
    address, port, pid, spec_text = sys.argv[1:]
    spec = TournamentSpec.from_json(json.loads(spec_text))
    executor = KillingExecutor(address, int(port), int(pid))
    with executor:
        result = run_tournament(spec, executor=executor)
    print(json.dumps({
        "tables": to_json(result), "retried": executor.retried, "killed": executor.killed,
        "victim": executor.victim, "built": executor.built, "nodes": executor.nodes,
    }))


if __name__ == "__main__":
    main()
