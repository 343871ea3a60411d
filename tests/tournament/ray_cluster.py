"""A real local Ray cluster for tests and benchmarks: `ray start` nodes on 127.0.0.1.

Every node is a ``ray start --block`` process in its own session, on free ports found
at run time. `kill` ends a node at once (SIGKILL to its whole process tree, as when a
machine dies); `stop` ends every node gracefully and then whatever is left of them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

RAY = Path(sys.executable).with_name("ray")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def process_tree(root: int) -> list[int]:
    """`root` and every process below it (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def kill_tree(pids: list[int], sig: signal.Signals = signal.SIGKILL) -> None:
    """Signal the processes of `pids` that are still Ray's (a reused pid is left alone)."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"ray" not in cmdline.read():
                    continue
            os.kill(pid, sig)
        except (ProcessLookupError, FileNotFoundError):
            pass


@dataclass
class Node:
    process: subprocess.Popen[bytes]
    node_manager_port: int
    log: Path

    def wait_started(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while "Ray runtime started" not in self.log.read_text(errors="replace"):
            if self.process.poll() is not None:
                raise RuntimeError(f"ray start failed:\n{self.log.read_text(errors='replace')}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"ray start did not finish:\n{self.log.read_text()}")
            time.sleep(0.1)


@dataclass
class RayCluster:
    """A head node with `head_cpus` CPUs; `add_node` joins more."""

    head_cpus: int = 1
    gcs_port: int = field(default_factory=free_port)
    client_port: int = field(default_factory=free_port)
    nodes: list[Node] = field(default_factory=list)
    temp_dir: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="ray", dir="/tmp"))

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.gcs_port}"

    @property
    def client_address(self) -> str:
        return f"ray://127.0.0.1:{self.client_port}"

    def env(self) -> dict[str, str]:
        return {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}

    def _start(self, args: list[str], cpus: int, tries: int = 3) -> Node:
        """Start a node; on a loaded machine `ray start` can time out waiting for the
        GCS (its limit is 30 s), so a failed start is cleaned up and tried again."""
        for attempt in range(1, tries + 1):
            node = self._launch(args, cpus, attempt)
            try:
                node.wait_started()
            except RuntimeError:
                kill_tree(process_tree(node.process.pid))
                node.process.wait()
                if attempt == tries:
                    raise
                continue
            self.nodes.append(node)
            return node
        raise AssertionError("unreachable")

    def _launch(self, args: list[str], cpus: int, attempt: int) -> Node:
        node_manager_port = free_port()
        log = Path(self.temp_dir) / f"node-{len(self.nodes)}-{attempt}.log"
        command = [
            str(RAY), "start", "--block", "--node-ip-address", "127.0.0.1",
            "--num-cpus", str(cpus), "--disable-usage-stats",
            "--node-manager-port", str(node_manager_port),
            "--object-manager-port", str(free_port()),
            "--dashboard-agent-listen-port", str(free_port()),
            "--dashboard-agent-grpc-port", str(free_port()),
            "--runtime-env-agent-port", str(free_port()),
            "--metrics-export-port", str(free_port()),
            "--object-store-memory", str(200 * 1024 * 1024), *args,
        ]
        with open(log, "wb") as output:
            process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                                       env=self.env(), start_new_session=True)
        return Node(process, node_manager_port, log)

    def start(self) -> RayCluster:
        self._start(["--head", "--port", str(self.gcs_port), "--ray-client-server-port",
                     str(self.client_port), "--include-dashboard=false",
                     "--temp-dir", self.temp_dir], self.head_cpus)
        return self

    def add_node(self, cpus: int = 1) -> Node:
        return self._start(["--address", self.address], cpus)

    def kill(self, node: Node) -> None:
        """End a node at once, as if its machine died."""
        kill_tree(process_tree(node.process.pid))
        node.process.wait()

    def stop(self) -> None:
        for node in reversed(self.nodes):
            if node.process.poll() is not None:
                continue
            pids = process_tree(node.process.pid)
            node.process.send_signal(signal.SIGTERM)
            try:
                node.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            kill_tree(pids)
            node.process.wait()
        shutil.rmtree(self.temp_dir, ignore_errors=True)
