"""A rolling restart of a cluster under load (issue 24, docs/cluster.md "Rolling
restarts"): every gateway and host stopped with SIGTERM and started again, one after the
other, while `--bots` SDK bots play the ladder; what was lost (the promise: nothing)
and the longest pause a bot saw.

Starts `--hosts` hosts and `--gateways` gateways (``arena serve --role host|gateway``
on a fresh PostgreSQL schema and a NATS prefix of their own), then `--clients` client
processes (the bots split between them, each bot given every gateway's URL, starting at
a different one: a process holds at most 20,000 open files here). Once `--warmup` games
are over, each process in turn (gateway-1, host-1, gateway-2, host-2, ...) gets SIGTERM;
once it has ended it is started again under its name and port, and the next waits until
it answers /healthz and `--settle` seconds more. After the last, the bots play
`--after` more games. Printed: the games finished and aborted, the results the bots were
announced against those stored (same result), and the pause a bot saw within a game
(from its move to its next ``your_turn``: p50, p99, max), overall and for the moves
sent while a restart was under way; the games started per second before, during and
after the restarts, and what each leader put on the pairings' queue (its log at SIGTERM:
how many, at most how many at once, how many still waiting and dropped).

    python bench/bench_rolling.py [--bots 2000] [--clients 4] [--gateways 2] [--hosts 2]
        [--db postgresql://root@127.0.0.1/test] [--bus nats://127.0.0.1:4222]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_server import fresh_database
from harness import ROOT, free_port, http_get, percentile

sys.path.insert(0, str(ROOT))

from arena.storage import open_storage
from clients.sdk import ArenaClient, BuiltinBot, Turn
from protocol import Message

SLOW = 0.1
"""Pauses longer than this (seconds) are sent back with when their move was sent."""


# -- a client process -------------------------------------------------------------------

class PausedClient(ArenaClient):
    """Notes, for each of its moves, the time until its next ``your_turn`` in that game."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.moved: dict[str, float] = {}
        self.begun: set[str] = set()
        """The games whose ``game_start`` the bot heard."""
        self.pauses: collections.Counter[int] = collections.Counter()
        """Pauses in milliseconds -> how many."""
        self.slow: list[tuple[float, float]] = []
        """(when the move was sent, epoch seconds; the pause) of the pauses over `SLOW`."""
        self.on_message = self._timed

    def _start_move(self, turn: Turn) -> None:
        super()._start_move(turn)
        self.moved[turn.game_id] = time.perf_counter()

    def _timed(self, message: Message) -> None:
        if message.type == "game_start":
            self.begun.add(message["game_id"])
        elif message.type == "your_turn":
            sent = self.moved.pop(message["game_id"], None)
            if sent is not None:
                pause = time.perf_counter() - sent
                self.pauses[int(pause * 1000)] += 1
                if pause > SLOW:
                    self.slow.append((time.time() - pause, pause))
        elif message.type == "game_over":
            self.moved.pop(message["game_id"], None)


