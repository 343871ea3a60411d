"""``hosted:DIR``: a built bot (`arena.sandbox.manifest`) playing from its sandbox.

A `HostedBot` is an `arena.exec_bot.ExecBot` whose program starts in the sandbox
(`arena.sandbox.process`) instead of as a plain child process: the line protocol, the
clock, the debug lines and every failure's meaning are the ``exec:`` runner's, by
construction. What differs:

* each game gets a fresh sandbox, killed -- its whole process tree -- when the game
  ends (a program keeps nothing from one game to the next, and leaves nothing behind);
* under a time control of kind ``cpu`` a move's time is the CPU time of the sandbox's
  processes (`arena.clock.CpuTimer`), not wall time;
* when the program dies, its author is told which of the sandbox's limits it reached
  (memory, processes).
"""

from __future__ import annotations

import multiprocessing.util
import shlex
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.bots import BotFactory, BotGaveUp, Param
from arena.clock import CpuTimer, MoveTimer, TimeControl, WallTimer
from arena.exec_bot import ExecBot
from arena.game import Game, Outcome, Termination
from arena.legal import DEFAULT_MAX_LEGAL
from arena.lines import exit_text
from arena.sandbox.host import probe_host
from arena.sandbox.launch import start_build
from arena.sandbox.manifest import NotABuild, load_build
from arena.sandbox.process import SandboxedProcess
from arena.sandbox.spec import MiB, SandboxSpec

__all__ = ["HOSTED_PREFIX", "HostedBot", "hosted_factory"]

HOSTED_PREFIX = "hosted:"


class HostedBot(ExecBot):
    """A built bot in its sandbox (see the module docstring).

    Args:
        directory: the build (``arena bots build ... --out DIR``).
        time_control: the clock of each game (kind ``cpu``: CPU time per move).
        spec: the sandbox's limits.

    Raises:
        NotABuild: `directory` is not a finished build, or one that speaks WebSocket.
        SandboxUnavailable: this machine cannot run sandboxes.
    """

    def __init__(self, directory: str | Path, *, time_control: TimeControl | None = None,
                 max_legal: int = DEFAULT_MAX_LEGAL, spec: SandboxSpec | None = None) -> None:
        self.build = load_build(directory)
        if self.build.speaks != "lines":
            raise NotABuild(f"{self.build.directory} speaks {self.build.speaks}, not lines: "
                            "a server hosts it (arena bots upload NAME PATH --speaks ws)")
        probe_host()
        self.spec = spec or SandboxSpec()
        self.directory = str(directory)
        super().__init__(shlex.quote(HOSTED_PREFIX + self.directory),
                         time_control=time_control, max_legal=max_legal)
        self._sandbox: SandboxedProcess | None = None
        self._limits_hit: list[str] = []

    def __repr__(self) -> str:
        return f"HostedBot({self.directory!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {"directory": self.directory, "time_control": self.time_control,
                "max_legal": self.max_legal, "spec": self.spec}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        self.__init__(state["directory"], time_control=state["time_control"],  # type: ignore[misc]
                      max_legal=state["max_legal"], spec=state["spec"])

    # -- the process: in the sandbox --------------------------------------------------

    def _start(self) -> subprocess.Popen[bytes]:
        try:
            sandbox = start_build(self.build, self.spec)
        except OSError as error:
            raise BotGaveUp(f"cannot start {self.argv[0]}: {error.strerror or error}",
                            Termination.DISCONNECT) from None
        self._sandbox = sandbox
        self._limits_hit = []
        multiprocessing.util.Finalize(self, sandbox.kill, exitpriority=10)
        return sandbox.popen

    def _stop(self, process: subprocess.Popen[bytes]) -> None:
        sandbox = self._sandbox
        if sandbox is None or sandbox.popen is not process:
            return
        self._limits_hit = sandbox.limits_hit()
        sandbox.kill()
        self._sandbox = None

    def _timer(self, allowance_ms: float) -> MoveTimer:
        if self.time_control.kind == "cpu" and self._sandbox is not None:
            return CpuTimer(allowance_ms, self._sandbox.cpu_ns)
        return WallTimer(allowance_ms)

    def _exit_text(self, status: int | None) -> str:
        sandbox = self._sandbox
        if sandbox is not None:
            status = sandbox.exit_status(status)
            self._limits_hit = sandbox.limits_hit()
        text = exit_text(status, self._stderr_tail)
        limits = {"memory": f"its memory limit ({self.spec.memory_bytes // MiB} MiB)",
                  "processes": f"its limit of {self.spec.processes} processes and threads"}
        for hit in self._limits_hit:
            text += f"\n  (the sandbox: it reached {limits[hit]})"
        return text

    # -- one sandbox per game -------------------------------------------------------------

    def _game_ended(self) -> None:
        """With no game of its left, the program is told ``quit`` (its last words on
        standard error go with the game)."""
        if not self._seats:
            self._quit()

    def game_over(self, game: Game[Any, Any], seat: int, outcome: Outcome
                  ) -> list[tuple[int | None, str]]:
        """The game's debug lines; then, with no game of its left, the sandbox is killed."""
        notes = super().game_over(game, seat, outcome)
        if not self._seats:
            self._drop_process()
        return notes


def _make(game: Game[Any, Any], params: Mapping[str, Any]) -> HostedBot:
    return HostedBot(str(params["dir"]))


def hosted_factory(game: str) -> BotFactory:
    """The ``hosted`` bot of `game` (`arena.registry.Registry.bot_factory`)."""
    return BotFactory(
        "hosted", game, "a built bot playing from its sandbox (hosted:DIR)", _make,
        (Param("dir", "str", "", "the build's directory (arena bots build ... --out DIR)"),))
