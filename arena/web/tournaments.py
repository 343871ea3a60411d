"""Tournaments started from the browser: one worker process each, followed by the page.

The one adapter between the web interface and the tournament runner: it uses only
`arena.tournament.TournamentSpec` and `arena.tournament.run_tournament`. A run never
touches the event loop: `run_tournament` plays in a process of its own (started from
the forkserver, niced below the server and under an address-space limit like every
worker, `arena.workers.limit_worker`; killed after `WebConfig.tournament_seconds`),
which writes the usual results directory (``tournament.json``, the logs) under the
server's ``--tournaments`` directory and sends ``(done, total)`` through a pipe the loop
watches with ``add_reader``. The page asks `TournamentRuns.get` for the progress and
then reads the table with the other tournaments.

Limits (`WebConfig`): bots, games in all, runs at once on the server (the others wait
in a queue of bounded length), one run per client at a time. Its bots are built-in
ones only (`house_bot`): a stranger never names a program for the server to run.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Literal

from arena.bots import Bot
from arena.game import Game
from arena.registry import default_registry
from arena.tournament import TournamentSpec, run_tournament
from arena.web.config import WebConfig
from arena.workers import limit_worker

__all__ = ["Run", "RunRefused", "TournamentRuns"]

log = logging.getLogger("arena.web")

Status = Literal["queued", "running", "finished", "failed"]


class RunRefused(Exception):
    """A run the limits do not allow: `status` is the HTTP answer's, `code` its code;
    `reason` and `params` (the answer's ``reason_code`` and ``reason_params``) say which
    limit, for a page's words."""

    def __init__(self, status: int, code: str, message: str, *, reason: str | None = None,
                 **params: str | int) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.reason = reason
        self.params = params


FAILURES = {
    "worker-not-started": "the worker did not start: {error}",
    "worker-error": "{kind}: {error}",
    "worker-stopped": "the worker stopped without a result",
    "overtime": "it took longer than {seconds} s, the limit of a tournament from the web",
    "shutdown": "the server shut down",
}
"""Why a run failed (its ``error_code``), and the English ``error`` of each: the page
says it from the code and ``error_params`` (docs/web.md, "Languages")."""


@dataclass
class Run:
    """One tournament started from the browser, and how far it got."""

    id: str
    client: str
    spec: TournamentSpec
    out: Path
    name: str
    """Its name among the tournaments (``web-ID/tournament.json``) once finished."""
    status: Status = "queued"
    done: int = 0
    total: int = 0
    error: str | None = None
    error_code: str | None = None
    """Why it failed, a key of `FAILURES`, with the values its text names."""
    error_params: dict[str, str | int] = field(default_factory=dict)
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    process: BaseProcess | None = None
    pipe: Connection | None = None
    timer: asyncio.TimerHandle | None = None
    on_end: Callable[[Run], None] | None = None
    """Called (on the loop) once the run has finished or failed (a season's final)."""

    def to_json(self, ahead: int) -> dict[str, Any]:
        eta = None
        if self.status == "running" and self.started is not None and 0 < self.done < self.total:
            eta = round((time.monotonic() - self.started) / self.done * (self.total - self.done), 1)
        return {"id": self.id, "status": self.status, "done": self.done, "total": self.total,
                "name": self.name if self.status == "finished" else None, "error": self.error,
                "error_code": self.error_code, "error_params": self.error_params,
                "game": self.spec.game, "bots": list(self.spec.bots), "games": self.spec.games,
                "ahead": ahead, "eta_seconds": eta}


def house_bot(game: Game[Any, Any], spec: str) -> Bot:
    """The tournament's `BotMaker`: built-in bots only, never ``exec:`` (a program a
    stranger names)."""
    return default_registry().make_bot(game, spec, allow_exec=False)


def _play(spec: dict[str, Any], out: str, processes: int, memory_mb: int,
          pipe: Connection) -> None:
    """The worker process: run the tournament, telling the server its progress. Its
    own processes (`processes` > 1) inherit its priority and memory limit."""
    limit_worker(memory_mb)
    try:
        run_tournament(TournamentSpec.from_json(spec), out=Path(out), processes=processes,
                       maker=house_bot, progress=lambda done, total: pipe.send(("progress", done, total)))
        pipe.send(("finished",))
    except BaseException as error:  # noqa: BLE001 - reported to the page, whatever it was
        pipe.send(("failed", type(error).__name__, str(error)[:500]))
    finally:
        pipe.close()


class TournamentRuns:
    """The runs of one server: start, follow, and stop them at shutdown."""

    def __init__(self, config: WebConfig, directory: Path | None) -> None:
        self.config = config
        self.directory = directory
        self.runs: dict[str, Run] = {}
        self._context = multiprocessing.get_context("forkserver")

    def _active(self) -> list[Run]:
        return [r for r in self.runs.values() if r.status in ("queued", "running")]

    def start(self, client: str, spec: TournamentSpec, *, label: str = "web",
              on_end: Callable[[Run], None] | None = None) -> Run:
        """Queue a run for `client` (started at once if a slot is free), in the results
        directory ``LABEL-ID``; `on_end` is called with it when it ends.

        Raises:
            RunRefused: no results directory, too many bots or games, the client has a
                run already, or the queue is full.
        """
        config = self.config
        if self.directory is None:
            raise RunRefused(409, "no-directory", "this server keeps no tournament results: "
                                                  "start it with --tournaments DIR")
        if not 2 <= len(spec.bots) <= config.tournament_bots:
            raise RunRefused(400, "bad-request", f"a tournament has 2 to {config.tournament_bots} "
                                                 f"bots, not {len(spec.bots)}",
                             reason="tournament-bots", limit=config.tournament_bots,
                             count=len(spec.bots))
        total = spec.total_games()
        if total > config.tournament_games:
            raise RunRefused(400, "bad-request",
                             f"{len(spec.bots)} bots at {spec.games} games per pairing and seat "
                             f"order is {total} games; a tournament from the web plays at most "
                             f"{config.tournament_games} in all", reason="tournament-games",
                             bots=len(spec.bots), games=spec.games, total=total,
                             limit=config.tournament_games)
        active = self._active()
        if any(r.client == client for r in active):
            raise RunRefused(409, "busy", "you have a tournament running already: wait for its "
                                          "table")
        if len(active) >= config.tournaments + config.tournament_queue:
            raise RunRefused(429, "too-many-requests",
                             f"{len(active)} tournaments are running or waiting; try again later")
        self._forget_old()
        run_id = secrets.token_hex(4)
        out = self.directory / f"{label}-{run_id}"
        run = Run(run_id, client, spec, out, f"{label}-{run_id}/tournament.json", total=total,
                  on_end=on_end)
        self.runs[run_id] = run
        self._next()
        return run

    def get(self, run_id: str) -> tuple[Run, int] | None:
        """The run and how many runs wait before it."""
        run = self.runs.get(run_id)
        if run is None:
            return None
        waiting = [r for r in self._active() if r.status == "queued"]
        ahead = waiting.index(run) if run in waiting else 0
        return run, ahead

    def _forget_old(self) -> None:
        """Keep the last 100 ended runs' progress (their results stay on disk)."""
        ended = [r for r in self.runs.values() if r.status in ("finished", "failed")]
        for run in ended[:-100]:
            del self.runs[run.id]

    def _next(self) -> None:
        """Start queued runs while a slot is free."""
        while sum(r.status == "running" for r in self.runs.values()) < self.config.tournaments:
            run = next((r for r in self.runs.values() if r.status == "queued"), None)
            if run is None:
                return
            self._launch(run)

    def _launch(self, run: Run) -> None:
        loop = asyncio.get_running_loop()
        receiver, sender = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_play, name=f"tournament {run.id}",
            args=(run.spec.to_json(), str(run.out), self.config.tournament_processes,
                  self.config.replay_memory_mb, sender))
        run.status, run.started = "running", time.monotonic()
        try:
            process.start()
        except OSError as error:
            self._end(run, "failed", "worker-not-started", error=str(error))
            return
        finally:
            sender.close()
        run.process, run.pipe = process, receiver
        loop.add_reader(receiver.fileno(), self._receive, run)
        run.timer = loop.call_later(self.config.tournament_seconds, self._overtime, run)

    def _receive(self, run: Run) -> None:
        pipe = run.pipe
        assert pipe is not None
        try:
            while pipe.poll():
                message = pipe.recv()
                if message[0] == "progress":
                    run.done, run.total = int(message[1]), int(message[2])
                elif message[0] == "finished":
                    self._end(run, "finished")
                    return
                else:
                    self._end(run, "failed", "worker-error", kind=str(message[1]),
                              error=str(message[2]))
                    return
        except (EOFError, OSError):
            self._end(run, "failed", "worker-stopped")

    def _overtime(self, run: Run) -> None:
        self._end(run, "failed", "overtime", seconds=f"{self.config.tournament_seconds:g}")

    def _end(self, run: Run, status: Status, code: str | None = None,
             **params: str | int) -> None:
        """End `run` as `status`; a failure's `code` (a key of `FAILURES`) and the values
        its text names."""
        if run.status in ("finished", "failed"):
            return
        error = FAILURES[code].format(**params) if code is not None else None
        run.status, run.error, run.finished = status, error, time.monotonic()
        run.error_code, run.error_params = code, params
        if run.timer is not None:
            run.timer.cancel()
        if run.pipe is not None:
            asyncio.get_running_loop().remove_reader(run.pipe.fileno())
            run.pipe.close()
            run.pipe = None
        if run.process is not None:
            if run.process.is_alive() and status == "failed":
                run.process.kill()
            # reaped in a thread: a finishing worker may take a moment to exit
            asyncio.get_running_loop().run_in_executor(None, run.process.join, 10)
        if status == "failed":
            log.info("web tournament %s failed: %s", run.id, error)
        if run.on_end is not None:
            run.on_end(run)
        self._next()

    def close(self) -> None:
        """Stop every run (at shutdown)."""
        for run in self.runs.values():
            if run.status == "queued":  # first, so that no ended run starts them
                run.status, run.error = "failed", FAILURES["shutdown"]
                run.error_code = "shutdown"
        for run in list(self.runs.values()):
            if run.status == "running":
                self._end(run, "failed", "shutdown")