async def client_process(spec_path: str) -> None:
    """Run the bots of `spec_path` until a line on standard input; write what they saw
    to `spec_path` + ``.out``. Progress: one JSON line a second on standard output."""
    spec = json.loads(Path(spec_path).read_text())
    closes: collections.Counter[str] = collections.Counter()
    """Why the server closed a bot's connection (its close code and reason) -> how often."""

    class CloseCounter(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.msg.startswith("connection closed") and record.args:
                rcvd = getattr(record.args[0], "rcvd", None)  # type: ignore[index]
                closes[f"{rcvd.code} {rcvd.reason}" if rcvd is not None else "no close frame"] += 1

    client_log = logging.getLogger("arena.client")  # reconnects are expected: counted
    client_log.setLevel(logging.INFO)
    client_log.propagate = False
    client_log.addHandler(CloseCounter())
    clients = [PausedClient(urls, token, BuiltinBot("random"), reconnect_delay=0.05,
                            max_reconnect_delay=0.5)
               for urls, token, _ in spec["bots"]]
    names = [name for _, _, name in spec["bots"]]
    tasks = [asyncio.create_task(client.run()) for client in clients]
    stop = asyncio.ensure_future(asyncio.to_thread(sys.stdin.readline))
    while not stop.done():
        print(json.dumps({"results": sum(len(c.results) for c in clients),
                          "connections": sum(c.connections for c in clients)}), flush=True)
        await asyncio.wait([stop], timeout=1.0)
    for client in clients:
        await client.stop()
    await asyncio.gather(*tasks, return_exceptions=True)
    pauses: collections.Counter[int] = collections.Counter()
    for client in clients:
        pauses.update(client.pauses)
    Path(spec_path + ".out").write_text(json.dumps({
        "results": [(name, r.game_id, r.result, r.termination)
                    for name, c in zip(names, clients, strict=True) for r in c.results],
        "begun": [(name, game_id) for name, c in zip(names, clients, strict=True)
                  for game_id in c.begun],
        "pauses": pauses, "slow": [s for c in clients for s in c.slow], "closes": closes,
        "connections": sum(c.connections for c in clients)}))


# -- the cluster ------------------------------------------------------------------------

class Cluster:
    """The gateways and hosts, each an ``arena serve`` with its name, role and port."""

    def __init__(self, db: str, bus: str, args: argparse.Namespace, tmp: Path,
                 root: Path = ROOT) -> None:
        self.db, self.bus, self.args, self.tmp = db, bus, args, tmp
        self.root = root
        """The source tree the processes run (another checkout: its code against this)."""
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.ports: dict[str, int] = {}

    async def start(self, name: str) -> float:
        """Start `name` (again: on its port, under its name); seconds until /healthz."""
        port = self.ports.setdefault(name, free_port())
        args = self.args
        started = time.perf_counter()
        process = self.processes[name] = subprocess.Popen(  # noqa: ASYNC220 - no wait
            [sys.executable, "-c", "from arena.cli import main; main()", "serve",
             "--role", name.split("-")[0], "--db", self.db, "--bus", self.bus,
             "--host-id", name, "--port", str(port), "--moves", str(args.moves),
             "--interval", "0.2", "--house", "random", "--grace-ms", "60000",
             "--max-games", "2", "--pairings-per-hour", "0",
             # every bot connects from 127.0.0.1: room for all of them on one gateway
             # (the other restarting) with as many connections again on their way in or
             # out (1013 refused thousands of reconnections at bots + 100)
             "--max-connections-per-address", str(args.bots * 2 + 100),
             "--lease-seconds", str(args.lease_seconds)],
            cwd=self.root, stdout=subprocess.DEVNULL,
            stderr=open(self.tmp / f"{name}.stderr", "ab"))  # noqa: SIM115, ASYNC230
        while True:
            try:
                await asyncio.to_thread(http_get, f"http://127.0.0.1:{port}/healthz")
                return time.perf_counter() - started
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError(f"{name} did not start: "
                                       f"{(self.tmp / f'{name}.stderr').read_text()[-2000:]}")
                await asyncio.sleep(0.05)

    async def stop(self, name: str) -> float:
        """SIGTERM; seconds until the process ended."""
        process = self.processes[name]
        started = time.perf_counter()
        process.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(process.wait, 120)
        if code != 0:
            print(f"  {name} ended with {code}")
        return time.perf_counter() - started

    def url(self, name: str) -> str:
        return f"ws://127.0.0.1:{self.ports[name]}/"

    async def close(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                await asyncio.to_thread(process.wait, 60)
            except subprocess.TimeoutExpired:
                process.kill()


class Clients:
    """The client processes and what they last said."""

    def __init__(self, tmp: Path, bots: list[tuple[str, str, str]], processes: int) -> None:
        self.specs = []
        self.procs: list[asyncio.subprocess.Process] = []
        self.progress: list[dict[str, int]] = [{"results": 0, "connections": 0}] * processes
        for n in range(processes):
            spec = tmp / f"client-{n}.json"
            spec.write_text(json.dumps({"bots": bots[n::processes]}))
            self.specs.append(spec)
        self._readers: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        for n, spec in enumerate(self.specs):
            proc = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--client", str(spec), cwd=ROOT,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            self.procs.append(proc)
            self._readers.append(asyncio.create_task(self._read(n, proc)))

    async def _read(self, n: int, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            self.progress[n] = json.loads(line)

    @property
    def results(self) -> int:
        return sum(p["results"] for p in self.progress)

    async def wait_results(self, count: int, timeout: float = 600) -> None:
        deadline = time.perf_counter() + timeout
        while self.results < count:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{self.results} results, not {count}, after {timeout} s")
            await asyncio.sleep(0.2)

    async def stop(self) -> list[dict[str, Any]]:
        for proc in self.procs:
            assert proc.stdin is not None
            proc.stdin.write(b"stop\n")
            await proc.stdin.drain()
        for proc in self.procs:
            await proc.wait()
        return [json.loads(Path(f"{spec}.out").read_text()) for spec in self.specs]


def pause_figures(pauses: collections.Counter[int]) -> str:
    values = sorted(pauses.elements())
    if not values:
        return "none"
    return (f"p50 {percentile(values, 0.5):.0f} ms, p99 {percentile(values, 0.99):.0f} ms, "
            f"max {values[-1]:.0f} ms ({len(values)} moves)")


async def run(args: argparse.Namespace, db: str, tmp: Path) -> None:
    prefix = "bench_" + secrets.token_hex(4)
    bus = f"{args.bus}?prefix={prefix}"
    storage = await open_storage(db)
    made = time.perf_counter()
    tokens = await storage.add_bots([f"bot{i:05d}" for i in range(args.bots)])  # at once
    await storage.close()
    print(f"{args.bots} accounts in {time.perf_counter() - made:.1f} s")
    cluster = Cluster(db, bus, args, tmp)
    hosts = [f"host-{n}" for n in range(1, args.hosts + 1)]
    gateways = [f"gateway-{n}" for n in range(1, args.gateways + 1)]
    try:
        for name in [*hosts, *gateways]:
            await cluster.start(name)
        urls = [cluster.url(name) for name in gateways]
        bots = [(",".join(urls[i % len(urls):] + urls[:i % len(urls)]), token, name)
                for i, (name, token) in enumerate(tokens.items())]
        clients = Clients(tmp, bots, args.clients)
        await clients.start()
        print(f"{args.hosts} hosts, {args.gateways} gateways, {args.bots} bots in "
              f"{args.clients} client processes; warming up to {args.warmup} games")
        await clients.wait_results(args.warmup)
        order = [name for pair in zip(gateways, hosts, strict=False) for name in pair]
        order += gateways[len(hosts):] + hosts[len(gateways):]
        window = [time.time(), 0.0]
        loads = [os.getloadavg()[0]]  # the machine's (1 min), as each restart ends
        phases: list[tuple[str, float, float]] = []
        for name in order:
            before = clients.results
            began = time.time()
            down = await cluster.stop(name)
            up = await cluster.start(name)
            await asyncio.sleep(args.settle)
            phases.append((name, began, time.time()))
            loads.append(os.getloadavg()[0])
            print(f"  {name:<10} stopped in {down:5.2f} s, answering {up:5.2f} s after its "
                  f"start; {clients.results - before} results meanwhile "
                  f"({clients.results} in all; load average {loads[-1]:.1f})", flush=True)
        window[1] = time.time()
        count = clients.results
        await clients.wait_results(count + args.after)
        print(f"after the last restart: {clients.results - count} more results")
        # the games over by now are judged; their game_overs may still be on their way
        # (seconds behind on a saturated machine): the bots play on `--drain` seconds
        # more before they stop, so that a late game_over is not taken for a lost one
        stopped = time.time()
        await asyncio.sleep(args.drain)
        seen = await clients.stop()
    finally:
        await cluster.close()
        from tests.bus.conftest import drop_streams

        await drop_streams(prefix)
    announced: dict[str, tuple[str, str]] = {}
    told: set[tuple[str, str]] = set()
    begun: set[tuple[str, str]] = set()
    pauses: collections.Counter[int] = collections.Counter()
    during: collections.Counter[int] = collections.Counter()
    longest = dict.fromkeys([name for name, _, _ in phases], 0.0)
    for part in seen:
        for bot, game_id, result, termination in part["results"]:
            announced[game_id] = (result, termination)
            told.add((bot, game_id))
        begun.update((bot, game_id) for bot, game_id in part["begun"])
        pauses.update({int(k): v for k, v in part["pauses"].items()})
        for sent, pause in part["slow"]:
            if window[0] <= sent <= window[1]:
                during[int(pause * 1000)] += 1
            for name, began, ended in phases:
                if began <= sent <= ended:
                    longest[name] = max(longest[name], pause)
    storage = await open_storage(db)
    try:
        rows = await storage.games(limit=1_000_000)
        statuses = collections.Counter(row.status for row in rows)
        unheard = [(name, row.id) for row in rows
                   if row.status == "finished" and (row.finished or 0.0) < stopped
                   for name in row.players if name in tokens and (name, row.id) not in told]
        aborted = len(await storage.games(status="aborted", limit=1_000_000))
        stored_same = 0
        for game_id, (result, _) in announced.items():
            row = await storage.game(game_id)
            stored_same += row is not None and row.status == "finished" and row.result == result
    finally:
        await storage.close()
    terminations = collections.Counter(t for _, t in announced.values())
    print(f"games stored: {dict(statuses)}; aborted: {aborted}")
    print(f"results announced: {len(announced)} (terminations {dict(terminations)}); "
          f"stored with the same result: {stored_same}")
    finished_at = {row.id: row.finished or 0.0 for row in rows}
    when = collections.Counter(
        next((name for name, began, ended in phases if began <= finished_at[game_id] <= ended),
             "before" if finished_at[game_id] < window[0] else "after")
        for _, game_id in unheard)
    print(f"a finished game's game_over a player never heard: {len(unheard)} "
          f"(when they ended: {dict(when)}) "
          f"(of {sum(len(row.players) for row in rows if row.status == 'finished')}); "
          f"of which the bot never heard the game_start either: "
          f"{sum(pair not in begun for pair in unheard)}")
    from_db: collections.Counter[str] = collections.Counter()  # in the gateways' logs
    for name, _, _ in phases:
        path = tmp / f"{name}.stderr"
        for line in path.read_text().splitlines() if path.exists() else ():
            if "game ends sent from the database: " in line:
                words = line.split("game ends sent from the database: ")[1].split()
                from_db["to bots just connected"] += int(words[0])
                from_db["to others"] += int(words[words.index("others") - 2])
            elif "was over but not announced to" in line:
                from_db["quiet games found over"] += 1
    print(f"game ends the gateways sent from the database: {dict(from_db)}")
    started = sorted(row.started for row in rows)
    spans = {"before the restarts": (started[0] if started else 0.0, window[0]),
             "during": (window[0], window[1]), "after": (window[1], stopped)}
    print("games started per second: " + ", ".join(
        f"{name} {sum(a <= t < b for t in started) / max(b - a, 1e-9):.1f}"
        for name, (a, b) in spans.items()))
    for name, _, _ in phases:  # each leader says at its SIGTERM what it put (issue 24)
        path = tmp / f"{name}.stderr"
        for line in path.read_text().splitlines() if path.exists() else ():
            if "pairings put on the queue: " in line:
                print(f"  {name}: {line.split('pairings put on the queue: ')[1]}")
    print(f"connections the bots made: {sum(p['connections'] for p in seen)} "
          f"({args.bots} at the start)")
    closes: collections.Counter[str] = collections.Counter()
    for part in seen:
        closes.update(part["closes"])
    print(f"connections the servers closed, by close code: {dict(closes.most_common())}")
    print(f"load average (1 min) at the restarts' start and ends: "
          f"{', '.join(f'{load:.1f}' for load in loads)} on {os.cpu_count()} cores")
    print(f"pause from a bot's move to its next your_turn, all moves: {pause_figures(pauses)}")
    print(f"  moves sent during the rolling restart taking over {SLOW * 1000:.0f} ms: "
          f"{sum(during.values())}, max {max(during, default=0)} ms; the longest by the "
          "restart under way: " + ", ".join(f"{name} {pause:.2f} s"
                                            for name, pause in longest.items()))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--client":
        asyncio.run(client_process(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--gateways", type=int, default=2)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--moves", type=int, default=20, help="turns per player per game")
    parser.add_argument("--warmup", type=int, default=200, help="games over before the restarts")
    parser.add_argument("--after", type=int, default=200,
                        help="games over after the last restart")
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds between one process answering and the next's SIGTERM")
    parser.add_argument("--drain", type=float, default=30.0,
                        help="seconds the bots play on after the games judged are over")
    parser.add_argument("--lease-seconds", type=float, default=10.0)
    parser.add_argument("--db", default="postgresql://root@127.0.0.1/test",
                        help="a postgresql:// URL (a fresh schema, dropped after)")
    parser.add_argument("--bus", default="nats://127.0.0.1:4222")
    parser.add_argument("--logs", type=Path, default=None,
                        help="a directory to keep the processes' stderr in (default: dropped)")
    args = parser.parse_args()

    async def main() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            async with fresh_database(args.db, tmp) as db:
                logs = Path(tmp) if args.logs is None else args.logs
                logs.mkdir(parents=True, exist_ok=True)
                await run(args, db, logs)

    asyncio.run(main())


if __name__ == "__main__":
    main()
