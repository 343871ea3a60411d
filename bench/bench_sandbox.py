"""What the sandbox costs a hosted bot: start-up, each move, measuring CPU time, the kill.

The same program (the C starter kit: it answers at once, so the runner's overhead is
all there is to see) plays as ``exec:`` (a plain child process) and as ``hosted:DIR``
(built by `arena.sandbox.build`, in its sandbox), side by side, in rounds that
interleave them so both see the same machine:

* start-up: from asking for the first move of a game to getting it (the program is
  started for it: a fresh sandbox for a hosted bot); the game's end (``over``, ``quit``,
  the kill of the process or of the whole sandbox);
* a move: the mean round trip of a game's moves after the first (the line written, the
  move read), wall-timed and, for the hosted bot, CPU-timed (``time_control.kind =
  cpu``, measuring the sandbox's CPU time as it waits);
* measuring the CPU time of a sandbox once: its cgroup's counter, and the sum over
  ``/proc`` of its processes (the fallback where there is no cgroup);
* a bare sandbox started and killed (`SandboxedProcess`, ``/bin/true``).

    python bench/bench_sandbox.py [--rounds 5] [--games 10]

Needs root and bubblewrap (`make sandbox`); times are medians over the rounds, in ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.clock import TimeControl
from arena.exec_bot import ExecBot
from arena.match import play_match
from arena.registry import default_registry
from arena.sandbox import tree
from arena.sandbox.build import build_bot
from arena.sandbox.hosted import HostedBot
from arena.sandbox.process import SandboxedProcess

ROOT = Path(__file__).resolve().parents[1]
CONTROL = TimeControl(move_ms=10_000, bank_ms=10_000, first_move_ms=30_000)


class _Timed:
    """A bot's moves, timed: the first of each game apart from the others."""

    def __init__(self, bot: ExecBot) -> None:
        self.bot = bot
        self.firsts: list[float] = []
        self.moves: list[float] = []
        self.ends: list[float] = []
        self._first = True

    def prepare(self, game: Any) -> None:
        self.bot.prepare(game)
        self._first = True

    def choose_move(self, game: Any, state: Any, rng: random.Random) -> str:
        started = time.perf_counter()
        move = self.bot.choose_move(game, state, rng)
        (self.firsts if self._first else self.moves).append(
            (time.perf_counter() - started) * 1000)
        self._first = False
        return move

    def game_over(self, game: Any, seat: int, outcome: Any) -> list[tuple[int | None, str]]:
        started = time.perf_counter()
        notes = self.bot.game_over(game, seat, outcome)
        if not isinstance(self.bot, HostedBot):
            self.bot.close()  # a fresh process each game, as a hosted bot has
        self.ends.append((time.perf_counter() - started) * 1000)
        return notes


def _game_timings(make: Callable[[], ExecBot], games: int) -> _Timed:
    """The timings (ms) of `games` sim games against a random bot, the program in seat 0."""
    registry = default_registry()
    game = registry.load_game("sim", {})
    timed = _Timed(make())
    try:
        for index in range(games):
            play_match(game, [timed, registry.make_bot(game, "sim-random")], seed=index)
    finally:
        timed.bot.close()
    return timed


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=10)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as directory:
        Path(directory).chmod(0o755)
        built = build_bot(ROOT / "examples" / "c", "c", Path(directory) / "c").bot
        program = str(built.files / ".arena" / "bot")
        makers: dict[str, Callable[[], ExecBot]] = {
            "exec: (plain process)": lambda: ExecBot(program, time_control=CONTROL),
            "hosted:, wall clock": lambda: HostedBot(built.directory, time_control=CONTROL),
            "hosted:, CPU clock": lambda: HostedBot(
                built.directory, time_control=TimeControl(
                    move_ms=10_000, bank_ms=10_000, first_move_ms=30_000, kind="cpu")),
        }
        results: dict[str, dict[str, list[float]]] = {
            name: {"first": [], "move": [], "end": []} for name in makers}
        for make in makers.values():  # warm up: the machine's probes, the page cache
            _game_timings(make, 1)
        bare: list[float] = []
        cgroup_reads: list[float] = []
        proc_reads: list[float] = []
        for _ in range(options.rounds):
            for name, make in makers.items():
                timed = _game_timings(make, options.games)
                results[name]["first"].append(_median(timed.firsts))
                results[name]["move"].append(statistics.mean(timed.moves))
                results[name]["end"].append(_median(timed.ends))
            sandbox = SandboxedProcess.start(["/bin/sleep", "1000"], stdin=subprocess.DEVNULL)
            started = time.perf_counter()
            for _ in range(200):
                sandbox.cgroup.cpu_ns()
            cgroup_reads.append((time.perf_counter() - started) / 200 * 1000)
            marked = time.perf_counter()
            for _ in range(200):
                tree.tree_cpu_ns(sandbox.pid)
            proc_reads.append((time.perf_counter() - marked) / 200 * 1000)
            sandbox.kill()
            marked = time.perf_counter()
            sandbox = SandboxedProcess.start(["/bin/true"], stdin=subprocess.DEVNULL)
            sandbox.popen.wait()
            sandbox.kill()
            bare.append((time.perf_counter() - marked) * 1000)

    print(f"sim games of the C starter kit against sim-random, {options.games} a round, "
          f"{options.rounds} rounds (medians of the rounds, ms)")
    print(f"{'runner':24s} {'first move (start-up)':>22s} {'a later move':>13s} "
          f"{'end of game (quit, kill)':>25s}")
    for name, result in results.items():
        print(f"{name:24s} {_median(result['first']):22.1f} {_median(result['move']):13.2f} "
              f"{_median(result['end']):25.1f}")
    print(f"a bare sandbox (/bin/true) started and killed: {_median(bare):.1f} ms")
    print(f"a sandbox's CPU time read once: cgroup {_median(cgroup_reads) * 1000:.0f} us, "
          f"/proc tree {_median(proc_reads) * 1000:.0f} us")


if __name__ == "__main__":
    main()
