"""The stdio bridge: a bot in any language, run as a child process, plays through the SDK.

`arena connect --url URL --token T --exec CMD` starts CMD -- exactly once per bridge,
however many games start at the same moment -- and talks to it in the line protocol of
`arena.lines` (shared with the local runner ``exec:COMMAND``; `docs/bots.md`):

* to the bot: ``arena 1`` once; ``limits {json}`` right after it (the longest line it
  may write, the server's limits on legal lists and debug lines); ``start {json}`` when
  a game starts (and, should the process be new, for every game in progress);
  ``turn {json}`` when it must move (the full state, the game's name, the clock and
  the legal moves: ``legal``, ``legal_count`` and, in step-built games,
  ``legal_steps``, as the server sends them with the ``legal-moves`` capability); ``legal {json}`` answering a ``?legal`` query;
  ``rejected {json}`` when a move was refused (a new ``turn`` follows if retries are
  left); ``over {json}`` when a game ends; ``quit`` at the end;
* from the bot: after each ``turn`` line, any ``# text`` debug lines (sent to the server
  as ``log`` messages, stored with the game) and ``?legal STEPS`` queries, then exactly
  one line: the move string.

Turns are handed to the process one at a time, so the child needs no concurrency.
The child's standard error passes through to the bridge's, and the bridge says on its
standard error what the bot author needs to hear: a rejected move and why (with the
server's other complaints, logged by `clients.sdk`), and how the child ended if it died
(exit status or signal, its last lines on standard error).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from arena import lines
from arena.bot_logs import LogLimits
from arena.legal import DEFAULT_MAX_LEGAL
from arena.lines import MAX_LINE, Comment, LegalQuery, LineProtocol, exit_text
from clients.sdk import ArenaBot, BotFailure, GameInfo, GameResult, Rejected, Turn

__all__ = ["STDERR_TAIL", "BridgeError", "ExecBot"]

log = logging.getLogger("arena.bridge")

STDERR_TAIL = 10
"""Lines of the child's standard error quoted when it dies."""
LAST_SENT_SHOWN = 300
"""Characters of the last line sent to a child that died, quoted with its end."""


class BridgeError(BotFailure):
    """The child process died or broke the line protocol."""


