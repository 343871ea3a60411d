"""Arena server under load on loopback, against a bare websockets echo in the same run.

Starts `arena serve` in a subprocess, connects `--bots` SDK clients (random bots) from
this process and keeps `--games` games in flight through an operator connection (each
finished game is replaced at once by a new one between the same two bots). Then runs a
bare websockets echo server in a subprocess and measures the same number of concurrent
round trips with a message of the size of a move. Reports games/s, moves/s, the move
round trip (client sends `move` -> receives `move_accepted`) p50/p99, the echo round
trip p50/p99 and the server's memory (RSS, peak RSS).

    python bench/bench_server.py [--bots 200] [--games 100] [--seconds 10] [--moves 50]
                                 [--rounds 3] [--baseline REV | --no-write-ahead-baseline]
                                 [--db sqlite | --db postgresql://... | --db sqlite,postgresql://...]

The two phases alternate for `--rounds` rounds (the machine's speed drifts, so each
round's ratio compares neighbours) and the summary quotes medians. Bounded: each phase
runs for `--seconds` plus setup; the default run takes about two minutes.

`--baseline REV` also runs the server of another revision (a temporary git worktree of
REV, its extensions built in place) in every round, right after this one, with the same
clients, and prints the ratio of the two: a change to the server is measured side by
side with the code before it, on the same machine in the same minutes. The clients are
this checkout's SDK, which checks every frame: REV must speak the same protocol (a
revision from before the seed commitment of `game_start`, issue 11, cannot be compared;
its frames are refused).

`--no-write-ahead-baseline` runs this checkout's server a second time in every round
with ``--no-write-ahead`` (no move stored before it is told, as before issue 23): the
cost of storing every move, side by side. `--db` picks the database: a fresh SQLite file
per phase (the default), or a fresh schema (dropped after) in the PostgreSQL database
of the URL given; several (``--db sqlite,postgresql://...``) run one after the other and
end with one table of them all, side by side with the baseline: p50, p99, moves/s, the
ratio to the echo, the server's CPU per move and, with ``--no-write-ahead-baseline``,
what storing each move costs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import (
    ROOT,
    TimedClient,
    arena_server,
    cpu_seconds,
    free_port,
    http_get,
    memory_kib,
    percentile,
)

from arena.games.substitution import Settings
from arena.storage import open_storage
from clients.operator import Operator
from clients.sdk import BuiltinBot
from protocol import Message

ECHO_SERVER = """
import asyncio, sys
from websockets.asyncio.server import serve
async def echo(ws):
    async for message in ws:
        await ws.send(message)
async def main():
    async with serve(echo, "127.0.0.1", int(sys.argv[1]), compression=None, ping_interval=None):
        print("ready", flush=True)
        await asyncio.Future()
