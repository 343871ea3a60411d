"""The cost of a leg through the broker (issue 24, docs/cluster.md "Figures"): what the
arena's bus path adds to a bare nats-py ping-pong, without the games around it.

Two processes over NATS: an echo (a host's side: a listener on ``leg.in`` that answers
on ``leg.out`` through a `Sender`, as a host answers a move) and a pinger (a gateway's
side: a `Sender` to ``leg.in``, a listener on ``leg.out``). One ping at a time
(`--messages`): the round trip of two legs, p50/p99; then `--window` pings in flight
(`--messages` again): round trips a second, and the CPU per round trip of each process.
Setups, alternated `--rounds` times: ``bare`` (nats-py's publish and subscribe, no
arena code), ``arena`` (this tree's `arena.bus` and `Sender`) and, with `--before DIR`,
the same code from the source tree DIR (another checkout). A tree without
`Bus.listen` is given an async handler through `subscribe` (what the roles did before).

    python bench/bench_bus_leg.py [--messages 5000] [--window 50] [--rounds 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _bare(url: str, prefix: str) -> tuple[Any, Any, Any]:
    """publish, subscribe and close on bare nats-py: an answer is published by the
    subscription's callback itself, awaited."""
    import nats

    client = await nats.connect(url)

    async def publish(subject: str, data: bytes) -> None:
        await client.publish(f"{prefix}.{subject}", data)

    async def subscribe(subject: str, handler: Any, answers: str | None) -> None:
        async def deliver(message: Any) -> None:
            out = handler(message.data)
            if out is not None and answers is not None:
                await client.publish(f"{prefix}.{answers}", out)

        await client.subscribe(f"{prefix}.{subject}", cb=deliver)
        await client.flush()

    return publish, subscribe, client.close


async def _arena(url: str, prefix: str) -> tuple[Any, Any, Any]:
    """The same through `arena.bus` and a `Sender`, as the roles do (imported from the
    working directory's tree)."""
    sys.path.insert(0, str(Path.cwd()))
    from arena.bus import open_bus
    from arena.cluster.sender import Sender

    bus = await open_bus(f"{url}?prefix={prefix}")
    sender = Sender(bus)

    async def publish(subject: str, data: bytes) -> None:
        sender.send(subject, data)

    async def subscribe(subject: str, handler: Any, answers: str | None) -> None:
        def listener(message: Any) -> None:
            out = handler(message.data)
            if out is not None and answers is not None:
                sender.send(answers, out)

        if hasattr(bus, "listen"):
            await bus.listen(subject, listener)
        else:  # before Bus.listen: an async handler, as the roles had
            async def deliver(message: Any) -> None:
                listener(message)

            await bus.subscribe(subject, deliver)

    async def close() -> None:
        await sender.close()
        await bus.close()

    return publish, subscribe, close


async def echo(setup: str, url: str, prefix: str) -> None:
    _, subscribe, close = await (_bare if setup == "bare" else _arena)(url, prefix)
    done = asyncio.Event()

    def answer(data: bytes) -> bytes:
        if data == b"cpu":
            return str(cpu()).encode()
        if data == b"stop":
            done.set()
        return data

    await subscribe("leg.in", answer, "leg.out")
    print("ready", flush=True)
    await done.wait()
    await close()


async def ping(setup: str, url: str, prefix: str, messages: int, window: int) -> None:
    publish, subscribe, close = await (_bare if setup == "bare" else _arena)(url, prefix)
    answers: asyncio.Queue[bytes] = asyncio.Queue()
    await subscribe("leg.out", answers.put_nowait, None)

    async def ask(data: bytes) -> bytes:
        await publish("leg.in", data)
        return await answers.get()

    for _ in range(200):  # warm up
        await ask(b"x")
    rtts = []
    for _ in range(messages):
        began = time.perf_counter()
        await ask(b"x")
        rtts.append(time.perf_counter() - began)
    rtts.sort()
    echo0, mine0, began = float(await ask(b"cpu")), cpu(), time.perf_counter()
    for _ in range(window):
        await publish("leg.in", b"y")
    for _ in range(messages - window):
        await answers.get()
        await publish("leg.in", b"y")
    for _ in range(window):
        await answers.get()
    elapsed = time.perf_counter() - began
    echo1, mine1 = float(await ask(b"cpu")), cpu()
    await publish("leg.in", b"stop")
    await answers.get()
    print(json.dumps({
        "p50": rtts[len(rtts) // 2] * 1e3, "p99": rtts[int(len(rtts) * 0.99)] * 1e3,
        "per_second": messages / elapsed,
        "echo_us": (echo1 - echo0) / messages * 1e6, "ping_us": (mine1 - mine0) / messages * 1e6}))
    await close()


def run_setup(setup: str, root: Path, args: argparse.Namespace) -> dict[str, float]:
    prefix = "bench_leg_" + secrets.token_hex(4)
    script = str(Path(__file__).resolve())
    common = [sys.executable, script, "--setup", setup, "--bus", args.bus, "--prefix", prefix]
    echoing = subprocess.Popen([*common, "--role", "echo"], cwd=root, stdout=subprocess.PIPE)
    try:
        assert echoing.stdout is not None
        echoing.stdout.readline()  # ready
        out = subprocess.run([*common, "--role", "ping", "--messages", str(args.messages),
                              "--window", str(args.window)], cwd=root, check=True,
                             capture_output=True, text=True).stdout
        figures: dict[str, float] = json.loads(out.strip().splitlines()[-1])
        return figures
    finally:
        echoing.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, default=None, metavar="DIR")
    parser.add_argument("--bus", default="nats://127.0.0.1:4222")
    parser.add_argument("--setup", help=argparse.SUPPRESS)
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "echo":
        asyncio.run(echo(args.setup, args.bus, args.prefix))
        return
    if args.role == "ping":
        asyncio.run(ping(args.setup, args.bus, args.prefix, args.messages, args.window))
        return
    setups = {"bare nats-py": ("bare", ROOT)}
    if args.before is not None:
        setups[f"arena from {args.before.name}"] = ("arena", args.before.resolve())
    setups["arena"] = ("arena", ROOT)
    results: dict[str, list[dict[str, float]]] = {label: [] for label in setups}
    print(f"{args.messages} pings one at a time, then {args.messages} with {args.window} in "
          f"flight; {args.rounds} round(s) (shared 2-core machine)")
    print("setup                two legs p50 / p99 ms   round trips/s   CPU per round trip: "
          "echo, pinger")
    for _ in range(args.rounds):
        for label, (setup, root) in setups.items():
            figures = run_setup(setup, root, args)
            results[label].append(figures)
            print(f"{label:<20} {figures['p50']:8.3f} / {figures['p99']:6.3f}   "
                  f"{figures['per_second']:12.0f}   {figures['echo_us']:5.0f} us, "
                  f"{figures['ping_us']:5.0f} us", flush=True)
    print("medians of the rounds:")
    for label, rounds in results.items():
        def median(key: str, rounds: list[dict[str, float]] = rounds) -> float:
            return statistics.median(r[key] for r in rounds)

        print(f"{label:<20} {median('p50'):8.3f} / {median('p99'):6.3f}   "
              f"{median('per_second'):12.0f}   {median('echo_us'):5.0f} us, "
              f"{median('ping_us'):5.0f} us")


if __name__ == "__main__":
    main()
