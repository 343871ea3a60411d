"""The cluster's figures (issue 24, docs/cluster.md "Figures"): connected bots across
gateways, memory per connection, the move round trip through the broker against one
process, and the CPU per move of each role and of the broker.

Two phases, on a fresh PostgreSQL schema and a NATS prefix of their own:

1. **Round trip, side by side.** `--rtt-bots` SDK bots play the ladder (random moves)
   for `--seconds` against ``arena serve --role all``, then against one gateway and one
   host over NATS (`--rounds` times, alternated): the move round trip (``move`` ->
   ``move_accepted``, p50/p99), moves a second, and the CPU per move of each process
   (/proc/<pid>/stat, and how much of it was the kernel's) and of nats-server; then the
   medians of the rounds, what the broker adds and the ratio. Flat out by default (each
   bot answers at once: the 2 cores saturated, so the round trip is mostly the queue for
   them); `--think-ms` paces them (each waits that long, half to one and a half times,
   before each move), for the path's own latency at a load the machine carries. With
   `--profile DIR`, py-spy samples each arena process while it is measured
   (`bench/stacks.py` sums the stacks by function; py-spy counts a thread waiting for a
   core as running, so on a saturated machine the system calls that wake another
   process look dearer than they are: the kernel's share above says what they cost).
2. **Capacity.** `--gateways` gateways and `--hosts` hosts; `--idle` idle bots (raw
   websockets: a ``hello`` with a token and ``seek: false``, then only the WebSocket
   pings answered) spread over the gateways by client processes of at most
   `--per-process` connections each (a process may open 20,000 files here), plus
   `--playing` SDK bots on the ladder, run by client processes of at most
   `--play-per-process` bots each (their round trips merged: one Python process
   running 5,000 SDK bots was the bottleneck, not the arena). Held `--seconds`;
   printed: connections held, disconnects by close code (the promise: none), each
   process's resident memory and CPU, memory per idle connection on the gateways,
   moves and games started a second; and the presence as the hosts follow it (the bots
   each host knows of, from its /healthz, with the idle bots connected, at the end, and
   again once they know the idle bots alone or a minute later: a gateway taken for
   silent heard again; the times a host or gateway took another for silent, and the
   snapshots asked, from their logs: `arena.cluster.follower`).

    python bench/bench_cluster_server.py [--idle 2000] [--playing 200] [--gateways 2]
        [--hosts 2] [--rtt-bots 200] [--think-ms 0] [--seconds 20] [--rounds 1] [--before DIR]
        [--per-process 15000] [--play-per-process 1000] [--profile DIR]
    # the big run (docs/cluster.md): --idle 50000 --playing 5000 --gateways 3 --hosts 2
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from bench_rolling import Cluster
from bench_server import fresh_database
from harness import ROOT, TimedClient, cpu_seconds, free_port, http_get, memory_kib, percentile

sys.path.insert(0, str(ROOT))

from arena.storage import open_storage
from clients.sdk import BuiltinBot, Turn
from protocol import PROTOCOL_VERSION, Encoding

STALLED = 120.0
"""Seconds without a connection made or lost after which the idle bots' ramp is taken
as far as it goes (the rest measured as it is)."""

WARM_UP = 120.0
"""Seconds the playing bots' warm-up waits for all of them to be welcomed, at most."""

# -- client processes -------------------------------------------------------------------

OPENING = 100
"""Connections a client process opens at once, each until its ``welcome`` (more, and a
loaded client sends its ``hello`` after the gateway's hello timeout)."""


