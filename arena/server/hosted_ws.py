"""WebSocket-speaking hosted bots: a program uploaded with ``speaks=ws`` (the starter
kits, unchanged) runs in its sandbox as a long-running connected bot, without any
network of its own.

Its sandbox keeps ``--unshare-net``: inside, the relay (`arena.sandbox.relay`) listens on
the sandbox's own loopback at ``127.0.0.1:8765`` -- where the kits connect by default --
and carries each connection to a Unix socket bind-mounted from here (`HostedSocket`),
which carries it on to the server's own port. The program logs in with ``ARENA_TOKEN``,
a hosted token minted for this bot and this run (never its owner's token), checked like
the line bridge's (`arena.server.auth`); it is forgotten when the run ends.

Capacity: its program runs all the time, playing or idle, so it holds one of the
server's WebSocket program slots (``HostedConfig.ws_programs``, a `HostedSlots` of its
own) while it runs, waiting its turn to start when none is free; and its games, like any
hosted bot's, hold a slot of the server's hosted slots per seat (so at most K hosted
programs are *playing* at once, whatever they speak, and a WebSocket bot can never keep
the line bots' games waiting).

Its lifecycle (`WsHostedBot`): started when the bot has a ``ws`` build and the server
runs (once it has its slot); restarted
after it exits, after a delay that doubles from `RESTART_SECONDS` up to
`MAX_RESTART_SECONDS` (back to the shortest once a run lasted `STEADY_SECONDS`); stopped
-- its whole sandbox killed, by its keeper ``arena bots run DIR --relay SOCKET``
(`arena.sandbox.run`) -- when a new build replaces it, when the bot is no longer hosted,
and when the server stops. A program of the bot's author connected under its name takes
precedence: the hosted one is not started again while it is there.

Its standard error is kept for its owner as a line program's is (`GameStderr`, on the
same budget: ``hosted_stderr``, ``GET /api/bots/NAME/games/ID/stderr``): each line with
every game the bot plays when it is read (its games are looked up every
`FOLLOW_SECONDS`); while it plays none, with the games just over (a game's is stored
`STDERR_GRACE` after its end: so a program's words about a game's end stay with that
game); else (its start, say) with its next game. The last `STDERR_LINES` lines stay
in memory too (`stderr`).

Budgets: at most `AT_ONCE` connections at a time through a bot's socket (the relay
inside counts too), each a WebSocket handshake (``GET`` with ``Upgrade: websocket``, its
head within `HEAD_BYTES`, sent within `HEAD_SECONDS`; anything else is answered 403 and
closed: a hosted bot is no HTTP client of the server's API); everything else the sandbox limits stays (no network but its
loopback, memory, processes, files, CPU), and the server's own limits apply to what
comes through (frames, messages, log bytes) as to any connected bot.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import secrets
import shutil
import sys
from collections.abc import Callable, Collection, MutableMapping
from pathlib import Path

from arena.sandbox.host import probe_host
from arena.sandbox.relay import pipe
from arena.sandbox.slots import HostedSlots
from arena.server.auth import WALL_TIMED_TOKEN_PREFIX
from arena.server.hosted_stderr import GameStderr

__all__ = ["AT_ONCE", "MAX_RESTART_SECONDS", "RESTART_SECONDS", "STEADY_SECONDS",
           "HostedSocket", "WsHostedBot"]

log = logging.getLogger("arena.server")

AT_ONCE = 2
"""Connections a WebSocket-speaking hosted bot may have open through its socket at once;
more are closed as they come."""
RESTART_SECONDS = 1.0
"""The delay before a program that exited is started again (doubled after each run
shorter than `STEADY_SECONDS`, up to `MAX_RESTART_SECONDS`)."""
MAX_RESTART_SECONDS = 60.0
STEADY_SECONDS = 60.0
"""A run at least this long resets the restart delay to `RESTART_SECONDS`."""
STOP_SECONDS = 5.0
"""Seconds the keeper has to kill the sandbox after ``SIGTERM`` before it is killed
(then bubblewrap dies with it: ``--die-with-parent``)."""
STDERR_LINES = 200
"""Lines of the program's standard error kept in memory (its last ones, each cut at
1 KiB)."""
FOLLOW_SECONDS = 0.2
"""How often the games a WebSocket-speaking bot plays are looked up (its standard error
is kept with them)."""
STDERR_GRACE = 1.0
"""Seconds after a game's end its standard error is stored (what the program says about
the end is kept with it)."""
CHUNK = 64 * 1024
TOKEN_PREFIX = WALL_TIMED_TOKEN_PREFIX
"""How the hosted tokens of WebSocket-speaking programs begin (in logs, they tell; the
server times them by wall time: `arena.server.auth.Login.wall_timed`)."""
HEAD_BYTES = 16 * 1024
"""Largest head of a WebSocket handshake carried to the server."""
HEAD_SECONDS = 10.0
"""Time a connection has to send its handshake's head."""
REFUSED = (b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
           b"a hosted bot reaches the server's WebSocket only\n")


