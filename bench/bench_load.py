"""Many bots at once: idle authenticated bots plus bots playing, with zero spurious
disconnects, and the memory each connection costs the server.

Starts `arena serve` in a subprocess, creates the accounts, then connects `--idle`
bots that log in and stay idle (bare WebSocket clients that answer keepalive pings),
spread over `--processes` client processes, and measures the server's memory before
and after (memory per connection). Then `--playing` SDK bots (random players) in the
same processes play games that an operator keeps in flight (`--playing` / 2 at once,
each finished game replaced at once) for `--seconds`, while the idle bots stay
connected. Reports the move round trip p50/p99 (client sends `move` -> receives
`move_accepted`), moves/s, the server's memory and CPU, and every disconnect no side
asked for (there must be none).

    python bench/bench_load.py [--idle 10000] [--playing 2000] [--seconds 30]
                               [--processes 4]

The file-descriptor limit is raised for the server and the clients (the server needs
one per connection). Bounded: connecting takes about a minute at full scale, then
`--seconds` of play.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from typing import Any

from harness import TimedClient, arena_server, cpu_seconds, http_get, memory_kib, percentile

from arena.games.substitution import Settings
from arena.storage.sqlite import SQLiteDatabase
from clients.operator import Operator
from clients.sdk import BuiltinBot
from protocol import PROTOCOL_VERSION, Encoding


def raise_fd_limit(wanted: int) -> int:
    """Raise this process's descriptor limit to `wanted` (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(hard, wanted)))
    except (ValueError, OSError):  # not allowed above the hard limit: take what there is
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