async def idle_process(spec_path: str) -> None:
    """Hold the idle bots of `spec_path` (urls, tokens) until a line on standard input;
    one JSON line of progress a second (connected, closes by code)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    spec = json.loads(Path(spec_path).read_text())
    urls, tokens = spec["urls"], spec["tokens"]
    connected = 0
    closes: collections.Counter[str] = collections.Counter()
    failed = 0

    opening = asyncio.Semaphore(OPENING)

    async def hold(n: int, token: str) -> None:
        nonlocal connected, failed
        await opening.acquire()  # released once welcomed (or refused)
        try:
            ws = await connect(urls[n % len(urls)], subprotocols=[Encoding.JSON.subprotocol],  # type: ignore[list-item]
                               open_timeout=120, ping_interval=None, max_queue=4)
        except (OSError, TimeoutError, WebSocketException):
            failed += 1
            opening.release()
            return
        welcomed = False
        refusal = ""
        try:
            await ws.send(Encoding.JSON.encode({
                "type": "hello", "protocol": PROTOCOL_VERSION, "role": "bot",
                "token": token, "games": ["substitution"], "seek": False}))
            try:
                welcome = Encoding.JSON.decode(await asyncio.wait_for(ws.recv(), 120))
            finally:
                opening.release()
            if welcome.get("type") != "welcome":
                refusal = str(welcome.get("code"))
                return
            welcomed = True
            connected += 1
            async for _ in ws:
                pass  # nothing is expected; the pings are answered by the library
        except asyncio.CancelledError:
            welcomed = False  # the end of the run: no disconnect
            raise
        except (OSError, WebSocketException, TimeoutError):
            pass  # the connection's end: counted below, by its close code
        finally:
            if welcomed:
                connected -= 1
                closes[str(ws.close_code)] += 1
            else:  # refused, closed or silent before its welcome
                failed += 1
                closes[f"before welcome: {ws.close_code} {ws.close_reason or refusal}"] += 1

    stop = asyncio.ensure_future(asyncio.to_thread(sys.stdin.readline))
    tasks = [asyncio.create_task(hold(n, token)) for n, token in enumerate(tokens)]
    while not stop.done():
        print(json.dumps({"connected": connected, "failed": failed, "closes": closes}),
              flush=True)
        await asyncio.wait([stop], timeout=1.0)
    print(json.dumps({"connected": connected, "failed": failed, "closes": closes,
                      "final": True}), flush=True)
    for task in tasks:
        task.cancel()


# -- measuring --------------------------------------------------------------------------


def nats_pid() -> int | None:
    """The pid of the nats-server on this machine (None: not found)."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "comm").read_text().strip() == "nats-server":
                    return int(proc.name)
            except OSError:
                continue
    return None


def cpu_of(pids: dict[str, int]) -> dict[str, float]:
    out = {}
    for name, pid in pids.items():
        try:
            out[name] = cpu_seconds(pid)
        except OSError:
            out[name] = float("nan")
    return out


def kernel_of(pids: dict[str, int]) -> dict[str, float]:
    """Per process: its CPU seconds in the kernel so far (system time: the sockets'
    reads and writes, the wake-ups), of its `cpu_of`."""
    out = {}
    for name, pid in pids.items():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            out[name] = int(fields[12]) / os.sysconf("SC_CLK_TCK")
        except OSError:
            out[name] = float("nan")
    return out


class ThinkingBot(BuiltinBot):
    """A built-in bot that waits `think` seconds (half to one and a half times, at
    random) before it sends each move: a paced load (`--think-ms`), not flat out. The
    round trip is timed from the move's sending (`TimedClient.send`), so the thinking
    is not in it."""

    def __init__(self, spec: str, think: float) -> None:
        super().__init__(spec)
        self.think = think

    def move(self, turn: Turn) -> Awaitable[str]:
        chosen = super().move(turn)

        async def later() -> str:
            await asyncio.sleep(self.think * random.uniform(0.5, 1.5))
            return chosen if isinstance(chosen, str) else await chosen

        return later()


