"""Hosted bots on a server: every bot with a current build (`arena.uploads`) plays as a
connected bot under its own account name, its program in the sandbox.

The `HostedRunner` keeps one client per hosted bot, connected to the server's own
WebSocket exactly like a bot's own program would be (`clients.sdk.ArenaClient` driving
a stdio bridge), so a hosted bot plays the ladder, challenges and tournaments through
the same path, clocks and limits as any connected bot. It logs in with a token that
lives only in the server's memory (`Clients.hosted_tokens`, checked by
`arena.server.auth.authenticate`); every `refresh_interval` seconds, and at once after
an upload, it reads the hosted bots back from the database: a revoked account stops
playing, a new build is played from the bot's next sandbox on. A program the bot's
author connects under its name replaces the hosted one (as any newer connection does)
and takes precedence: the hosted one waits until it leaves.

The bridge (`HostedBridge`) runs the program as ``arena bots run DIR``, whose keeper
kills the whole sandbox when it ends or when the bridge goes: a fresh sandbox when the
bot's first game in progress starts, stopped when its last one ends, so no process of
it outlives its games. Its standard error and its ``#`` debug lines are kept per game,
in order, for the bot's owner only (``hosted_stderr``, `STDERR_BYTES` a game; ``GET
/api/bots/NAME/games/ID/stderr``): unlike a connected bot's debug lines, they are not in
the game's public log. A program that dies loses the
games it was playing (resigned at once: nobody waits on its clock), its end told in its
standard error, and the next game starts it again.

The bridge also measures the CPU time its program uses on each turn (`HostedBridge.cpu_ms`,
the sandbox's, as `arena.sandbox.run.keeper_cpu_ns` reads it): a game under a time
control of kind ``cpu`` charges a hosted seat's moves by it (`HostedRunner.cpu_ms`, read
in-process by `arena.server.games` while the turn runs and when the move comes).

A game with hosted seats holds a slot of the server's `HostedSlots` per hosted seat
from its start to its end; a game that finds too few waits in order, before its clock
starts (`arena.server.games`).

A build uploaded with ``speaks=ws`` (`arena.sandbox.manifest.SPEAKS`) is no line
program: the runner keeps it running as a connected bot behind its relay instead
(`arena.server.hosted_ws.WsHostedBot`), replaced when a new build lands like a line
bot's. Its games hold slots like any hosted bot's (its login is a hosted token too).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import sys
import urllib.parse
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from websockets.exceptions import ConnectionClosed

from arena.lines import Comment, LegalQuery
from arena.sandbox.run import keeper_cpu_ns
from arena.sandbox.slots import HostedSlots
from arena.server.hosted_stderr import STDERR_BYTES, GameStderr
from arena.server.hosted_ws import WsHostedBot
from arena.uploads import Uploads
from clients.bridge import BridgeError, ExecBot
from clients.sdk import ArenaClient, GameInfo, GameResult, Rejected, Turn
from protocol import Message

__all__ = ["STDERR_BYTES", "STOP_SECONDS", "HostedBridge", "HostedRunner"]

log = logging.getLogger("arena.server")

STOP_SECONDS = 2.0
"""Seconds a program has to end after ``quit`` before its keeper is told to kill the
sandbox (then as long again before the keeper itself is killed)."""


@dataclass
class _TurnCpu:
    """The CPU time the program used on one turn of a game (a turn it has again after
    a rejected move adds to it)."""

    turn: int
    used_ns: int = 0
    """Of the times it had the turn and gave it back."""
    since_ns: int | None = None
    """The sandbox's CPU time when it took the turn, while it has it (else None)."""


class _NoMove(asyncio.CancelledError):
    """A turn of a game that ended meanwhile: the SDK's move task ends, nothing is sent."""


