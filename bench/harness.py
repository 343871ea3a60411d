"""What the server benchmarks share: a server in a subprocess, its memory and CPU, timed
bot clients, percentiles. (Imported by the bench scripts, which run from this folder.)"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

from clients.sdk import ArenaClient, Turn
from protocol import Message

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def memory_kib(pid: int) -> tuple[int, int]:
    """A process's resident memory and its peak, in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def http_get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return bytes(reply.read())


@contextlib.asynccontextmanager
async def arena_server(port: int, db: str, *flags: str, preamble: str = "",
                       env: Mapping[str, str] | None = None, root: Path = ROOT,
                       wrapper: tuple[str, ...] = (), starts_within: float = 30.0,
                       ) -> AsyncIterator[subprocess.Popen[bytes]]:
    """`arena serve` of the checkout `root` on `port` in a subprocess, once its /healthz
    answers (within `starts_within` seconds); stopped after.

    `preamble` is Python run before the server (``import loopwatch``); `wrapper` the
    command it runs under (``valgrind ...``)."""
    server = subprocess.Popen(  # noqa: ASYNC220 - starting it does not block
        [*wrapper, sys.executable, "-c", f"{preamble}; from arena.cli import main; main()"
         if preamble else "from arena.cli import main; main()", "serve", "--port", str(port),
         "--db", db, *flags],
        env={**os.environ, "PYTHONPATH": str(root), **(env or {})}, cwd=root,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if wrapper else None)
    try:
        for _ in range(int(starts_within / 0.05)):
            try:
                await asyncio.to_thread(http_get, f"http://127.0.0.1:{port}/healthz")
                break
            except OSError:
                assert server.poll() is None, "the server did not start"
                await asyncio.sleep(0.05)
        yield server
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=30)
        if server.poll() is None:
            server.kill()


class TimedClient(ArenaClient):
    """Records the time from each `move` sent to its `move_accepted` (while `measuring`)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.sent: dict[tuple[str, int], float] = {}
        self.rtts: list[float] = []
        self.measuring = True
        self.on_message = self._timed

    def _start_move(self, turn: Turn) -> None:
        super()._start_move(turn)  # queued; the read loop writes it right away
        self.sent[(turn.game_id, turn.turn)] = time.perf_counter()

    async def send(self, message: Message) -> None:
        """A move a bot thought about asynchronously is timed from here, when it goes."""
        if message.type == "move":
            self.sent[(message["game_id"], message["turn"])] = time.perf_counter()
        await super().send(message)

    def _timed(self, message: Message) -> None:
        if message.type == "move_accepted":
            sent = self.sent.pop((message["game_id"], message["turn"]), None)
            if sent is not None and self.measuring:
                self.rtts.append(time.perf_counter() - sent)