async def play_process(spec_path: str) -> None:
    """Play the SDK bots of `spec_path` (urls, tokens) on the ladder: at a line
    ``measure`` on standard input, their round trips and games started from then on are
    counted; at the next line, one JSON line (``rtts`` in seconds, ``games``) and their
    end. One JSON line a second meanwhile (``connected``: bots welcomed)."""
    spec = json.loads(Path(spec_path).read_text())
    urls, tokens = spec["urls"], spec["tokens"]
    think = spec.get("think_ms", 0.0) / 1000
    games = 0
    clients = [TimedClient(",".join(urls[i % len(urls):] + urls[:i % len(urls)]), token,
                           ThinkingBot("random", think) if think else BuiltinBot("random"))
               for i, token in enumerate(tokens)]

    def counting(client: TimedClient) -> None:
        timed = client.on_message

        def on_message(message: Any) -> None:
            nonlocal games
            if message.type == "game_start" and client.measuring:
                games += 1
            assert timed is not None
            timed(message)

        client.on_message = on_message

    for client in clients:
        client.measuring = False
        counting(client)
    tasks = [asyncio.create_task(client.run()) for client in clients]
    try:
        for wanted in ("measure", "stop"):
            line = asyncio.ensure_future(asyncio.to_thread(sys.stdin.readline))
            while not line.done():
                welcomed = sum(client.welcome is not None for client in clients)
                print(json.dumps({"connected": welcomed}), flush=True)
                await asyncio.wait([line], timeout=1.0)
            for client in clients:
                if wanted == "measure":
                    client.rtts.clear()
                client.measuring = wanted == "measure"
        print(json.dumps({"rtts": [r for client in clients for r in client.rtts],
                          "games": games, "final": True}), flush=True)
    finally:
        # at once: one after the other, each close waits for its handshake (up to 10 s
        # from a loaded gateway), and 5 000 bots took longer than the run
        await asyncio.gather(*(client.stop() for client in clients), return_exceptions=True)
        await asyncio.gather(*tasks, return_exceptions=True)


async def play(urls: list[str], tokens: list[str], seconds: float, pids: dict[str, int],
               tmp: Path, per_process: int, think_ms: float = 0.0,
               profile: Path | None = None) -> dict[str, Any]:
    """SDK bots on the ladder for `seconds` (after a warm-up), by client processes of at
    most `per_process` bots each (`play_process`: one Python process running 5,000 SDK
    bots was the bottleneck, not the arena): round trip, moves and games started a
    second, CPU per move of each process. With `profile`, each arena process is sampled
    by py-spy while measured (`profiling`)."""
    procs: list[asyncio.subprocess.Process] = []
    lines: dict[int, dict[str, Any]] = {}
    readers = []
    for n, start in enumerate(range(0, len(tokens), per_process)):
        spec = tmp / f"play-{n}.json"
        spec.write_text(json.dumps({"urls": urls[n % len(urls):] + urls[:n % len(urls)],
                                    "tokens": tokens[start:start + per_process],
                                    "think_ms": think_ms}))
        proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--play-client", str(spec), cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=1 << 28)  # the last line holds every round trip measured
        procs.append(proc)

        async def read(n: int = n, proc: asyncio.subprocess.Process = proc) -> None:
            assert proc.stdout is not None
            while line := await proc.stdout.readline():
                lines[n] = json.loads(line)

        readers.append(asyncio.create_task(read()))

    async def say(word: bytes) -> None:
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(word + b"\n")
            await proc.stdin.drain()

    try:
        await asyncio.sleep(min(10.0, seconds / 2))  # connected, paired, playing

        def welcomed() -> int:
            return sum(line.get("connected", 0) for line in lines.values())

        warm = time.perf_counter()  # and every bot welcomed (a loaded gateway takes longer)
        while welcomed() < len(tokens) and time.perf_counter() - warm < WARM_UP:
            await asyncio.sleep(1)
        warmed = time.perf_counter() - warm + min(10.0, seconds / 2)
        ready = welcomed()
        clients = {f"client-{n}": proc.pid for n, proc in enumerate(procs)}
        await say(b"measure")
        cpu0, t0, kernel0 = cpu_of(pids | clients), time.perf_counter(), kernel_of(pids)
        samplers = [] if profile is None else await profiling(profile, pids, seconds)
        await asyncio.sleep(seconds)
        await say(b"stop")
        cpu1, t1, kernel1 = cpu_of(pids | clients), time.perf_counter(), kernel_of(pids)
        await asyncio.gather(*readers, *(sampler.wait() for sampler in samplers))
    finally:
        for proc in procs:
            if proc.returncode is None and proc.stdin is not None:
                proc.stdin.close()
        await asyncio.gather(*(proc.wait() for proc in procs))
    finals = [line for line in lines.values() if line.get("final")]
    rtts = [r for line in finals for r in line["rtts"]]
    moves = len(rtts)
    return {"moves": moves, "per_second": moves / (t1 - t0),
            "games_per_second": sum(line["games"] for line in finals) / (t1 - t0),
            "welcomed": ready, "warm_up": warmed, "processes": len(procs), "reported": len(finals),
            "clients_share": sum(cpu1[name] - cpu0[name] for name in clients) / (t1 - t0),
            "p50": percentile(rtts, 0.5) * 1000, "p99": percentile(rtts, 0.99) * 1000,
            "cpu_per_move_us": {name: (cpu1[name] - cpu0[name]) / max(moves, 1) * 1e6
                                for name in pids},
            "cpu_share": {name: (cpu1[name] - cpu0[name]) / (t1 - t0) for name in pids},
            "sys_per_move_us": {name: (kernel1[name] - kernel0[name]) / max(moves, 1) * 1e6
                                for name in pids}}