asyncio.run(main())
"""


def serve_flags(root: Path, bots: int) -> list[str]:
    """Flags that lift the per-address connection limit (all the bench's bots come from
    one address), for a checkout whose `arena serve` has it (a baseline may not)."""
    usage = subprocess.run(
        [sys.executable, "-c", "from arena.cli import main; main()", "serve", "--help"],
        env={**os.environ, "PYTHONPATH": str(root)}, cwd=root, capture_output=True, text=True,
        check=True).stdout
    flag = "--max-connections-per-address"
    return [flag, str(bots + 10)] if flag in usage else []


async def arena_phase(args: argparse.Namespace, db: str, port: int,
                      root: Path = ROOT, extra: tuple[str, ...] = ()) -> dict[str, float]:
    """The arena server of the checkout `root` (with the flags `extra`) under load."""
    url = f"ws://127.0.0.1:{port}/"
    flags = await asyncio.to_thread(serve_flags, root, args.bots)
    async with arena_server(port, db, "--no-ladder", "--move-ms", "10000", "--first-move-ms",
                            "10000", *flags, *extra, root=root) as server:
        storage = await open_storage(db)
        tokens = {f"bot{i:03d}": await storage.add_bot(f"bot{i:03d}") for i in range(args.bots)}
        operator_token = await storage.add_bot("bench-operator", operator=True)
        await storage.close()
        clients = [TimedClient(url, token, BuiltinBot("random")) for token in tokens.values()]
        for client in clients:
            client.measuring = False
        tasks = [asyncio.create_task(c.run()) for c in clients]
        async with asyncio.timeout(60):
            for client in clients:
                await client.connected.wait()
        settings = Settings.preset("medium", args.moves).to_json()
        names = list(tokens)
        pairs = [(names[2 * i % len(names)], names[(2 * i + 1) % len(names)])
                 for i in range(args.games)]
        finished = 0
        measuring = False
        stop_at = 0.0

        async def keep_playing(operator: Operator, a: str, b: str, seed: int) -> None:
            nonlocal finished
            while time.perf_counter() < stop_at or not measuring:
                # the log unparsed: reading it is the harness's work, not the bots'
                await operator.play_log("substitution", settings, [a, b], seed=seed)
                seed += 1
                if measuring and time.perf_counter() < stop_at:
                    finished += 1
                a, b = b, a

        async with Operator(url, operator_token) as operator:
            # quiet: one game at a time between two bots, nothing else going on
            clients[0].measuring = clients[1].measuring = True
            quiet_started = time.perf_counter()
            while time.perf_counter() - quiet_started < args.quiet:
                await operator.play_log("substitution", settings, [names[0], names[1]])
            clients[0].measuring = clients[1].measuring = False
            quiet = clients[0].rtts + clients[1].rtts
            clients[0].rtts, clients[1].rtts = [], []
            stop_at = time.perf_counter() + 3600
            players = [asyncio.create_task(keep_playing(operator, a, b, 1000 * i))
                       for i, (a, b) in enumerate(pairs)]
            await asyncio.sleep(args.warmup)
            for client in clients:
                client.measuring = True
            measuring = True
            server_cpu, client_cpu = cpu_seconds(server.pid), time.process_time()
            started = time.perf_counter()
            stop_at = started + args.seconds
            await asyncio.sleep(args.seconds)
            elapsed = time.perf_counter() - started
            server_cpu = cpu_seconds(server.pid) - server_cpu
            client_cpu = time.process_time() - client_cpu
            health = await asyncio.to_thread(http_get, f"http://127.0.0.1:{port}/healthz")
            rss, peak = memory_kib(server.pid)
            for client in clients:
                client.measuring = False
            async with asyncio.timeout(60):
                await asyncio.gather(*players)
        for client in clients:
            await client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        rtts = [r for c in clients for r in c.rtts]
        return {
            "games_per_s": finished / elapsed,
            "moves_per_s": sum(len(c.rtts) for c in clients) / elapsed,
            "games_in_flight": json.loads(health)["games_in_flight"],
            "rtt_p50_ms": percentile(rtts, 0.5) * 1000, "rtt_p99_ms": percentile(rtts, 0.99) * 1000,
            "rtt_samples": len(rtts), "rss_mib": rss / 1024, "peak_rss_mib": peak / 1024,
            "connected": len(clients),
            "server_cpu": server_cpu / elapsed, "client_cpu": client_cpu / elapsed,
            "quiet_p50_ms": percentile(quiet, 0.5) * 1000, "quiet_p99_ms": percentile(quiet, 0.99) * 1000,
        }


async def echo_quiet(port: int, frame: bytes) -> list[float]:
    """One connection, one round trip at a time (no load)."""
    from websockets.asyncio.client import connect

    rtts = []
    async with connect(f"ws://127.0.0.1:{port}/", compression=None) as ws:
        for _ in range(2000):
            start = time.perf_counter()
            await ws.send(frame)
            await ws.recv()
            rtts.append(time.perf_counter() - start)
    return rtts


async def echo_phase(args: argparse.Namespace, port: int) -> dict[str, float]:
    from websockets.asyncio.client import connect

    server = subprocess.Popen([sys.executable, "-c", ECHO_SERVER, str(port)],  # noqa: ASYNC220
                              stdout=subprocess.PIPE)
    try:
        assert server.stdout is not None
        await asyncio.to_thread(server.stdout.readline)
        payload = Message.make("move", game_id="g0123456789ab", turn=42,
                               move="-1 0 1, 0 3 0").to_wire()
        import msgpack

        frame = msgpack.packb(payload)
        rtts: list[float] = []
        stop_at = time.perf_counter() + args.seconds
        echo_cpu, client_cpu = cpu_seconds(server.pid), time.process_time()

        async def loop() -> None:
            async with connect(f"ws://127.0.0.1:{port}/", compression=None) as ws:
                while time.perf_counter() < stop_at:
                    start = time.perf_counter()
                    await ws.send(frame)
                    await ws.recv()
                    rtts.append(time.perf_counter() - start)

        await asyncio.gather(*(loop() for _ in range(args.games)))
        echo_cpu = (cpu_seconds(server.pid) - echo_cpu) / args.seconds
        client_cpu = (time.process_time() - client_cpu) / args.seconds
        quiet = await echo_quiet(port, frame)
        return {"echo_quiet_p50_ms": percentile(quiet, 0.5) * 1000,
                "echo_quiet_p99_ms": percentile(quiet, 0.99) * 1000,
                "echo_p50_ms": percentile(rtts, 0.5) * 1000,
                "echo_p99_ms": percentile(rtts, 0.99) * 1000,
                "echo_per_s": len(rtts) / args.seconds,
                "echo_cpu": echo_cpu, "echo_client_cpu": client_cpu}
    finally:
        server.terminate()
        server.wait(timeout=10)


def median(values: list[float]) -> float:
    return statistics.median(values)


def build_extensions(path: Path) -> None:
    """The compiled extensions of the checkout `path`: this checkout's own when every
    source they were built from (`arena/_extensions.json`, the manifest `arena.compiled`
    checks before loading one) and `setup.py` are the same there, else built with
    Cython. Either way the manifest comes along, so nothing stale can run."""
    manifest = ROOT / "arena" / "_extensions.json"
    sources = [name for extension in json.loads(manifest.read_text()).values()
               for name in extension["sources"]] + ["setup.py"]
    if all((path / name).is_file() and (path / name).read_bytes() == (ROOT / name).read_bytes()
           for name in sources):
        for built in ROOT.rglob("*.so"):
            if ".venv" not in built.parts and "build" not in built.relative_to(ROOT).parts:
                shutil.copy2(built, path / built.relative_to(ROOT))
        shutil.copy2(manifest, path / "arena" / "_extensions.json")
        return
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=path,
                   check=True, stdout=subprocess.DEVNULL)  # needs Cython


@contextlib.contextmanager
def checkout(revision: str) -> Any:
    """A temporary worktree of `revision` with its extensions built in place."""
    with tempfile.TemporaryDirectory(prefix="arena-baseline-") as tmp:
        path = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet",
                        str(path), revision], check=True)
        try:
            build_extensions(path)
            found = subprocess.run(
                [sys.executable, "-c", "import arena; print(arena.__file__)"], cwd=path,
                env={**os.environ, "PYTHONPATH": str(path)}, check=True, capture_output=True,
                text=True).stdout.strip()
            assert found.startswith(str(path)), f"the baseline imports {found}"
            yield path
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                           check=False)
            shutil.rmtree(path, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--moves", type=int, default=50, help="turns per player per game")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per phase")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--quiet", type=float, default=3.0,
                        help="seconds of one game at a time before the load (no-load round trip)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="arena and echo phases, interleaved; the summary quotes medians")
    parser.add_argument("--baseline", metavar="REV", default=None,
                        help="also run the server of this git revision in every round")
    parser.add_argument("--no-write-ahead-baseline", action="store_true",
                        help="also run this checkout's server with --no-write-ahead in every "
                             "round (the cost of storing each move)")
    parser.add_argument("--db", action="append", default=None,
                        help="sqlite (a fresh file per phase) or a postgresql:// URL (a fresh "
                             "schema per phase, dropped after); several, one after the other "
                             "in one run: --db sqlite,postgresql://... or --db given twice")
    args = parser.parse_args()
    databases = [db for given in args.db or ["sqlite"] for db in split_databases(given)]
    summaries: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        if args.baseline is not None:
            baseline: Path | None = stack.enter_context(checkout(args.baseline))
            flags: tuple[str, ...] = ()
        elif args.no_write_ahead_baseline:
            args.baseline = "--no-write-ahead"
            baseline, flags = ROOT, ("--no-write-ahead",)
        else:
            baseline, flags = None, ()
        for db in databases:
            args.db = db
            summaries.append(run(args, baseline, flags))
    if len(summaries) > 1 or baseline is not None:
        side_by_side(summaries, args.baseline)


def split_databases(given: str) -> list[str]:
    """``sqlite,postgresql://...`` as its databases (a comma inside a URL, as in a
    PostgreSQL URL of several hosts, stays)."""
    return [db for db in re.split(r",(?=sqlite|postgres)", given) if db]


def side_by_side(summaries: list[dict[str, Any]], baseline: str | None) -> None:
    """One table of every database's medians: what the lead quotes."""
    print("\nsummary (medians over the rounds; CPU per move is the server process's CPU "
          "over the moves, the steadiest figure on a shared machine):")
    print(f"{'database':10}  {'server':16}  {'p50 ms':>7}  {'p99 ms':>7}  {'moves/s':>7}  "
          f"{'ratio':>6}  {'us/move':>7}  {'no-load p50':>11}")
    for summary in summaries:
        rows = [("this", summary["this"])]
        if "base" in summary:
            rows.append((baseline or "baseline", summary["base"]))
        for name, row in rows:
            print(f"{summary['db']:10}  {name[:16]:16}  {row['p50']:7.2f}  {row['p99']:7.2f}  "
                  f"{row['moves_per_s']:7.0f}  {row['ratio']:5.2f}x  {row['us_per_move']:7.0f}  "
                  f"{row['quiet_p50']:8.2f} ms")
        if "base" in summary and baseline == "--no-write-ahead":
            this, base = summary["this"], summary["base"]
            print(f"{'':10}  storing each move costs {this['us_per_move'] - base['us_per_move']:.0f}"
                  f" us of server CPU per move and {this['p50'] - base['p50']:.2f} ms of p50 "
                  f"round trip under load ({this['quiet_p50'] - base['quiet_p50']:.2f} ms with "
                  "no load); the database's own CPU is not counted")


