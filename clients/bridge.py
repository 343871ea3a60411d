"""The stdio bridge: a bot in any language, run as a child process, plays through the SDK.

`arena connect --url URL --token T --exec CMD` starts CMD and talks to it in lines
(UTF-8, one message per line; see `docs/server.md`):

* to the bot: ``arena 1`` once; then ``start {json}`` when a game starts, ``turn {json}``
  when it must move (the full state; ``legal`` lists up to `legal_limit` legal moves
  where the game can list them), ``rejected {json}`` when a move was refused, and
  ``over {json}`` when a game ends;
* from the bot: exactly one line, the move string, after each ``turn`` line (after a
  ``rejected`` line with retries left, a new ``turn`` line follows). Lines starting
  with ``#`` are comments (logged, not moves). ``quit`` ends the session.

Turns are handed to the process one at a time, so the child needs no concurrency.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
from collections.abc import Sequence
from typing import Any

from clients.sdk import ArenaBot, BotFailure, GameInfo, GameResult, Rejected, Turn

__all__ = ["LINE_PROTOCOL_VERSION", "BridgeError", "ExecBot"]

log = logging.getLogger("arena.bridge")

LINE_PROTOCOL_VERSION = 1


class BridgeError(BotFailure):
    """The child process died or broke the line protocol."""


class ExecBot(ArenaBot):
    """Runs `command` and relays games to it over stdin/stdout.

    Args:
        command: the command line (a string is split like a shell would).
        legal_limit: at most this many legal moves in each ``turn`` line (0: none).
        move_timeout: seconds to wait for a move line.
    """

    def __init__(self, command: str | Sequence[str], *, legal_limit: int = 50,
                 move_timeout: float = 60.0) -> None:
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        self.legal_limit = legal_limit
        self.move_timeout = move_timeout
        self._process: asyncio.subprocess.Process | None = None
        self._lock: asyncio.Lock | None = None
        self._pending: list[str] = []

    async def _ensure(self) -> asyncio.subprocess.Process:
        if self._process is None:
            self._lock = asyncio.Lock()
            self._process = await asyncio.create_subprocess_exec(
                *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            await self._write(f"arena {LINE_PROTOCOL_VERSION}")
        if self._process.returncode is not None:
            raise BridgeError(f"{self.command[0]} exited with status {self._process.returncode}")
        return self._process

    async def _write(self, line: str) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(line.encode("utf-8") + b"\n")
            await self._process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise BridgeError(f"{self.command[0]} does not read its input any more") from None

    async def _send(self, keyword: str, data: dict[str, Any]) -> None:
        await self._ensure()
        await self._write(f"{keyword} {json.dumps(data, separators=(',', ':'))}")

    async def _read_move(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        while True:
            async with asyncio.timeout(self.move_timeout):
                raw = await self._process.stdout.readline()
            if not raw:
                status = await self._process.wait()
                raise BridgeError(f"{self.command[0]} closed its output (exit status {status})")
            line = raw.decode("utf-8").rstrip("\r\n")
            if line.startswith("#"):
                log.info("%s: %s", self.command[0], line)
                continue
            return line

    # -- ArenaBot ------------------------------------------------------------------------

    def start(self, game: GameInfo) -> None:
        self._pending.append("start " + json.dumps({
            "game_id": game.game_id, "game": game.game, "settings": game.settings,
            "seat": game.seat, "players": list(game.players), "time_control": game.time_control,
            "chance_name": game.chance_name,
        }, separators=(",", ":")))

    async def move(self, turn: Turn) -> str:
        await self._ensure()
        assert self._lock is not None
        async with self._lock:
            await self._flush()
            data: dict[str, Any] = {
                "game_id": turn.game_id, "turn": turn.turn, "move_number": turn.move_number,
                "seat": turn.info.seat, "chance": turn.chance, "state": turn.state,
                "clock": turn.clock, "retries_left": turn.retries_left,
            }
            if self.legal_limit:
                try:
                    data["legal"] = turn.legal_moves(self.legal_limit)
                except (NotImplementedError, KeyError):
                    pass
            await self._send("turn", data)
            return await self._read_move()

    def rejected(self, turn: Turn, rejection: Rejected) -> None:
        self._pending.append("rejected " + json.dumps({
            "game_id": turn.game_id, "turn": rejection.turn, "move": rejection.move,
            "code": rejection.code, "message": rejection.message,
            "retries_left": rejection.retries_left,
        }, separators=(",", ":")))

    def end(self, game: GameInfo | None, result: GameResult) -> None:
        self._pending.append("over " + json.dumps({
            "game_id": result.game_id, "result": result.result, "winner": result.winner,
            "scores": result.scores, "termination": result.termination, "reason": result.reason,
            "seat": result.seat,
        }, separators=(",", ":")))
        if self._lock is not None:
            asyncio.get_running_loop().create_task(self._flush_locked())

    async def _flush_locked(self) -> None:
        assert self._lock is not None
        async with self._lock:
            if self._process is not None and self._process.returncode is None:
                await self._flush()

    async def _flush(self) -> None:
        lines, self._pending = self._pending, []
        for line in lines:
            await self._write(line)

    async def close(self) -> None:
        """Tell the child the session is over (``quit``) and wait for it."""
        process = self._process
        if process is None or process.returncode is not None:
            return
        try:
            await self._flush()
            await self._write("quit")
            assert process.stdin is not None
            process.stdin.close()
            async with asyncio.timeout(5):
                await process.wait()
        except (TimeoutError, BrokenPipeError, ConnectionResetError):
            process.kill()
            await process.wait()