async def _handshake(reader: asyncio.StreamReader) -> bytes | None:
    """The head of a WebSocket handshake (`HEAD_BYTES` at most, within `HEAD_SECONDS`),
    or None: anything else."""
    try:
        async with asyncio.timeout(HEAD_SECONDS):
            head = await reader.readuntil(b"\r\n\r\n")
    except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    upgrade = any(name.strip().lower() == "upgrade" and value.strip().lower() == "websocket"
                  for name, _, value in (line.partition(":") for line in lines[1:]))
    return head if lines[0].startswith("GET ") and upgrade else None


class HostedSocket:
    """The Unix socket of one WebSocket-speaking hosted bot: each connection made to it
    (by the relay in its sandbox) is carried to the server's port, `AT_ONCE` at most.

    It lives in a directory of its own with an unguessable name under the sandboxes'
    runtime directory (traversable, not listable): only the sandbox it is bind-mounted
    into sees it.
    """

    def __init__(self, host: str, port: int) -> None:
        self.host = "127.0.0.1" if host in ("", "0.0.0.0") else host
        self.port = port
        self.directory = probe_host().sockets / secrets.token_hex(16)
        self.path = self.directory / "arena.sock"
        self.open = 0
        """Connections being carried now."""
        self.refused = 0
        """Connections closed at once (over `AT_ONCE`, or the port unreachable)."""
        self._server: asyncio.AbstractServer | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self.directory.mkdir(mode=0o711)
        self._server = await asyncio.start_unix_server(self._carry, str(self.path),
                                                       limit=HEAD_BYTES)
        self.path.chmod(0o666)  # the sandbox's uid connects; nobody else can reach it

    async def _carry(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.open >= AT_ONCE:
            self.refused += 1
            writer.close()
            return
        self.open += 1
        self._writers.add(writer)
        try:
            head = await _handshake(reader)
            if head is None:
                self.refused += 1
                with contextlib.suppress(OSError, ConnectionError):
                    writer.write(REFUSED)
                    await writer.drain()
                return
            try:
                up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                self.refused += 1
                return
            self._writers.add(up_writer)
            try:
                up_writer.write(head)
                await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
            finally:
                self._writers.discard(up_writer)
                up_writer.close()
        finally:
            self.open -= 1
            self._writers.discard(writer)
            writer.close()

    async def close(self) -> None:
        """Stop accepting, close what is carried, remove the socket."""
        if self._server is not None:
            self._server.close()
            for writer in list(self._writers):
                writer.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5):
                    await self._server.wait_closed()
        await asyncio.to_thread(shutil.rmtree, self.directory, True)