@contextlib.asynccontextmanager
async def fresh_database(kind: str, tmp: str) -> Any:
    """A fresh database for one phase: a SQLite file in `tmp`, or a PostgreSQL schema."""
    if kind == "sqlite":
        yield os.path.join(tmp, "bench.sqlite")
        return
    import secrets

    import asyncpg

    name = "arena_bench_" + secrets.token_hex(6)
    admin = await asyncpg.connect(kind)
    try:
        await admin.execute(f"CREATE SCHEMA {name}")
        try:
            yield f"{kind}{'&' if '?' in kind else '?'}search_path={name}"
        finally:
            await admin.execute(f"DROP SCHEMA {name} CASCADE")
    finally:
        await admin.close()


def run(args: argparse.Namespace, baseline: Path | None, baseline_flags: tuple[str, ...] = ()
        ) -> dict[str, Any]:
    """The rounds on the database `args.db`, printed; returns the medians (`side_by_side`)."""
    rounds: list[tuple[dict[str, float], dict[str, float]]] = []
    before: list[dict[str, float]] = []
    print(f"{args.rounds} rounds of: arena server ({args.bots} bot clients, {args.games} games "
          f"in flight, substitution on 'medium', {args.moves} moves a player, database "
          f"{args.db.split('?')[0]}), then a bare "
          f"websockets echo ({args.games} connections); {args.seconds:g} s measured each")
    print("round  move p50/p99 ms   echo p50/p99 ms   ratio p50   moves/s  echo/s   "
          "server us/move  echo us/msg  clients us/move  server MiB")
    def server_phase(root: Path, extra: tuple[str, ...] = ()) -> dict[str, float]:
        async def phase() -> dict[str, float]:
            with tempfile.TemporaryDirectory() as tmp:
                async with fresh_database(args.db, tmp) as db:
                    return await arena_phase(args, db, free_port(), root, extra)

        return asyncio.run(phase())

    for number in range(1, args.rounds + 1):
        if baseline is not None and number % 2 == 0:  # alternate which one goes first
            before.append(server_phase(baseline, baseline_flags))
        arena = server_phase(ROOT)
        if baseline is not None and number % 2 == 1:
            before.append(server_phase(baseline, baseline_flags))
        if baseline is not None:
            old = before[-1]
            print(f" base  {old['rtt_p50_ms']:6.2f}/{old['rtt_p99_ms']:<7.2f}  "
                  f"{'':15}  {'':9}  {old['moves_per_s']:7.0f}  {'':6}   "
                  f"{old['server_cpu'] / old['moves_per_s'] * 1e6:14.0f}  {'':11}  "
                  f"{old['client_cpu'] / old['moves_per_s'] * 1e6:15.0f}  "
                  f"{old['peak_rss_mib']:10.0f}   ({args.baseline})", flush=True)
        echo = asyncio.run(echo_phase(args, free_port()))
        rounds.append((arena, echo))
        print(f"{number:>5}  {arena['rtt_p50_ms']:6.2f}/{arena['rtt_p99_ms']:<7.2f}  "
              f"{echo['echo_p50_ms']:6.2f}/{echo['echo_p99_ms']:<7.2f}  "
              f"{arena['rtt_p50_ms'] / echo['echo_p50_ms']:8.2f}x  "
              f"{arena['moves_per_s']:7.0f}  {echo['echo_per_s']:6.0f}   "
              f"{arena['server_cpu'] / arena['moves_per_s'] * 1e6:14.0f}  "
              f"{echo['echo_cpu'] / echo['echo_per_s'] * 1e6:11.0f}  "
              f"{arena['client_cpu'] / arena['moves_per_s'] * 1e6:15.0f}  "
              f"{arena['peak_rss_mib']:10.0f}", flush=True)

    def med(side: int, key: str) -> float:
        return median([r[side][key] for r in rounds])

    ratios = [a["rtt_p50_ms"] / e["echo_p50_ms"] for a, e in rounds]
    quiet_ratios = [a["quiet_p50_ms"] / e["echo_quiet_p50_ms"] for a, e in rounds]
    print("medians over the rounds:")
    print(f"  no load, one game at a time: move round trip p50 {med(0, 'quiet_p50_ms'):.2f} ms; "
          f"bare echo p50 {med(1, 'echo_quiet_p50_ms'):.2f} ms; ratio {median(quiet_ratios):.2f}x")
    print(f"  under load: games/s {med(0, 'games_per_s'):.1f}, moves/s {med(0, 'moves_per_s'):.0f}; "
          f"move round trip p50 {med(0, 'rtt_p50_ms'):.2f} ms, p99 {med(0, 'rtt_p99_ms'):.2f} ms")
    print(f"  bare echo at the same concurrency: p50 {med(1, 'echo_p50_ms'):.2f} ms, "
          f"p99 {med(1, 'echo_p99_ms'):.2f} ms")
    print(f"  server: {med(0, 'server_cpu'):.0%} of a core, memory RSS {med(0, 'rss_mib'):.0f} MiB "
          f"(peak {med(0, 'peak_rss_mib'):.0f} MiB); bot clients {med(0, 'client_cpu'):.0%} of a core")
    print(f"ratio move/echo at p50 under load: median {median(ratios):.2f}x "
          f"(rounds: {', '.join(f'{r:.2f}' for r in ratios)}; target <= 2x at 200 bots, issue 11)")
    per_move = [a["server_cpu"] / a["moves_per_s"] * 1e6 for a, _ in rounds]
    print(f"server CPU per move: median {median(per_move):.0f} us "
          f"(rounds: {', '.join(f'{r:.0f}' for r in per_move)})")
    summary: dict[str, Any] = {"db": "sqlite" if args.db == "sqlite" else "postgresql", "this": {
        "p50": med(0, "rtt_p50_ms"), "p99": med(0, "rtt_p99_ms"),
        "moves_per_s": med(0, "moves_per_s"), "ratio": median(ratios),
        "us_per_move": median(per_move), "quiet_p50": med(0, "quiet_p50_ms")}}
    if before:
        p50 = [a["rtt_p50_ms"] / b["rtt_p50_ms"] for (a, _), b in zip(rounds, before, strict=True)]
        rate = [a["moves_per_s"] / b["moves_per_s"] for (a, _), b in zip(rounds, before, strict=True)]
        quiet = [a["quiet_p50_ms"] / b["quiet_p50_ms"] for (a, _), b in zip(rounds, before, strict=True)]
        print(f"this checkout against {args.baseline} (same rounds, side by side): move round "
              f"trip p50 under load x{median(p50):.2f} (rounds: "
              f"{', '.join(f'{r:.2f}' for r in p50)}), moves/s x{median(rate):.2f}, no-load "
              f"p50 x{median(quiet):.2f} (below 1: faster, above 1: slower)")
        base_ratios = [b["rtt_p50_ms"] / e["echo_p50_ms"]
                       for (_, e), b in zip(rounds, before, strict=True)]
        print(f"  {args.baseline}: move round trip p50 "
              f"{median([b['rtt_p50_ms'] for b in before]):.2f} ms, p99 "
              f"{median([b['rtt_p99_ms'] for b in before]):.2f} ms, moves/s "
              f"{median([b['moves_per_s'] for b in before]):.0f}; ratio move/echo at p50 "
              f"median {median(base_ratios):.2f}x (rounds: "
              f"{', '.join(f'{r:.2f}' for r in base_ratios)})")
        base_per_move = [b["server_cpu"] / b["moves_per_s"] * 1e6 for b in before]
        print(f"  {args.baseline}: server CPU per move median {median(base_per_move):.0f} us "
              f"(rounds: {', '.join(f'{r:.0f}' for r in base_per_move)}); this checkout "
              f"x{median([a / b for a, b in zip(per_move, base_per_move, strict=True)]):.2f}")
        summary["base"] = {
            "p50": median([b["rtt_p50_ms"] for b in before]),
            "p99": median([b["rtt_p99_ms"] for b in before]),
            "moves_per_s": median([b["moves_per_s"] for b in before]),
            "ratio": median(base_ratios), "us_per_move": median(base_per_move),
            "quiet_p50": median([b["quiet_p50_ms"] for b in before])}
    return summary


if __name__ == "__main__":
    main()