class HostedBridge(ExecBot):
    """The stdio bridge of one hosted bot: its build run by ``arena bots run`` (module
    docstring). `directory` is read each time a sandbox starts, so a new build is
    played from the bot's next sandbox on.

    Stopping the program never waits for a turn in progress (`_discard` takes no lock):
    a program stuck in the turn of a game that ended (on time) is stopped at once, and
    the turn's reader sees its end.
    """

    def __init__(self, directory: Path, *, move_timeout: float = 3600.0,
                 on_stderr: Callable[[str, str], None] | None = None) -> None:
        self.directory = directory
        self.on_stderr = on_stderr
        """Called with each game's id and the program's standard error in it, when it
        ends (the runner stores it for the bot's owner)."""
        self._stderr: dict[str, GameStderr] = {}
        super().__init__(self._command(), move_timeout=move_timeout)
        self._game: str | None = None
        """The game whose turn the program has (its standard error goes with it)."""
        self._closed = False
        self._stopping: set[asyncio.Task[None]] = set()
        self._cpu: dict[str, _TurnCpu] = {}
        """Per game in progress, the CPU time its latest turn took (`cpu_ms`)."""

    def _sandbox_cpu_ns(self) -> int:
        process = self._process
        return 0 if process is None else keeper_cpu_ns(process.pid)

    def cpu_ms(self, game_id: str, turn: int) -> float:
        """The CPU time (ms) the program used on `turn` of `game_id` so far: while it
        thinks, measured now; once it moved, as it was when its move was read (so the
        figure the server charges is the program's alone). 0 for a turn it has not taken
        up yet (it is playing another game's turn, or starting)."""
        cpu = self._cpu.get(game_id)
        if cpu is None or cpu.turn != turn:
            return 0.0
        used = cpu.used_ns
        if cpu.since_ns is not None:
            used += max(0, self._sandbox_cpu_ns() - cpu.since_ns)
        return used / 1e6

    def thinking(self) -> list[tuple[str, int]]:
        """The CPU-timed turns the program is thinking on now (game id, turn): at most
        one, as it plays one turn at a time."""
        return [(game_id, cpu.turn) for game_id, cpu in self._cpu.items()
                if cpu.since_ns is not None]

    def _command(self) -> list[str]:
        return [sys.executable, "-m", "arena", "bots", "run", str(self.directory)]

    async def _ensure(self) -> asyncio.subprocess.Process:
        if self._closed:
            raise BridgeError("the hosted bot is stopping")
        if self._process is None:
            self.command = self._command()
        process = await super()._ensure()
        if self._closed:  # closed while it started
            await self._discard()
            raise BridgeError("the hosted bot is stopping")
        return process

    async def _died(self) -> str:
        if self._process is None:
            return "the program was stopped"
        return await super()._died()

    def _stderr_line(self, text: str) -> None:
        """The program's standard error, kept with the game it plays (or, between turns,
        with every game in progress) for the bot's owner."""
        self._keep(text)

    def _keep(self, text: str, games: list[str] | None = None) -> None:
        """Keep a line of the program's output (standard error, ``#``) with `games`
        (default: the game whose turn it has, else every game in progress)."""
        for game_id in games or ([self._game] if self._game else list(self._starts)):
            kept = self._stderr.get(game_id)  # none once its game is over
            if kept is not None:
                kept.add(text)

    def start(self, game: GameInfo) -> None:
        super().start(game)
        self._stderr.setdefault(game.game_id, GameStderr())

    async def move(self, turn: Turn) -> str:
        """`ExecBot.move`, in a sandbox that may be stopped between turns; a program
        that dies loses every game it was playing, at once (resigned)."""
        while turn.game_id in self._starts:
            try:
                await self._ensure()
                async with self._turns:
                    if self._process is None:
                        continue  # stopped meanwhile: a fresh one
                    self._game = turn.game_id
                    try:
                        return await self._turn(turn)
                    finally:
                        self._game = None
            except BridgeError as error:
                if self._closed:  # stopped for good: `_ensure` refuses at once, and
                    break  # trying again would spin without ever yielding to the loop
                if turn.game_id in self._starts:
                    await self._lost(error)
        raise _NoMove  # its game is over (or the bot is stopping): nothing to send

    async def _turn(self, turn: Turn) -> str:
        """One turn; in a game timed by CPU time, its CPU time is measured from before
        it is written to the program until its move is read (`cpu_ms`)."""
        if turn.info.time_control.get("kind") != "cpu":
            return await self._play_turn(turn)
        cpu = self._cpu.get(turn.game_id)
        if cpu is None or cpu.turn != turn.turn:
            cpu = self._cpu[turn.game_id] = _TurnCpu(turn.turn)
        cpu.since_ns = since = self._sandbox_cpu_ns()
        try:
            return await self._play_turn(turn)
        finally:
            cpu.used_ns += max(0, self._sandbox_cpu_ns() - since)
            cpu.since_ns = None

    async def _play_turn(self, turn: Turn) -> str:
        await self._flush()
        await self._write(self._lines.turn(self._turn_fields(turn)))
        while True:
            item = self._lines.read(await self._read_line())
            if isinstance(item, Comment):  # kept with its standard error, for its owner
                self._keep(f"# {item.text}", [turn.game_id])
            elif isinstance(item, LegalQuery):
                await self._write(await self._answer(turn, item.steps))
            else:
                return item.text

    async def _lost(self, error: BridgeError) -> None:
        """The program died (or broke the protocol): it resigns every game it was
        playing, its last words kept with them, and its sandbox is stopped."""
        games = list(self._starts)
        self._starts.clear()
        for line in f"the program ended: {error}".splitlines():
            self._keep(line, games)
        await self._discard()
        client = self.arena_client
        if client is not None:
            for game_id in games:
                with contextlib.suppress(ConnectionError, ConnectionClosed, OSError):
                    await client.send(Message.make("resign", game_id=game_id))

    def rejected(self, turn: Turn, rejection: Rejected) -> None:
        """Told to the program (``rejected``), not logged: the server's log is not the
        place for a hosted bot's mistakes (its game's log has them)."""
        self._pending.append(self._lines.rejected(
            game_id=turn.game_id, turn=rejection.turn, move=rejection.move, code=rejection.code,
            message=rejection.message, step=rejection.step, retries_left=rejection.retries_left))

    def end(self, game: GameInfo | None, result: GameResult) -> None:
        self._cpu.pop(result.game_id, None)
        kept = self._stderr.pop(result.game_id, None)
        if kept is not None and (kept.lines or kept.dropped) and self.on_stderr is not None:
            self.on_stderr(result.game_id, kept.text())
        if self._process is None:  # no program to tell (it died, or was stopped)
            self._starts.pop(result.game_id, None)
            return
        stuck = self._game == result.game_id  # it ended during the program's turn
        super().end(game, result)
        if stuck or not self._starts:
            # stuck: the program is told nothing more (the other games, if any, start
            # again in a fresh sandbox); else its last game is over
            task = asyncio.get_running_loop().create_task(self._discard())
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)

    async def _discard(self) -> None:
        """Stop the program's keeper (and so its sandbox): ``quit``, then ``SIGTERM``
        (the keeper kills the sandbox), then ``SIGKILL``."""
        process, self._process = self._process, None
        self._pending = []
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(OSError, RuntimeError):
                assert process.stdin is not None
                process.stdin.write(b"quit\n")
                process.stdin.close()
            for stop in (None, process.terminate, process.kill):
                if stop is not None:
                    with contextlib.suppress(ProcessLookupError):
                        stop()
                try:
                    async with asyncio.timeout(STOP_SECONDS):
                        await process.wait()
                    break
                except TimeoutError:
                    continue
        task, self._stderr_task = self._stderr_task, None
        if task is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                async with asyncio.timeout(1):
                    await task
            task.cancel()
        # its pipes too (asyncio closes a transport only once every pipe reached its end,
        # and nobody reads the output of a program that is gone)
        transport = getattr(process, "_transport", None)
        if transport is not None:
            transport.close()

    async def close(self) -> None:
        """Stop the program for good (the bot is no longer hosted, or the server stops)."""
        self._closed = True
        await self._discard()
        if self._stopping:
            await asyncio.wait(list(self._stopping))