async def idle_bot(url: str, token: str, closed: list[str], stop: asyncio.Event,
                   logged_in: asyncio.Future[None]) -> None:
    """Log in, then stay idle (websockets answers the server's pings) until `stop`."""
    from websockets.asyncio.client import connect

    encoding = Encoding.MSGPACK
    try:
        ws = await connect(url, subprotocols=[encoding.subprotocol],  # type: ignore[list-item]
                           compression=None, ping_interval=None, open_timeout=120,
                           max_size=1 << 22)
        await ws.send(encoding.encode({"type": "hello", "protocol": PROTOCOL_VERSION,
                                       "role": "bot", "token": token}))
        welcome = encoding.decode(await ws.recv(), max_size=1 << 22)
        assert welcome["type"] == "welcome", welcome
    except Exception as error:  # noqa: BLE001 - counted and reported: the run fails
        closed.append(f"idle login: {type(error).__name__}: {error}")
        logged_in.set_result(None)
        return
    logged_in.set_result(None)
    async with ws:
        reader = asyncio.ensure_future(ws.recv())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({reader, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if reader.done():  # the server closed an idle bot: a spurious disconnect
            closed.append(f"idle: {reader.exception() or reader.result()!r}")
        reader.cancel()
        stopping.cancel()


def client_process(url: str, idle: list[str], playing: list[str], pipe: Connection) -> None:
    """A client process: connect its idle bots, then its playing bots; report."""
    raise_fd_limit(len(idle) + len(playing) + 256)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        closed: list[str] = []
        tasks = []
        for start in range(0, len(idle), 50):  # fifty logins at a time, each batch done
            batch = [loop.create_future() for _ in idle[start:start + 50]]
            for token, logged_in in zip(idle[start:start + 50], batch, strict=True):
                tasks.append(loop.create_task(idle_bot(url, token, closed, stop, logged_in)))
            await asyncio.wait_for(asyncio.gather(*batch), 300)
        players = [TimedClient(url, token, BuiltinBot("random"), reconnect=False)
                   for token in playing]
        play_tasks = [loop.create_task(client.run()) for client in players]
        for client in players:
            try:
                await asyncio.wait_for(client.connected.wait(), 300)
            except TimeoutError:
                closed.append("a playing bot could not log in")
        pipe.send(("connected", len(idle), len(playing)))
        command = await loop.run_in_executor(None, pipe.recv)  # "measure"
        assert command == "measure"
        for client in players:
            client.rtts.clear()
        command = await loop.run_in_executor(None, pipe.recv)  # "stop"
        rtts = [r for client in players for r in client.rtts]
        disconnects = list(closed)
        for client in players:
            if client.connections != 1 or any(e.fatal for e in client.errors):
                disconnects.append(f"player reconnected or failed: {client.errors[-3:]}")
        for task in play_tasks:
            if task.done() and task.exception() is not None:
                disconnects.append(f"player ended: {task.exception()!r}")
        pipe.send(("done", rtts, disconnects))
        stop.set()
        for client in players:
            await client.stop()
        await asyncio.gather(*tasks, *play_tasks, return_exceptions=True)

    asyncio.run(main())


def create_accounts(db: str, names: list[str], operator: str) -> dict[str, str]:
    storage = SQLiteDatabase(db)
    storage.db.execute("PRAGMA synchronous=OFF")  # the bench's own setup, not the server's
    tokens = {name: storage.add_bot(name) for name in names}
    tokens[operator] = storage.add_bot(operator, operator=True)
    storage.close()
    return tokens


async def run(args: argparse.Namespace) -> dict[str, Any]:
    total = args.idle + args.playing
    raise_fd_limit(total + 1024)  # the server (a child) inherits it
    port = args.port
    url = f"ws://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "load.sqlite")
        started = time.perf_counter()
        tokens = create_accounts(db, [f"idle{i:05d}" for i in range(args.idle)]
                                 + [f"play{i:05d}" for i in range(args.playing)],
                                 "load-operator")
        print(f"{total} accounts in {time.perf_counter() - started:.1f} s", flush=True)
        processes: list[multiprocessing.process.BaseProcess] = []
        try:
            async with arena_server(port, db, "--no-ladder", "--move-ms", "30000",
                                    "--first-move-ms", "30000", "--bank-ms", "30000",
                                    "--max-connections-per-address", str(total + 100)) as server:
                base_rss = memory_kib(server.pid)[0]
                idle = [tokens[f"idle{i:05d}"] for i in range(args.idle)]
                playing = [tokens[f"play{i:05d}"] for i in range(args.playing)]
                context = multiprocessing.get_context("spawn")
                pipes = []
                started = time.perf_counter()
                for number in range(args.processes):
                    mine, theirs = context.Pipe()
                    process = context.Process(target=client_process, args=(
                        url, idle[number::args.processes], playing[number::args.processes], theirs))
                    process.start()
                    processes.append(process)
                    pipes.append(mine)
                for pipe in pipes:
                    message = await asyncio.to_thread(pipe.recv)
                    assert message[0] == "connected", message
                connect_s = time.perf_counter() - started
                health = await asyncio.to_thread(http_get, f"http://127.0.0.1:{port}/healthz")
                connected_rss = memory_kib(server.pid)[0]

                connected = len(json.loads(health)["connected_bots"])
                print(f"{connected} bots connected in {connect_s:.0f} s; server RSS "
                      f"{base_rss / 1024:.0f} -> {connected_rss / 1024:.0f} MiB", flush=True)
                settings = Settings.preset("medium", args.moves).to_json()
                names = [f"play{i:05d}" for i in range(args.playing)]
                games = 0
                stop_at = float("inf")

                async def keep_playing(operator: Operator, a: str, b: str) -> None:
                    nonlocal games
                    while time.perf_counter() < stop_at:
                        await operator.play_log("substitution", settings, [a, b])
                        games += 1
                        a, b = b, a

                async with Operator(url, tokens["load-operator"]) as operator:
                    players = [asyncio.create_task(keep_playing(operator, names[i], names[i + 1]))
                               for i in range(0, len(names) - 1, 2)]
                    await asyncio.sleep(args.warmup)
                    for pipe in pipes:
                        pipe.send("measure")
                    games = 0
                    cpu = cpu_seconds(server.pid)
                    measured = time.perf_counter()
                    stop_at = measured + args.seconds
                    await asyncio.sleep(args.seconds)
                    elapsed = time.perf_counter() - measured
                    cpu = (cpu_seconds(server.pid) - cpu) / elapsed
                    games_per_s = games / elapsed
                    playing_rss = memory_kib(server.pid)[0]
                    status = json.loads(await asyncio.to_thread(
                        http_get, f"http://127.0.0.1:{port}/healthz"))
                    await asyncio.wait_for(asyncio.gather(*players), 120)
                rtts: list[float] = []
                disconnects: list[str] = []
                for pipe in pipes:
                    pipe.send("stop")
                    _, some_rtts, some_disconnects = await asyncio.to_thread(pipe.recv)
                    rtts += some_rtts
                    disconnects += some_disconnects
                result = {
                    "connected": connected, "connect_s": connect_s,
                    "rss_base_mib": base_rss / 1024, "rss_connected_mib": connected_rss / 1024,
                    "rss_playing_mib": playing_rss / 1024,
                    "kib_per_connection": (connected_rss - base_rss) / max(1, connected),
                    "moves_per_s": len(rtts) / elapsed, "games_per_s": games_per_s,
                    "rtt_p50_ms": percentile(rtts, 0.5) * 1000,
                    "rtt_p99_ms": percentile(rtts, 0.99) * 1000, "server_cpu": cpu,
                    "games_in_flight": status["games_in_flight"], "disconnects": disconnects,
                }
        finally:
            for process in processes:
                process.join(timeout=60)
                if process.is_alive():
                    process.kill()
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=10_000, help="idle authenticated bots")
    parser.add_argument("--playing", type=int, default=2000, help="bots playing (pairs)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds of play")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--moves", type=int, default=20, help="turns per player per game")
    parser.add_argument("--processes", type=int, default=4, help="client processes")
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    args = parser.parse_args()
    if args.port == 0:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            args.port = int(sock.getsockname()[1])
    print(f"{args.idle} idle bots + {args.playing} playing ({args.playing // 2} games in "
          f"flight, substitution on 'medium', {args.moves} turns a player), "
          f"{args.processes} client processes, {args.seconds:g} s measured", flush=True)
    result = asyncio.run(run(args))
    print(f"connected: {result['connected']} bots in {result['connect_s']:.0f} s")
    print(f"server memory: {result['rss_base_mib']:.0f} MiB empty, "
          f"{result['rss_connected_mib']:.0f} MiB connected, {result['rss_playing_mib']:.0f} MiB "
          f"playing; {result['kib_per_connection']:.1f} KiB per connection")
    print(f"play: {result['moves_per_s']:.0f} moves/s, {result['games_per_s']:.1f} games/s, "
          f"{result['games_in_flight']} games in flight; server {result['server_cpu']:.0%} of a "
          f"core")
    print(f"move round trip: p50 {result['rtt_p50_ms']:.1f} ms, p99 {result['rtt_p99_ms']:.1f} ms")
    disconnects = result["disconnects"]
    print(f"spurious disconnects: {len(disconnects)}"
          + (f" (first: {disconnects[:3]})" if disconnects else ""))
    if disconnects:
        sys.exit(1)


if __name__ == "__main__":
    main()
