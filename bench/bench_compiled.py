"""What compiling each plain .py module buys: compiled against pure Python, side by side.

`setup.py` can compile plain ``.py`` modules with Cython (the match loop and referee,
the substitution game, its bots, the wire protocol). Each workload here runs in a fresh
child process per configuration: every module compiled; one module (or group) loaded
from its source (``ARENA_PURE=<names>``, see `arena.compiled`); or every plain module
from source (``ARENA_PURE=1``). Rounds interleave the configurations so that all see
the same machine; times are CPU seconds of the child (the workloads use one core), and
the table shows medians and the speed-up compiling gives (pure time / compiled time).
For the protocol it also times msgspec decoding the same frames into the typed structs
alone (`protocol.typed` without the checks after it), the floor of the typed reading.

    python bench/bench_compiled.py [--rounds 5] [--scale 1.0] [--only NAME]

Needs the compiled build (`make setup`); msgspec rows need ``pip install msgspec``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOOP = "arena.match,arena.referee"  # one group: match.pxd cimports the referee's types
PROTOCOL = "protocol.schema,protocol.connection,protocol.codec,arena.games.substitution.movestring"


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    pure: tuple[str, ...]
    """The ARENA_PURE values compared with the compiled build (besides ``1``)."""
    run: Callable[[float], int]
    """Does the work at `scale`; returns how many operations it did."""
    unit: str


# -- workloads (run inside the child) -----------------------------------------------


def _substitution(moves: int = 200) -> Any:
    from arena.games.substitution import Settings, SubstitutionGame

    return SubstitutionGame(Settings.preset("medium", moves=moves))


def _play(game: Any, specs: tuple[str, str], games: int) -> int:
    from arena.match import play_match
    from arena.registry import default_registry

    registry = default_registry()
    bots = [registry.make_bot(game, spec) for spec in specs]
    for seed in range(games):
        play_match(game, bots, seed=seed)
    return games


def play_substitution(scale: float) -> int:
    return _play(_substitution(), ("random", "random"), max(1, int(200 * scale)))


def play_sim(scale: float) -> int:
    from arena.games.sim import SimGame

    return _play(SimGame(6), ("sim-random", "sim-random"), max(1, int(3000 * scale)))


def validate(scale: float) -> int:
    from arena.match import play_match
    from arena.registry import default_registry
    from arena.validate import validate_record

    game = _substitution()
    bots = [default_registry().make_bot(game, "random") for _ in range(2)]
    records = [play_match(game, bots, seed=seed).record() for seed in range(50)]
    rounds = max(1, int(40 * scale))
    start = time.process_time()
    for _ in range(rounds):
        for record in records:
            assert validate_record(record, accelerate=False) is None
    _report_own_time(time.process_time() - start)
    return rounds * len(records)


def bot(spec: str, games: int) -> Callable[[float], int]:
    def run(scale: float) -> int:
        return _play(_substitution(), (spec, "random"), max(1, int(games * scale)))

    return run


def thesis_program(scale: float) -> int:
    """The thesis program's strategies under its rule, as `arena experiment thesis
    --rules thesis-program` plays them: search-4 against adaptive-random on `low-s`, the
    mixed strategy against short words on `classic`."""
    from arena.games.substitution import Settings, SubstitutionGame, preset

    games = max(1, int(10 * scale))
    for grammar, specs in (("low-s", ("thesis-search:depth=4", "thesis-adaptive-random:omega=10")),
                           ("classic", ("thesis-mixed:points=1,1,1,1", "thesis-short-words"))):
        _play(SubstitutionGame(Settings(preset(grammar), 200, "thesis-program")), specs, games)
    return 2 * games


_OWN_TIME: list[float] = []


def _report_own_time(seconds: float) -> None:
    """Workloads with a setup phase time their own core and report it here."""
    _OWN_TIME.append(seconds)


def _frames() -> dict[str, Any]:
    from protocol import Encoding

    state = _substitution().state_to_json(_substitution().initial_state())
    state.update(derivations=[["SAB", "aSb"], ["Sa"]], bank=[0, 1, 0, 2, 0, 0, 0, 0, 1, 0, 0],
                 roll=3, turn=8, move_number=4)
    move = {"type": "move", "game_id": "g000123", "turn": 41, "move": "-1 0 1, 0 3 0"}
    your_turn = {"type": "your_turn", "game_id": "g000123", "turn": 42, "move_number": 21,
                 "seat": 0, "chance": 3, "state": state,
                 "clock": {"limit_ms": 1000, "bank_ms": 5000}, "clocks": [5000, 4800],
                 "retries_left": 0}
    return {"move": move, "your_turn": your_turn, "encoding": Encoding.MSGPACK}


def _decode(side: str, message: str, count: int) -> int:
    """Receive the encoded `message` frame `count` times on `side`'s protocol core."""
    from protocol import ProtocolCore

    frames = _frames()
    core = ProtocolCore(side, frames["encoding"])
    frame = frames["encoding"].encode(frames[message])
    for _ in range(count):
        core.receive_data(frame)
        core.events_received()
    return count


def decode_move(scale: float) -> int:
    """The server's work per incoming move: decode and validate a msgpack frame."""
    return _decode("server", "move", max(1, int(100_000 * scale)))


def decode_your_turn(scale: float) -> int:
    """A client's work per turn: decode and validate a ``your_turn`` with its state."""
    return _decode("client", "your_turn", max(1, int(50_000 * scale)))


def encode_your_turn(scale: float) -> int:
    """The server's work per outgoing turn: build the message and encode it."""
    from protocol import Message

    frames = _frames()
    fields = dict(frames["your_turn"])
    del fields["type"]
    encode = frames["encoding"].encode
    count = max(1, int(100_000 * scale))
    for _ in range(count):
        encode(Message.unchecked("your_turn", **fields).to_wire())
    return count


def _msgspec_decoder(sender: str) -> Any:
    """msgspec's decoder of every message `sender` may send (`protocol.typed`'s structs),
    alone: no check of a game's parts after it, no `Message` made."""
    from typing import Union

    import msgspec

    from protocol.typed import message_structs

    structs = tuple(message_structs(sender, strict=sender == "client"))  # type: ignore[arg-type]
    return msgspec.msgpack.Decoder(Union[structs])  # noqa: UP007


def _msgspec_decode(sender: str, message: str, count: int) -> int:
    """Decode the encoded `message` frame (sent by `sender`) `count` times with msgspec."""
    import msgspec

    frames = _frames()
    decoder = _msgspec_decoder(sender)
    frame = frames["encoding"].encode(frames[message])
    for _ in range(count):
        msgspec.structs.asdict(decoder.decode(frame))
    return count


def msgspec_move(scale: float) -> int:
    return _msgspec_decode("client", "move", max(1, int(100_000 * scale)))


def msgspec_your_turn(scale: float) -> int:
    return _msgspec_decode("server", "your_turn", max(1, int(50_000 * scale)))


WORKLOADS = [
    Workload("play-substitution", "random vs random, medium, 400 moves", (
        LOOP, "arena.games.substitution.game", "bots.substitution.random_bot",
        "arena.games.substitution.movestring"), play_substitution, "games"),
    Workload("play-sim", "sim-random vs sim-random on K6", (LOOP,), play_sim, "games"),
    Workload("validate", "referee turn by turn over recorded games", (
        LOOP, "arena.games.substitution.game"), validate, "games"),
    Workload("smart-random", "vs random, medium", (
        "bots.substitution.weighted", "bots.substitution.metrics"), bot("smart-random", 40),
        "games"),
    Workload("short-words", "vs random, medium", (
        "bots.substitution.shortwords", "bots.substitution.metrics"),
        bot("short-words", 40), "games"),
    Workload("search-4", "search:depth=4 vs random, medium", (
        "bots.substitution.search", "bots.substitution.common", "bots.substitution.metrics"),
        bot("search:depth=4", 20), "games"),
    Workload("adaptive-10", "adaptive-random:omega=10 vs random, medium", (
        "bots.substitution.adaptive",), bot("adaptive-random:omega=10", 20), "games"),
    Workload("deep-search", "deep-search vs random, medium", (
        "bots.substitution.deep",), bot("deep-search", 10), "games"),
    Workload("thesis-program", "the thesis program's strategies (search-4, adaptive, mixed)", (
        "bots.substitution.program.strategies", "bots.substitution.program.simplified"),
        thesis_program, "games"),
    Workload("decode-move", "server: decode + validate a move frame (msgpack)", (
        "protocol.schema", "protocol.codec", "protocol.connection"), decode_move, "frames"),
    Workload("decode-your_turn", "client: decode + validate a your_turn frame", (
        "protocol.schema", "protocol.codec", "protocol.connection"), decode_your_turn,
        "frames"),
    Workload("encode-your_turn", "server: build + encode a your_turn frame", (
        "protocol.schema", "protocol.codec"), encode_your_turn, "frames"),
]
MSGSPEC = {"decode-move": msgspec_move, "decode-your_turn": msgspec_your_turn}


# -- the parent: children, rounds, the table -----------------------------------------


def child(name: str, implementation: str, scale: float, wait: bool) -> None:
    workload = next(w for w in WORKLOADS if w.name == name)
    run = MSGSPEC[name] if implementation == "msgspec" else workload.run
    run(scale * 0.05)  # warm up (imports, caches, the registry)
    if wait:  # instruction counting: the parent turns callgrind's instrumentation on now
        print("ready", flush=True)
        sys.stdin.readline()
    _OWN_TIME.clear()
    start = time.process_time()
    count = run(scale)
    seconds = _OWN_TIME[-1] if _OWN_TIME else time.process_time() - start
    print(json.dumps({"seconds": seconds, "count": count}), flush=True)


def _child_command(name: str, implementation: str, scale: float) -> list[str]:
    return [sys.executable, __file__, "--child", name, "--implementation", implementation,
            "--scale", str(scale)]


def _environment(pure: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_PURE"}
    env["PYTHONHASHSEED"] = "0"
    if pure is not None:
        env["ARENA_PURE"] = pure
    return env


def cpu_seconds(name: str, pure: str | None, implementation: str, scale: float) -> float:
    """CPU seconds per operation of one child."""
    out = subprocess.run(_child_command(name, implementation, scale), env=_environment(pure),
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out.splitlines()[-1])
    return float(data["seconds"]) / int(data["count"])


def instructions(name: str, pure: str | None, implementation: str, scale: float) -> float:
    """Instructions per operation, counted by callgrind: the same on a busy machine as on
    an idle one. Two children (scale and twice it), instrumented from the end of their
    warm-up; the difference of their counts is the work of `scale` alone."""
    counts = []
    for factor in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "callgrind.out"
            process = subprocess.Popen(
                ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                 f"--callgrind-out-file={out}",
                 *_child_command(name, implementation, scale * factor), "--wait"],
                env=_environment(pure), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True)
            assert process.stdin is not None and process.stdout is not None
            assert process.stdout.readline().strip() == "ready"
            subprocess.run(["callgrind_control", "--instr=on", str(process.pid)],
                           capture_output=True, check=True)
            process.stdin.write("\n")
            process.stdin.flush()
            data = json.loads(process.stdout.read().splitlines()[-1])
            if process.wait() != 0:
                raise RuntimeError(f"{name} under callgrind failed")
            total = next(int(line.split()[1]) for line in out.read_text().splitlines()
                         if line.startswith("summary:"))
            counts.append((total, int(data["count"])))
    (small, n_small), (large, n_large) = counts
    if n_large == n_small:
        raise SystemExit(f"{name}: --scale {scale} is too small to count anything")
    return (large - small) / (n_large - n_small)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="work per measurement")
    parser.add_argument("--only", action="append", help="workload names (default: all)")
    parser.add_argument("--also", action="append", default=[], metavar="MODULES",
                        help="another ARENA_PURE value to compare (comma-separated modules)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions with valgrind's callgrind, not CPU time "
                             "(one round; use a small --scale such as 0.05)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--implementation", default="arena", help=argparse.SUPPRESS)
    parser.add_argument("--wait", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.implementation, args.scale, args.wait)
        return

    from arena import compiled

    if compiled.refusal("arena.match") is not None:
        sys.exit("the compiled build is missing or stale: run `make setup` first")
    try:
        import msgspec  # noqa: F401

        has_msgspec = True
    except ImportError:
        has_msgspec = False

    workloads = [w for w in WORKLOADS if not args.only or w.name in args.only]
    configs = [(w, pure, "arena") for w in workloads
               for pure in dict.fromkeys((None, *w.pure, *args.also, "1"))]
    configs += [(w, None, "msgspec") for w in workloads if has_msgspec and w.name in MSGSPEC]
    measure = instructions if args.instructions else cpu_seconds
    rounds = 1 if args.instructions else args.rounds
    times: dict[tuple[str, str | None, str], list[float]] = {}
    for round_number in range(rounds):
        print(f"round {round_number + 1}/{rounds}", file=sys.stderr, flush=True)
        for workload, pure, implementation in configs:
            key = (workload.name, pure, implementation)
            value = measure(workload.name, pure, implementation, args.scale)
            times.setdefault(key, []).append(value)
            print(f"  {workload.name} pure={pure} {implementation}: {value:.4g}", file=sys.stderr,
                  flush=True)

    if args.instructions:
        print("instructions per operation (callgrind, deterministic); "
              "ratio = count / the all-compiled count (above 1: compiling pays)")
    else:
        print(f"CPU time per operation, median of {rounds} interleaved rounds, one core; "
              "ratio = time / the all-compiled time (above 1: compiling pays)")
    print(f"{'workload':18s} {'configuration':46s} {'per op':>11s} {'ratio':>9s}")
    show = _count if args.instructions else _seconds
    for workload in workloads:
        base = statistics.median(times[(workload.name, None, "arena")])
        print(f"{workload.name:18s} {'all compiled':46s} {show(base):>11s} {'1.00':>9s}"
              f"   ({workload.description})")
        for key, values in times.items():
            name, pure, implementation = key
            if name != workload.name or (pure is None and implementation == "arena"):
                continue
            label = ("msgspec's typed decode alone (the floor)" if implementation == "msgspec"
                     else "every plain module pure" if pure == "1" else f"pure: {pure}")
            median = statistics.median(values)
            print(f"{'':18s} {label[:46]:46s} {show(median):>11s} {median / base:9.2f}")


def _seconds(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def _count(count: float) -> str:
    return f"{count / 1e6:.2f} M" if count >= 1e6 else f"{count / 1e3:.1f} k"


if __name__ == "__main__":
    main()