class WsHostedBot:
    """One WebSocket-speaking hosted bot, kept running (module docstring).

    Args:
        name: its account.
        directory: its build (``speaks`` ``ws``).
        tokens: the server's table of hosted tokens, where each run's token is put while
            it runs.
        address: the server's host and port.
        slots: the WebSocket programs' slots, one held while it runs (None: unbounded).
        taken: whether a program of the bot's author is connected under its name.
        games_of: the games a bot plays now (`ArenaServer.live_games_of`): its standard
            error is kept with them.
        on_stderr: called with a game's id and the program's standard error in it, once
            the game is over (`settle`): the runner stores it for the bot's owner.
    """

    def __init__(self, name: str, directory: Path, tokens: MutableMapping[str, str],
                 address: tuple[str, int], *, slots: HostedSlots | None = None,
                 taken: Callable[[str], bool] = lambda name: False,
                 wait_seconds: float = 5.0,
                 games_of: Callable[[str], Collection[str]] = lambda name: (),
                 on_stderr: Callable[[str, str], None] | None = None) -> None:
        self.name = name
        self.directory = directory
        self.tokens = tokens
        self.address = address
        self.slots = slots
        self.taken = taken
        self.wait_seconds = wait_seconds
        """How often to look again whether the author's program left."""
        self.runs = 0
        """Programs started so far."""
        self.running = False
        self.last_exit: int | None = None
        """The last run's exit status (128 + a signal: killed)."""
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        """The last lines of its standard error (not in the server's log)."""
        self.games_of = games_of
        self.on_stderr = on_stderr
        self._kept: dict[str, GameStderr] = {}
        """Per game it plays (or played since the last `settle`), its standard error."""
        self._between = GameStderr()
        """What it wrote while it played no game: kept with its next game."""
        self._over: dict[str, float] = {}
        """The games over whose standard error is not handed on yet, with when they ended."""
        self.socket: HostedSocket | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"hosted ws {name}")
        self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        """It ends only when stopped; anything else is the machine's failure (its socket
        could not be made...), logged, and the runner starts it again at its next
        refresh."""
        if not task.cancelled() and task.exception() is not None:
            log.error("hosted bot %s (ws) failed: %r", self.name, task.exception())

    async def _run(self) -> None:
        self.socket = HostedSocket(*self.address)
        follow = asyncio.get_running_loop().create_task(self._follow_games(),
                                                        name=f"hosted ws {self.name} games")
        try:
            await self.socket.start()
            failures = 0
            loop = asyncio.get_running_loop()
            while True:
                while self.taken(self.name):
                    await asyncio.sleep(self.wait_seconds)
                async with (self.slots.hold(1) if self.slots is not None
                            else contextlib.nullcontext()):
                    started = loop.time()
                    await self._run_once(self.socket.path)
                failures = 0 if loop.time() - started >= STEADY_SECONDS else failures + 1
                delay = min(MAX_RESTART_SECONDS, RESTART_SECONDS * 2 ** max(0, failures - 1))
                log.info("hosted bot %s (ws) exited with status %s; started again in %.0f s",
                         self.name, self.last_exit, delay)
                await asyncio.sleep(delay)
        finally:
            follow.cancel()
            await self.socket.close()

    async def _run_once(self, socket: Path) -> None:
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        self.tokens[token] = self.name
        self.runs += 1
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "arena", "bots", "run", str(self.directory),
                "--relay", str(socket), env={**os.environ, "ARENA_TOKEN": token},
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE)
            self.running = True
            assert self.process.stderr is not None
            await self._read_stderr(self.process.stderr)
            self.last_exit = await self.process.wait()
        finally:
            self.running = False
            self.tokens.pop(token, None)
            if self.process is not None:
                await self._stop(self.process)
            self.process = None

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        """Keep the last `STDERR_LINES` lines of the program's standard error, each cut
        at 1 KiB, until it ends."""
        pending = b""
        while data := await stream.read(CHUNK):
            *lines, pending = (pending + data).split(b"\n")
            if len(pending) > 1024:
                lines.append(pending)
                pending = b""
            for line in lines:
                self._line(line[:1024].decode("utf-8", "replace"))
        if pending:
            self._line(pending[:1024].decode("utf-8", "replace"))

    def _line(self, text: str) -> None:
        """A line of its standard error: in memory, and kept with its games (module
        docstring)."""
        self.stderr.append(text)
        playing = self._follow()
        if playing:
            for game_id in playing:
                self._kept[game_id].add(text)
        elif self._kept:  # games just over: its words about their end
            for kept in self._kept.values():
                kept.add(text)
        else:
            self._between.add(text)

    def _follow(self) -> list[str]:
        """Keep the standard error of the games the bot plays now (the first of them
        starting with what it wrote between games), and note when the others ended;
        the games it plays."""
        playing = list(self.games_of(self.name))
        for game_id in playing:
            if game_id not in self._kept:
                self._kept[game_id], self._between = self._between, GameStderr()
        now = asyncio.get_running_loop().time()
        for game_id in self._kept:
            if game_id not in playing:
                self._over.setdefault(game_id, now)
        return playing

    def settle(self, *, everything: bool = False) -> None:
        """Hand the standard error of the games over for `STDERR_GRACE` seconds to
        `on_stderr`; `everything`: of every game (the bot stops)."""
        self._follow()
        now = asyncio.get_running_loop().time()
        for game_id, since in list(self._over.items()):
            if everything or now - since >= STDERR_GRACE:
                del self._over[game_id]
                kept = self._kept.pop(game_id)
                if (kept.lines or kept.dropped) and self.on_stderr is not None:
                    self.on_stderr(game_id, kept.text())
        if everything:
            for game_id in list(self._kept):
                kept = self._kept.pop(game_id)
                if (kept.lines or kept.dropped) and self.on_stderr is not None:
                    self.on_stderr(game_id, kept.text())

    async def _follow_games(self) -> None:
        """Every `FOLLOW_SECONDS`, its games (`_follow`, `settle`)."""
        while True:
            await asyncio.sleep(FOLLOW_SECONDS)
            self.settle()

    @staticmethod
    async def _stop(process: asyncio.subprocess.Process) -> None:
        """``SIGTERM`` to the keeper (it kills the whole sandbox, verified), then
        ``SIGKILL``."""
        for stop in (process.terminate, process.kill):
            if process.returncode is not None:
                return
            with contextlib.suppress(ProcessLookupError):
                stop()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_SECONDS):
                    await process.wait()

    async def close(self) -> None:
        """Stop it for good: its program's whole sandbox killed, its socket removed, the
        standard error of its games over handed on (`settle`)."""
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
        self.settle(everything=True)