class ExecBot(ArenaBot):
    """Runs `command` and relays games to it over stdin/stdout.

    Args:
        command: the command line (a string is split like a shell would).
        legal_limit: at most this many legal moves in a ``turn`` line; a longer list
            is sent as ``"legal": null`` with its ``legal_count`` (None: as the server
            sends it, up to its ``limits.max_legal``).
        legal_first: the turn lines of before 2026-11-23, for programs written then:
            ``legal`` holds the first this many legal moves, never null (None: from
            ``$ARENA_LEGAL_FIRST``, else today's lines).
        move_timeout: seconds to wait for a move line.
    """

    def __init__(self, command: str | Sequence[str], *, legal_limit: int | None = None,
                 move_timeout: float = 60.0, legal_first: int | None = None) -> None:
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        self.legal_limit = legal_limit
        self.legal_first = lines.legal_first(legal_first)
        """For programs of before 2026-11-23: ``legal`` holds the first this many moves
        (`arena.lines.legal_first`; ``$ARENA_LEGAL_FIRST``)."""
        self.move_timeout = move_timeout
        self.processes_started = 0
        self._lines = LineProtocol()
        self._process: asyncio.subprocess.Process | None = None
        self._spawning = asyncio.Lock()
        """Held while the process starts: two games starting at once start it once."""
        self._turns = asyncio.Lock()
        """Held while the process has a turn: one turn at a time."""
        self._starts: dict[str, str] = {}
        """The ``start`` line of every game in progress (a new process gets them all)."""
        self._pending: list[str] = []
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._stderr_task: asyncio.Task[None] | None = None
        self._last_sent = ""
        """The last line written to the program (quoted if it dies)."""

    # -- the process ----------------------------------------------------------------------

    async def _ensure(self) -> asyncio.subprocess.Process:
        async with self._spawning:
            if self._process is None:
                try:
                    self._process = await asyncio.create_subprocess_exec(
                        *self.command, stdin=asyncio.subprocess.PIPE,
                        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                        limit=MAX_LINE)
                except OSError as error:
                    raise BridgeError(f"cannot start {shlex.join(self.command)}: "
                                      f"{error.strerror or error}") from None
                self.processes_started += 1
                self._stderr_task = asyncio.get_running_loop().create_task(
                    self._pass_stderr(self._process))
                self._pending = [line for line in self._pending
                                 if not line.startswith("start ")]
                await self._write(self._lines.hello(), self._limits_line(),
                                  *self._starts.values())
        if self._process.returncode is not None:
            raise BridgeError(await self._died())
        return self._process

    def _limits_line(self) -> str:
        """The ``limits`` line: the server's (from ``welcome``), the bridge's line length."""
        welcome = self.arena_client.welcome if self.arena_client is not None else None
        server = dict(welcome["limits"]) if welcome is not None else {}
        logs = LogLimits()
        max_legal = server.get("max_legal", DEFAULT_MAX_LEGAL)
        if self.legal_limit is not None:
            max_legal = min(max_legal, self.legal_limit)
        if self.legal_first:
            max_legal = self.legal_first
        return self._lines.limits(
            max_legal=max_legal,
            max_log_bytes=server.get("max_log_bytes", logs.max_log_bytes),
            max_logs_per_turn=server.get("max_logs_per_turn", logs.max_logs_per_turn),
            max_logs_per_game=server.get("max_logs_per_game", logs.max_logs_per_game),
            # a server that announces no daily budget has none
            max_log_bytes_per_day=logs.max_log_bytes_per_day if welcome is None
            else server.get("max_log_bytes_per_day"))

    async def _pass_stderr(self, process: asyncio.subprocess.Process) -> None:
        """Copy the child's standard error to ours as it comes, keeping its last lines."""
        assert process.stderr is not None
        while True:
            try:
                raw = await process.stderr.readline()
            except ValueError:  # a line over the limit: take what is there
                raw = await process.stderr.read(MAX_LINE)
            if not raw:
                return
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            self._stderr_tail.append(text)
            self._stderr_line(text)

    def _stderr_line(self, text: str) -> None:
        """A line of the child's standard error: copied to ours."""
        print(text, file=sys.stderr, flush=True)

    async def _died(self) -> str:
        """What to tell the bot author about a child that is gone (or going)."""
        assert self._process is not None
        try:
            async with asyncio.timeout(5):
                status: int | None = await self._process.wait()
                if self._stderr_task is not None:
                    await self._stderr_task  # its last words, before quoting them
        except TimeoutError:
            status = self._process.returncode
        ended = exit_text(status, self._stderr_tail)
        sent = self._last_sent
        if len(sent) > LAST_SENT_SHOWN:
            sent = sent[:LAST_SENT_SHOWN] + f"... ({len(sent)} characters)"
        last = f"\nthe last line it was sent: {sent}" if sent else ""
        return f"the bot's program ({shlex.join(self.command)}) {ended}{last}"

    async def _write(self, *lines: str) -> None:
        assert self._process is not None and self._process.stdin is not None
        if lines:
            self._last_sent = lines[-1]
        try:
            self._process.stdin.write("".join(line + "\n" for line in lines).encode("utf-8"))
            async with asyncio.timeout(self.move_timeout):
                await self._process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise BridgeError(await self._died()) from None
        except TimeoutError:
            raise BridgeError(f"{self.command[0]} does not read its input any more") from None

    async def _read_line(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        try:
            async with asyncio.timeout(self.move_timeout):
                raw = await self._process.stdout.readline()
        except ValueError:  # asyncio's StreamReader: the line is over the limit
            raise BridgeError(f"{self.command[0]} wrote a line longer than {MAX_LINE} bytes"
                              ) from None
        if not raw:
            raise BridgeError(await self._died())
        return raw.decode("utf-8", "replace").rstrip("\r\n")

    async def _flush(self) -> None:
        lines, self._pending = self._pending, []
        if lines:
            await self._write(*lines)

    # -- ArenaBot ------------------------------------------------------------------------

    def start(self, game: GameInfo) -> None:
        line = self._lines.start(
            game_id=game.game_id, game=game.game, settings=game.settings, seat=game.seat,
            players=list(game.players), time_control=game.time_control,
            chance_name=game.chance_name)
        self._starts[game.game_id] = line
        if self._process is not None:
            self._pending.append(line)

    async def move(self, turn: Turn) -> str:
        await self._ensure()
        async with self._turns:
            await self._flush()
            await self._write(self._lines.turn(self._turn_fields(turn)))
            while True:
                item = self._lines.read(await self._read_line())
                if isinstance(item, Comment):
                    log.info("%s: # %s", self.command[0], item.text)
                    if self.arena_client is not None and item.text:
                        await self.arena_client.log(turn.game_id, item.text)
                elif isinstance(item, LegalQuery):
                    await self._write(await self._answer(turn, item.steps))
                else:
                    return item.text

    def _turn_fields(self, turn: Turn) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "game_id": turn.game_id, "game": turn.info.game, "turn": turn.turn,
            "move_number": turn.move_number, "seat": turn.info.seat, "chance": turn.chance,
            "state": turn.state, "clock": turn.clock, "retries_left": turn.retries_left,
            **turn.legal_fields(),
        }
        legal = fields.get("legal")
        if legal is not None and self.legal_limit is not None and len(legal) > self.legal_limit:
            fields["legal"] = None  # said, never cut silently: the count stays
        if self.legal_first:
            return lines.first_legal(fields, lambda count: turn.legal_moves(count),
                                     self.legal_first)
        return fields

    async def _answer(self, turn: Turn, steps: str) -> str:
        answer: dict[str, Any] = {"game_id": turn.game_id, "turn": turn.turn, "prefix": steps}
        if self.arena_client is None:
            answer["error"] = {"code": "no-server", "message": "not connected to a server"}
            return self._lines.legal(answer)
        try:
            reply = await self.arena_client.legal(turn.game_id, turn.turn, steps)
        except (TimeoutError, ConnectionError) as error:
            answer["error"] = {"code": "no-server", "message": "the server did not answer "
                               f"({error or type(error).__name__})"}
            return self._lines.legal(answer)
        if reply.type == "legal_steps":
            answer["legal_steps"] = reply["legal_steps"]
        else:
            answer["error"] = {"code": reply["code"], "message": reply["message"]}
        return self._lines.legal(answer)

    def rejected(self, turn: Turn, rejection: Rejected) -> None:
        step = "" if rejection.step is None else f" (step {rejection.step}, 0-based)"
        then = ("the game is forfeited" if rejection.retries_left < 0
                else f"retries left: {rejection.retries_left}")
        log.warning("game %s turn %d: the move %r was rejected%s: %s: %s; %s",
                    turn.game_id, rejection.turn, rejection.move, step, rejection.code,
                    rejection.message, then)
        self._pending.append(self._lines.rejected(
            game_id=turn.game_id, turn=rejection.turn, move=rejection.move, code=rejection.code,
            message=rejection.message, step=rejection.step, retries_left=rejection.retries_left))

    def end(self, game: GameInfo | None, result: GameResult) -> None:
        self._starts.pop(result.game_id, None)
        self._pending.append(self._lines.over(
            game_id=result.game_id, result=result.result, winner=result.winner,
            scores=result.scores, termination=result.termination, reason=result.reason,
            seat=result.seat))
        if self._process is not None:
            asyncio.get_running_loop().create_task(self._flush_between_turns())

    async def _flush_between_turns(self) -> None:
        async with self._turns:
            if self._process is not None and self._process.returncode is None:
                try:
                    await self._flush()
                except BridgeError as error:  # the next turn will say so
                    log.warning("%s", error)

    async def close(self) -> None:
        """Tell the child the session is over (``quit``) and wait for it."""
        process = self._process
        if process is None or process.returncode is not None:
            return
        try:
            await self._flush()
            await self._write(self._lines.quit())
            assert process.stdin is not None
            process.stdin.close()
            async with asyncio.timeout(5):
                await process.wait()
        except (TimeoutError, BrokenPipeError, ConnectionResetError, BridgeError):
            process.kill()
            await process.wait()
        if self._stderr_task is not None:  # its last words, then no more
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1):
                    await self._stderr_task
            self._stderr_task.cancel()