@dataclass
class _Hosted:
    directory: Path
    bridge: HostedBridge
    client: ArenaClient
    task: asyncio.Task[None]


class HostedRunner:
    """The server's hosted bots (module docstring).

    Args:
        uploads: the builds (`Uploads.hosted` names the bots and their current builds).
        url: the server's own WebSocket URL.
        tokens: the server's table of hosted tokens (`Clients.hosted_tokens`), which
            the runner fills.
        refresh_interval: seconds between reads of the hosted bots from the database.
        taken: whether a program of the bot's author is connected under its name (it
            takes precedence: the hosted program waits until it leaves).
        slots: where WebSocket-speaking programs wait their turn to run (the server's
            ``HostedConfig.ws_programs``; None: unbounded).
        games_of: the games a bot plays now (`ArenaServer.live_games_of`).
        owns: which hosted bots this runner runs (default: all; a cluster's gateway runs
            those of the shards it holds, `own`).
    """

    def __init__(self, uploads: Uploads, url: str, tokens: dict[str, str], *,
                 refresh_interval: float = 5.0,
                 taken: Callable[[str], bool] = lambda name: False,
                 slots: HostedSlots | None = None,
                 games_of: Callable[[str], Collection[str]] = lambda name: (),
                 owns: Callable[[str], bool] = lambda name: True) -> None:
        self.uploads = uploads
        self.owns = owns
        """Which hosted bots this runner runs (the others are another's)."""
        self.taken = taken
        """Whether a program of the bot's author is connected under its name: it takes
        precedence, the hosted one waits until it leaves."""
        self.refreshes = 0
        self.url = url
        self.tokens = tokens
        self.refresh_interval = refresh_interval
        self.bots: dict[str, _Hosted] = {}
        self.slots = slots
        self.games_of = games_of
        """The games a bot plays now (a WebSocket-speaking program's standard error is
        kept with them)."""
        self.ws_bots: dict[str, WsHostedBot] = {}
        """The WebSocket-speaking hosted bots (`arena.server.hosted_ws`)."""
        self._lock = asyncio.Lock()
        self._closed = False
        self._saving: set[asyncio.Task[None]] = set()

    async def watch(self) -> None:
        """Refresh every `refresh_interval` seconds, until cancelled."""
        while True:
            try:
                await self.refresh()
            except Exception:  # the database may be down a while: later
                log.exception("the hosted bots could not be refreshed")
            await asyncio.sleep(self.refresh_interval)

    async def refresh(self) -> None:
        """Start the bots that have a current build, stop those that no longer have
        one (or whose account was revoked), point the others at their current build."""
        async with self._lock:
            if self._closed:
                return
            builds = {name: build for name, build in (await self.uploads.hosted_builds()).items()
                      if self.owns(name)}
            wanted = {name: directory for name, (directory, _) in builds.items()}
            speaks = {name: spoken for name, (_, spoken) in builds.items()}
            for name, ws_bot in list(self.ws_bots.items()):
                if (speaks.get(name) != "ws" or wanted[name] != ws_bot.directory
                        or ws_bot.task.done()):  # replaced, no longer hosted, or it failed
                    await self.ws_bots.pop(name).close()
            for name in [name for name in self.bots if speaks.get(name) != "lines"]:
                await self._stop(name)
            for name, directory in wanted.items():
                if speaks[name] != "lines":
                    if speaks[name] == "ws" and name not in self.ws_bots:
                        self.ws_bots[name] = WsHostedBot(
                            name, directory, self.tokens, _address(self.url),
                            slots=self.slots, taken=self.taken,
                            wait_seconds=self.refresh_interval, games_of=self.games_of,
                            on_stderr=functools.partial(self._stderr, name))
                    continue
                hosted = self.bots.get(name)
                if hosted is not None and not hosted.task.done():
                    hosted.directory = hosted.bridge.directory = directory
                    continue
                if hosted is not None:  # it ended (replaced by its author's program...)
                    await self._stop(name)
                if not self.taken(name):
                    self._start(name, directory)
            self.refreshes += 1

    async def own(self, owns: Callable[[str], bool]) -> None:
        """Run the hosted bots `owns` says from now on: those it no longer says are
        stopped before this returns (another runner may start them then), those it now
        says start (at once if the database answers, else on the next refresh)."""
        async with self._lock:
            self.owns = owns
            for name in [name for name in self.bots if not owns(name)]:
                await self._stop(name)
            for name in [name for name in self.ws_bots if not owns(name)]:
                await self.ws_bots.pop(name).close()
        try:
            await self.refresh()
        except Exception:  # the database may be down a while: the next refresh
            log.exception("the hosted bots could not be refreshed")

    def _start(self, name: str, directory: Path) -> None:
        token = "hosted." + secrets.token_urlsafe(32)
        self.tokens[token] = name
        bridge = HostedBridge(directory, on_stderr=functools.partial(self._stderr, name))
        client = ArenaClient(self.url, token, bridge, name=name, max_reconnect_delay=5.0)
        task = asyncio.get_running_loop().create_task(self._play(name, client),
                                                      name=f"hosted {name}")
        self.bots[name] = _Hosted(directory, bridge, client, task)

    def _stderr(self, name: str, game_id: str, text: str) -> None:
        """Store a hosted program's standard error in one game (for its owner)."""
        task = asyncio.get_running_loop().create_task(
            self.uploads.storage.save_stderr(game_id, name, text))
        self._saving.add(task)
        task.add_done_callback(self._saved)

    def _saved(self, task: asyncio.Task[None]) -> None:
        self._saving.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a hosted program's standard error was not stored: %s",
                        task.exception())

    async def _play(self, name: str, client: ArenaClient) -> None:
        try:
            await client.run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - started again on the next refresh
            log.warning("hosted bot %s stopped: %s", name, error)

    async def _stop(self, name: str) -> None:
        hosted = self.bots.pop(name)
        for token in [token for token, owner in self.tokens.items() if owner == name]:
            del self.tokens[token]
        await hosted.client.stop()
        hosted.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await hosted.task
        await hosted.bridge.close()

    async def close(self) -> None:
        """Stop every hosted bot and its sandbox (safe to call twice)."""
        async with self._lock:
            self._closed = True
            for name in list(self.bots):
                await self._stop(name)
            for name in list(self.ws_bots):
                await self.ws_bots.pop(name).close()
            if self._saving:
                await asyncio.wait(list(self._saving))

    def cpu_ms(self, name: str, game_id: str, turn: int) -> float:
        """The CPU time (ms) the hosted bot `name` used on `turn` of `game_id` so far
        (`HostedBridge.cpu_ms`; 0 if it is not hosted here)."""
        hosted = self.bots.get(name)
        return 0.0 if hosted is None else hosted.bridge.cpu_ms(game_id, turn)

    def thinking(self) -> list[tuple[str, str, int, float]]:
        """The hosted bots thinking on a CPU-timed turn now: (name, game id, turn, the
        CPU time in ms it used on it so far)."""
        return [(name, game_id, turn, hosted.bridge.cpu_ms(game_id, turn))
                for name, hosted in list(self.bots.items())
                for game_id, turn in hosted.bridge.thinking()]

    def directories(self) -> Mapping[str, Path]:
        """The hosted bots and the builds they play."""
        return {**{name: hosted.directory for name, hosted in self.bots.items()},
                **{name: ws_bot.directory for name, ws_bot in self.ws_bots.items()}}


def _address(url: str) -> tuple[str, int]:
    """The host and port of the server's own ``ws://HOST:PORT/``."""
    parsed = urllib.parse.urlsplit(url)
    assert parsed.hostname is not None and parsed.port is not None, url
    return parsed.hostname, parsed.port