async def profiling(folder: Path, pids: dict[str, int],
                    seconds: float) -> list[asyncio.subprocess.Process]:
    """py-spy sampling each arena process of `pids` (not nats-server) for `seconds`, not
    stopping it (``--nonblocking``: a little skew, no pauses), its stacks collapsed in
    `folder`/<name>-<n>.txt (one line a stack and its samples: ``--format raw``, the
    input of flame graphs; `bench/stacks.py` sums them by function)."""
    spy = Path(sys.executable).with_name("py-spy")
    folder.mkdir(parents=True, exist_ok=True)
    samplers = []
    for name, pid in pids.items():
        if name == "nats":
            continue
        n = sum(1 for _ in folder.glob(f"{name}-*.txt"))
        samplers.append(await asyncio.create_subprocess_exec(
            str(spy), "record", "--pid", str(pid), "--duration", str(int(seconds)),
            "--rate", "250", "--nonblocking", "--format", "raw",
            "--output", str(folder / f"{name}-{n}.txt"),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL))
    return samplers


def show_play(label: str, figures: dict[str, Any]) -> None:
    cpu = ", ".join(f"{name} {us:.0f} us ({figures['cpu_share'][name] * 100:.0f}% of a core; "
                    f"{figures['sys_per_move_us'][name]:.0f} us of it in the kernel)"
                    for name, us in figures["cpu_per_move_us"].items())
    print(f"{label:<22} {figures['p50']:8.2f} {figures['p99']:8.2f} "
          f"{figures['per_second']:9.0f}   CPU per move: {cpu}")


async def round_trips(args: argparse.Namespace, db: str, tmp: Path,
                      tokens: list[str], nats: int | None) -> None:
    print(f"round trip at {len(tokens)} bots on the ladder, {args.seconds:g} s measured each, "
          f"{args.rounds} round(s) of each setup (shared 2-core machine)")
    print("setup                   p50 ms   p99 ms   moves/s")
    setups: dict[str, list[dict[str, Any]]] = {"--role all": []}
    if args.before:
        setups[f"cluster from {args.before.name}"] = []
    setups["gateway + host (NATS)"] = []
    for _ in range(args.rounds):  # alternated: the machine's other load hits each alike
        for label, figures in setups.items():
            if label == "--role all":
                figures.append(await round_trip_all(args, db, tmp, tokens, nats))
            else:
                root = ROOT if label.startswith("gateway") else args.before
                figures.append(await round_trip_cluster(args, db, tmp, tokens, nats, root))
            show_play(label, figures[-1])
    alone = setups["--role all"]
    for label, figures in setups.items():
        if label == "--role all":
            continue
        for key in ("p50", "p99"):
            alone_ms = statistics.median(a[key] for a in alone)
            cluster_ms = statistics.median(c[key] for c in figures)
            print(f"{key} (median of the rounds): --role all {alone_ms:.2f} ms, {label} "
                  f"{cluster_ms:.2f} ms: the broker adds {cluster_ms - alone_ms:.2f} ms "
                  f"(x{cluster_ms / alone_ms:.2f})")
        cpu = ", ".join(
            f"{name} {statistics.median(c['cpu_per_move_us'][name] for c in figures):.0f} us "
            f"({statistics.median(c['sys_per_move_us'][name] for c in figures):.0f} us in "
            "the kernel)"
            for name in figures[0]["cpu_per_move_us"])
        print(f"CPU per move (median of the rounds), {label}: {cpu}")
    cpu = statistics.median(a["cpu_per_move_us"]["all"] for a in alone)
    print(f"CPU per move (median of the rounds), --role all: {cpu:.0f} us ("
          f"{statistics.median(a['sys_per_move_us']['all'] for a in alone):.0f} us in the "
          "kernel)")


async def round_trip_all(args: argparse.Namespace, db: str, tmp: Path,
                         tokens: list[str], nats: int | None) -> dict[str, Any]:
    port = free_port()
    import subprocess

    server = subprocess.Popen(  # noqa: ASYNC220
        [sys.executable, "-c", "from arena.cli import main; main()", "serve", "--port",
         str(port), "--db", db, "--moves", "20", "--interval", "0.2", "--max-games", "2",
         "--pairings-per-hour", "0", "--max-connections-per-address", str(len(tokens) + 100),
         # as the cluster's processes (`bench_rolling.Cluster`): the same games to play
         "--house", "random", "--grace-ms", "60000"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(tmp / "all.stderr", "ab"))  # noqa: SIM115, ASYNC230
    try:
        while True:
            try:
                await asyncio.to_thread(http_get, f"http://127.0.0.1:{port}/healthz")
                break
            except OSError:
                await asyncio.sleep(0.1)
        pids = {"all": server.pid} | ({"nats": nats} if nats else {})
        return await play([f"ws://127.0.0.1:{port}/"], tokens, args.seconds, pids, tmp,
                          args.play_per_process, args.think_ms, args.profile)
    finally:
        server.terminate()
        await asyncio.to_thread(server.wait, 60)


async def round_trip_cluster(args: argparse.Namespace, db: str, tmp: Path,
                             tokens: list[str], nats: int | None,
                             root: Path = ROOT) -> dict[str, Any]:
    prefix = "bench_" + secrets.token_hex(4)
    cluster = Cluster(db, f"{args.bus}?prefix={prefix}", argparse.Namespace(
        moves=20, bots=len(tokens), lease_seconds=10.0), tmp, root)
    try:
        await cluster.start("host-1")
        await cluster.start("gateway-1")
        pids = {name: p.pid for name, p in cluster.processes.items()} | (
            {"nats": nats} if nats else {})
        profile = None if args.profile is None else args.profile / (
            "after" if root == ROOT else "before")
        return await play([cluster.url("gateway-1")], tokens, args.seconds, pids, tmp,
                          args.play_per_process, args.think_ms, profile)
    finally:
        await cluster.close()
        from tests.bus.conftest import drop_streams

        await drop_streams(prefix)


async def capacity(args: argparse.Namespace, db: str, tmp: Path, idle_tokens: list[str],
                   playing: list[str], nats: int | None) -> None:
    prefix = "bench_" + secrets.token_hex(4)
    cluster = Cluster(db, f"{args.bus}?prefix={prefix}", argparse.Namespace(
        moves=20, bots=len(idle_tokens) + len(playing), lease_seconds=10.0), tmp)
    gateways = [f"gateway-{n}" for n in range(1, args.gateways + 1)]
    procs: list[asyncio.subprocess.Process] = []
    progress: dict[int, dict[str, Any]] = {}
    try:
        for n in range(1, args.hosts + 1):
            await cluster.start(f"host-{n}")
        for name in gateways:
            await cluster.start(name)
        pids = {name: p.pid for name, p in cluster.processes.items()} | (
            {"nats": nats} if nats else {})
        rss0 = {name: memory_kib(pid)[0] for name, pid in pids.items()}
        urls = [cluster.url(name) for name in gateways]
        began = time.perf_counter()
        for n, start in enumerate(range(0, len(idle_tokens), args.per_process)):
            spec = tmp / f"idle-{n}.json"
            spec.write_text(json.dumps({"urls": urls[n % len(urls):] + urls[:n % len(urls)],
                                        "tokens": idle_tokens[start:start + args.per_process]}))
            proc = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--idle-client", str(spec), cwd=ROOT,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            procs.append(proc)

            async def read(n: int = n, proc: asyncio.subprocess.Process = proc) -> None:
                assert proc.stdout is not None
                while line := await proc.stdout.readline():
                    progress[n] = json.loads(line)

            asyncio.create_task(read())

        def held() -> int:
            return sum(p.get("connected", 0) for p in progress.values())

        def settled() -> int:
            return held() + sum(p.get("failed", 0) + sum(
                count for code, count in p.get("closes", {}).items()
                if not code.startswith("before welcome")) for p in progress.values())

        last, moved = -1, time.perf_counter()
        while settled() < len(idle_tokens):
            await asyncio.sleep(2)
            print(f"  {held()} idle bots connected ({time.perf_counter() - began:.0f} s)",
                  flush=True)
            if settled() != last:
                last, moved = settled(), time.perf_counter()
            elif time.perf_counter() - moved > STALLED:
                print(f"  no progress for {STALLED:.0f} s: measured as it is")
                break
        print(f"{held()} idle bots connected in {time.perf_counter() - began:.0f} s "
              f"over {args.gateways} gateways; now {len(playing)} playing for "
              f"{args.seconds:g} s")
        rss1 = {name: memory_kib(pid)[0] for name, pid in pids.items()}
        hosts = [name for name in cluster.processes if name.startswith("host")]
        caught_up = time.perf_counter()
        while min((known1 := await hosts_know(cluster, hosts)).values()) < held() and (
                time.perf_counter() - caught_up < 120):
            await asyncio.sleep(1)
        print(f"the hosts know of every idle bot {time.perf_counter() - caught_up:.1f} s "
              f"after the last one's welcome: {known1}")
        figures = await play(urls, playing, args.seconds, pids, tmp, args.play_per_process)
        rss2 = {name: memory_kib(pid)[0] for name, pid in pids.items()}
        known2 = await hosts_know(cluster, hosts)
        # again until they know the idle bots alone (the playing bots' leaving heard, a
        # gateway taken for silent heard again), or a minute: transient, or lost
        stopped = time.perf_counter()
        known3 = known2
        while any(known != held() for known in known3.values()) and (
                time.perf_counter() - stopped < 60):
            await asyncio.sleep(1)
            known3 = await hosts_know(cluster, hosts)
        settled_after = time.perf_counter() - stopped
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(b"stop\n")
            await proc.stdin.drain()
        for proc in procs:
            await proc.wait()
    finally:
        await cluster.close()
        from tests.bus.conftest import drop_streams

        await drop_streams(prefix)
    closes: collections.Counter[str] = collections.Counter()
    for p in progress.values():
        closes.update(p.get("closes", {}))
    failed = sum(p.get("failed", 0) for p in progress.values())
    print(f"idle bots held to the end: {held()} of {len(idle_tokens)}; failed to connect: "
          f"{failed}; closed meanwhile (by code): {dict(closes) or 'none'}")
    print(f"playing: {figures['welcomed']} of {len(playing)} welcomed at the end of the "
          f"warm-up ({figures['warm_up']:.0f} s), "
          f"over {figures['processes']} client process(es) ({figures['reported']} reported); "
          f"{figures['per_second']:.0f} moves/s, {figures['games_per_second']:.1f} games "
          f"started/s, round trip p50 {figures['p50']:.1f} ms, p99 {figures['p99']:.1f} ms; "
          f"the playing bots' client processes used {figures['clients_share'] * 100:.0f}% "
          f"of a core")
    print("process      RSS before   with idle   playing    CPU while playing")
    for name in pids:
        print(f"{name:<12} {rss0[name] / 1024:8.0f} MiB {rss1[name] / 1024:7.0f} MiB "
              f"{rss2[name] / 1024:7.0f} MiB   {figures['cpu_share'][name] * 100:5.0f}% of a core, "
              f"{figures['cpu_per_move_us'][name]:.0f} us a move")
    grown = sum(rss1[name] - rss0[name] for name in gateways)
    print(f"memory per idle connection on the gateways: {grown * 1024 / max(held(), 1):.0f} bytes")
    print(f"bots each host knows of (presence): with the idle connected {known1}; "
          f"at the end, the playing bots stopped (their leaving on its way) {known2}; "
          f"{settled_after:.1f} s later {known3} (the idle bots held: {held()})")
    for name in cluster.processes:
        logged = (tmp / f"{name}.stderr").read_text(errors="replace")
        print(f"{name}: took a gateway for silent {logged.count(' is silent')} time(s), "
              f"asked {logged.count('out of step with gateway')} snapshot(s)")


async def hosts_know(cluster: Any, hosts: list[str]) -> dict[str, int]:
    """The bots each host takes for connected (its /healthz: every gateway's)."""
    known = {}
    for name in hosts:
        health = json.loads(await asyncio.to_thread(
            http_get, f"http://127.0.0.1:{cluster.ports[name]}/healthz"))
        known[name] = len(health["connected_bots"])
    return known


async def run(args: argparse.Namespace, db: str, tmp: Path) -> None:
    storage = await open_storage(db)
    made = time.perf_counter()
    total = max(args.rtt_bots, args.playing) + args.idle
    made_tokens = await storage.add_bots([f"b{i:06d}" for i in range(total)])  # at once
    tokens = list(made_tokens.values())
    await storage.close()
    print(f"{total} accounts in {time.perf_counter() - made:.1f} s")
    nats = nats_pid()
    if args.rtt_bots:
        await round_trips(args, db, tmp, tokens[:args.rtt_bots], nats)
    if args.idle or args.playing:
        await capacity(args, db, tmp, tokens[len(tokens) - args.idle:],
                       tokens[:args.playing], nats)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--idle-client":
        asyncio.run(idle_process(sys.argv[2]))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--play-client":
        logging.getLogger("arena.client").setLevel(logging.ERROR)
        asyncio.run(play_process(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--playing", type=int, default=200)
    parser.add_argument("--gateways", type=int, default=2)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--rtt-bots", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="the round trip's bots think this long (0.5 to 1.5 times) before"
                             " each move: a paced load; 0 (the default) plays flat out")
    parser.add_argument("--rounds", type=int, default=1,
                        help="round-trip rounds, each --role all then gateway + host")
    parser.add_argument("--before", type=Path, default=None, metavar="DIR",
                        help="also a gateway and a host run from the source tree DIR (another "
                             "checkout, its compiled modules built) in each round: before "
                             "against after in one run")
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR",
                        help="sample each arena process of the round trips with py-spy "
                             "(installed beside this Python) while measured: DIR/<name>-<n>.txt "
                             "(the clusters' in DIR/after and DIR/before)")
    parser.add_argument("--per-process", type=int, default=15000,
                        help="idle connections a client process holds, at most")
    parser.add_argument("--play-per-process", type=int, default=1000,
                        help="playing SDK bots a client process runs, at most")
    parser.add_argument("--db", default="postgresql://root@127.0.0.1/test")
    parser.add_argument("--bus", default="nats://127.0.0.1:4222")
    args = parser.parse_args()
    logging.getLogger("arena.client").setLevel(logging.ERROR)

    async def main() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            async with fresh_database(args.db, tmp) as db:
                await run(args, db, Path(tmp))

    asyncio.run(main())


if __name__ == "__main__":
    main()
