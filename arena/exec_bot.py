"""The local runner: ``exec:COMMAND`` plays any program as a bot, in process-local play.

Wherever a bot is named (`arena play`, `compare`, `tournament`, `arena bot check`), the
spec ``exec:./mybot`` makes an `ExecBot`: it starts the program once (in its own
process group, killed when the bot is closed or its process exits) and talks to it in
the line protocol of the stdio bridge (`arena.lines`, `docs/bots.md`), so a program
that plays on a server through ``arena connect --exec`` plays here unchanged:
``start`` before each game, ``turn`` with the state, the clock and the legal moves,
``over`` after it, ``?legal`` queries answered.

The program must exit when its input ends (as every line program does): that is what
it sees when the process that runs it dies without a chance to kill it.

The time control applies as on a server: each move has `TimeControl.move_ms` (the first
`first_move_ms`), time beyond it comes from the bank; a program that runs out loses on
time (`BotGaveUp`), and a program that dies or closes its output loses too. After
either, the program is killed and the next game starts a new one (which gets ``start``
again for every game in progress). The program's ``#`` lines and standard error are
kept with the game's log as notes (`arena.record.Note`), bounded per game.

An `ExecBot` pickles as its command and settings (no process), so tournaments build
it in their worker processes like any other bot.
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing.util
import os
import select
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena import lines
from arena.bot_logs import LogLimits
from arena.bots import BotFactory, BotGaveUp, Param
from arena.clock import Clock, MoveTimer, TimeControl, WallTimer
from arena.game import Game, Outcome, Rejection, Termination
from arena.legal import (
    DEFAULT_MAX_LEGAL,
    illegal_steps,
    legal_fields,
    not_step_built,
    steps_answer,
)
from arena.lines import MAX_LINE, Comment, LegalQuery, LineProtocol, exit_text

__all__ = ["MAX_NOTES", "MAX_NOTE_BYTES", "ExecBot", "exec_factory"]

LIMITS = LogLimits()
"""The server's bounds on debug lines (``welcome.limits``), kept locally too: at most
`LogLimits.max_logs_per_turn` ``#`` lines a turn, `LogLimits.max_logs_per_game` a game,
each cut at `LogLimits.max_log_bytes` bytes (the server refuses a longer one)."""
MAX_NOTES = LIMITS.max_logs_per_game
"""Debug lines (``#``) kept per game and seat; so many lines of standard error too."""
MAX_NOTE_BYTES = LIMITS.max_log_bytes
"""Longest debug line kept (longer ones are cut)."""
STDERR_TAIL = 5
"""Lines of the program's standard error quoted when it dies (all are in the notes)."""
QUIT_SECONDS = 1.0
"""How long a program told ``quit`` has to end before it is killed."""
WRITE_SECONDS = 10.0
"""How long a program may leave its input unread while a line waits to be written."""


@dataclass
class _Seat:
    """A game the program plays in one seat: its id, clock (the server's `Clock`) and
    debug lines."""

    game_id: str
    clock: Clock
    turn: int = 0
    notes: list[tuple[int | None, str]] = field(default_factory=list)
    dropped: int = 0
    comments: int = 0
    stderr: int = 0
    in_turn: tuple[int, int] = (-1, 0)
    """The turn and the ``#`` lines kept in it."""

    def note(self, text: str) -> None:
        """Keep a ``#`` line, within the server's limits (per turn and per game)."""
        turn, count = self.in_turn
        count = count + 1 if turn == self.turn else 1
        self.in_turn = (self.turn, count)
        if count > LIMITS.max_logs_per_turn or self.comments >= LIMITS.max_logs_per_game:
            self.dropped += 1
            return
        self.comments += 1
        self._keep(text)

    def note_stderr(self, text: str) -> None:
        """Keep a line of standard error (at most `MAX_NOTES` a game)."""
        if self.stderr >= MAX_NOTES:
            self.dropped += 1
            return
        self.stderr += 1
        self._keep("stderr: " + text)

    def _keep(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        if len(data) > MAX_NOTE_BYTES:
            text = data[:MAX_NOTE_BYTES].decode("utf-8", "ignore") + "..."
        self.notes.append((self.turn, text))


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the program's whole process group: it and anything it started, even when
    the program itself has exited already."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(5)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


class ExecBot:
    """A program as a `Bot` (see the module docstring).

    Args:
        command: the command line (split like a shell would, not run by one).
        time_control: the clock of each game.
        max_legal: longest ``legal`` list in ``turn`` lines.
    """

    def __init__(self, command: str, *, time_control: TimeControl | None = None,
                 max_legal: int = DEFAULT_MAX_LEGAL, legal_first: int | None = None) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("exec: the command is empty")
        self.time_control = time_control or TimeControl()
        self.max_legal = max_legal
        self.legal_first = lines.legal_first(legal_first)
        """For programs of before 2026-11-23: ``legal`` holds the first this many moves
        (`arena.lines.legal_first`; ``$ARENA_LEGAL_FIRST``)."""
        self._lines = LineProtocol()
        self._process: subprocess.Popen[bytes] | None = None
        self._selector: selectors.BaseSelector | None = None
        self._buffers: dict[int, bytearray] = {}
        self._seats: dict[int, _Seat] = {}
        self._starts: dict[int, str] = {}
        self._games = 0
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self.processes_started = 0

    def __repr__(self) -> str:
        return f"ExecBot({self.command!r})"

    # -- pickling: the command, never the process -----------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {"command": self.command, "time_control": self.time_control,
                "max_legal": self.max_legal, "legal_first": self.legal_first or 0}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        self.__init__(state["command"], time_control=state["time_control"],  # type: ignore[misc]
                      max_legal=state["max_legal"], legal_first=state.get("legal_first", 0))

    # -- the process ------------------------------------------------------------------

    def _ensure(self) -> subprocess.Popen[bytes]:
        process = self._process
        if process is not None and process.poll() is None:
            return process
        if process is not None:
            self._drop_process()
        process = self._start()
        self.processes_started += 1
        self._process = process
        assert process.stdout is not None and process.stderr is not None
        selector = selectors.DefaultSelector()
        assert process.stdin is not None
        os.set_blocking(process.stdin.fileno(), False)
        for stream in (process.stdout, process.stderr):
            os.set_blocking(stream.fileno(), False)
            selector.register(stream.fileno(), selectors.EVENT_READ)
            self._buffers[stream.fileno()] = bytearray()
        self._selector = selector
        self._stderr_tail.clear()
        # a new program learns its limits and every game in progress
        limits = self._lines.limits(
            max_legal=self.legal_first or self.max_legal, max_log_bytes=LIMITS.max_log_bytes,
            max_logs_per_turn=LIMITS.max_logs_per_turn,
            max_logs_per_game=LIMITS.max_logs_per_game,
            max_log_bytes_per_day=None)  # no server, no daily budget
        self._write(self._lines.hello(), limits, *self._starts.values())
        return process

    def _start(self) -> subprocess.Popen[bytes]:
        """Start the program with pipes for its standard streams, in its own process
        group, killed at the latest when this process exits (`arena.sandbox.hosted`
        starts it in the sandbox instead)."""
        try:
            process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True)
        except OSError as error:
            raise BotGaveUp(f"cannot start {self.command!r}: {error.strerror or error}",
                            Termination.DISCONNECT) from None
        multiprocessing.util.Finalize(self, _kill, args=(process,), exitpriority=10)
        return process

    def _stop(self, process: subprocess.Popen[bytes]) -> None:
        """Kill the program and everything it started."""
        _kill(process)

    def _game_ended(self) -> None:
        """After a game's ``over`` line, before its last standard error is taken (a
        program that plays one game at a time is told ``quit`` here by
        `arena.sandbox.hosted`)."""

    def _exit_text(self, status: int | None) -> str:
        """How the program ended (`arena.lines.exit_text`), from its process's status."""
        return exit_text(status, self._stderr_tail)

    def _timer(self, allowance_ms: float) -> MoveTimer:
        """The timer of a move with `allowance_ms` (its limit and the bank)."""
        return WallTimer(allowance_ms)

    def _drop_process(self) -> None:
        if self._process is not None:
            self.drain_stderr()
            self._stop(self._process)
        if self._selector is not None:
            self._selector.close()
        self._process, self._selector = None, None
        self._buffers.clear()

    def close(self) -> None:
        """Say ``quit``, give the program a moment, then kill its process group."""
        self._quit()
        self._drop_process()

    def _quit(self) -> None:
        """Say ``quit``, close the program's input and give it a moment to end."""
        process = self._process
        if process is not None and process.poll() is None:
            with contextlib.suppress(OSError, BotGaveUp):
                self._write(self._lines.quit())
                assert process.stdin is not None
                process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(QUIT_SECONDS)

    def _write(self, *lines: str) -> None:
        """Write lines to the program, waiting at most `WRITE_SECONDS` for it to read."""
        process = self._process
        assert process is not None and process.stdin is not None
        data = memoryview("".join(line + "\n" for line in lines).encode("utf-8"))
        fd = process.stdin.fileno()
        deadline = time.monotonic() + WRITE_SECONDS
        try:
            while data:
                try:
                    data = data[os.write(fd, data):]
                except BlockingIOError:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([], [fd], [], left)[1]:
                        raise BotGaveUp(f"{self.argv[0]} stopped reading its input",
                                        Termination.TIMEOUT) from None
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
            try:
                status: int | None = process.wait(1)
            except subprocess.TimeoutExpired:
                status = None
            if status is None:
                raise BotGaveUp(f"{self.argv[0]} does not read its input any more",
                                Termination.DISCONNECT) from None
            self.drain_stderr()
            raise BotGaveUp(f"{self.argv[0]} does not read its input any more: it "
                            f"{self._exit_text(status)}", _ended(status)) from None

    def _read_line(self, timer: MoveTimer, seat: _Seat) -> str | None:
        """The next line on the program's output within `timer`'s time (None: too
        late); its standard error meanwhile goes to `seat`'s notes."""
        process = self._process
        assert process is not None and process.stdout is not None and self._selector
        out = process.stdout.fileno()
        while True:
            buffer = self._buffers[out]
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[:end]).rstrip(b"\r")
                del buffer[:end + 1]
                return line.decode("utf-8", "replace")
            if len(buffer) > MAX_LINE:
                raise BotGaveUp(f"{self.argv[0]} wrote a line longer than {MAX_LINE} bytes",
                                Termination.ILLEGAL_MOVE)
            left = timer.wait_seconds()
            if left <= 0:
                return None
            for key, _ in self._selector.select(left):
                fd = key.fd
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if chunk:
                    self._buffers[fd] += chunk
                    if fd != out:
                        self._stderr_lines(seat)
                    continue
                self._selector.unregister(fd)  # end of the stream
                if fd == out:
                    try:
                        status = process.wait(1)
                    except subprocess.TimeoutExpired:
                        status = None
                    self.drain_stderr(seat)
                    raise BotGaveUp(f"{self.argv[0]} closed its output: it "
                                    f"{self._exit_text(status)}", _ended(status))

    def _stderr_lines(self, seat: _Seat | None, flush: bool = False) -> None:
        process = self._process
        if process is None or process.stderr is None:
            return
        buffer = self._buffers.get(process.stderr.fileno())
        if buffer is None:
            return
        while (end := buffer.find(b"\n")) >= 0 or (flush and buffer) or len(buffer) > MAX_LINE:
            cut = end if end >= 0 else len(buffer)
            text = bytes(buffer[:cut]).decode("utf-8", "replace").rstrip("\r")
            del buffer[:cut + 1]
            self._stderr_tail.append(text)
            if seat is not None:
                seat.note_stderr(text)

    def drain_stderr(self, seat: _Seat | None = None) -> None:
        """Take what the program wrote on standard error so far (without waiting)."""
        process = self._process
        if process is None or process.stderr is None or self._selector is None:
            return
        fd = process.stderr.fileno()
        if fd not in self._buffers:
            return
        self._read_available(fd)
        self._stderr_lines(seat or next(iter(self._seats.values()), None), flush=True)

    def _read_available(self, fd: int) -> None:
        """Add what the program wrote on `fd` so far to its buffer (without waiting)."""
        with contextlib.suppress(OSError, ValueError):  # BlockingIOError: nothing more now
            while chunk := os.read(fd, 65536):
                self._buffers[fd] += chunk

    # -- the Bot protocol -------------------------------------------------------------------

    def prepare(self, game: Game[Any, Any]) -> None:
        """A new game starts (`arena.bots.prepare_bot`): forget games left unfinished."""
        for seat in list(self._seats):
            self._end(seat, None)

    def choose_move(self, game: Game[Any, Any], state: Any, rng: Any) -> str:
        seat_index = game.to_act(state)
        seat = self._seats.get(seat_index)
        if seat is None:
            seat = self._begin(game, seat_index)
        number = getattr(game, "move_number", None)
        seat.turn = int(number(state)) if callable(number) else seat.clock.moves
        process = self._ensure()
        del process
        clock = seat.clock
        limit = clock.limit_ms()
        timer = self._timer(limit + clock.bank_ms)
        fields: dict[str, Any] = {
            "game_id": seat.game_id, "game": game.type.name, "turn": seat.turn,
            "move_number": seat.turn, "seat": seat_index, "chance": None,
            "state": game.state_to_json(state),
            "clock": {"limit_ms": limit, "bank_ms": int(clock.bank_ms),
                      "left_ms": int(limit + clock.bank_ms)},
            "retries_left": 0,
            **legal_fields(game, state, self.max_legal),
        }
        if self.legal_first:
            fields = lines.first_legal(
                fields, lambda count: game.legal_moves(state, count).moves, self.legal_first)
        self._write(self._lines.turn(fields))
        while True:
            line = self._read_line(timer, seat)
            if line is None or timer.overdrawn():
                self._drop_process()  # its late answer must not be read as the next move
                raise BotGaveUp(f"no move within {limit} ms and the {int(clock.bank_ms)} ms "
                                f"bank{timer.late()} on turn {seat.turn}", Termination.TIMEOUT)
            item = self._lines.read(line)
            if isinstance(item, Comment):
                seat.note(item.text)
            elif isinstance(item, LegalQuery):
                self._write(self._answer(game, state, seat, item.steps))
            else:
                clock.charge(timer.used_ms())
                return item.text

    def _answer(self, game: Game[Any, Any], state: Any, seat: _Seat, steps: str) -> str:
        answer: dict[str, Any] = {"game_id": seat.game_id, "turn": seat.turn, "prefix": steps}
        try:
            result = steps_answer(game, state, steps)
        except NotImplementedError:
            code, message = not_step_built(game)
        else:
            if not isinstance(result, Rejection):
                answer["legal_steps"] = result
                return self._lines.legal(answer)
            code, message = illegal_steps(result)  # as the server says it
        answer["error"] = {"code": code, "message": message}
        return self._lines.legal(answer)

    def _take_late_lines(self, seat: _Seat) -> None:
        """The ``#`` lines and standard error the program wrote after its last move of
        the game, as far as they have come: this game's notes, not the next one's. A
        line that is no ``#`` line (a move nobody asked for) is noted and dropped, never
        read as the next turn's move."""
        process = self._process
        if process is None or process.stdout is None or self._selector is None:
            return
        out = process.stdout.fileno()
        buffer = self._buffers.get(out)
        if buffer is None:
            return
        self._read_available(out)
        while (end := buffer.find(b"\n")) >= 0:
            line = bytes(buffer[:end]).rstrip(b"\r").decode("utf-8", "replace")
            del buffer[:end + 1]
            item = self._lines.read(line)
            if isinstance(item, Comment):
                seat.note(item.text)
            else:
                seat.note(f"(a line after the game's last move, ignored: {line[:200]!r})")
        self.drain_stderr(seat)

    def game_over(self, game: Game[Any, Any], seat: int, outcome: Outcome
                  ) -> list[tuple[int | None, str]]:
        """Send ``over`` and hand back the game's debug lines (`arena.bots.finish_bot`)."""
        return self._end(seat, outcome)

    def _begin(self, game: Game[Any, Any], seat_index: int) -> _Seat:
        self._games += 1
        seat = _Seat(f"local-{os.getpid()}-{self._games}", Clock(self.time_control))
        self._seats[seat_index] = seat
        players = [f"seat {index}" for index in range(game.num_players())]
        players[seat_index] = self.command
        line = self._lines.start(
            game_id=seat.game_id, game=game.type.name, settings=game.settings(),
            seat=seat_index, players=players, time_control=self.time_control.to_json(),
            chance_name=game.type.chance_name)
        self._starts[seat_index] = line
        if self._process is not None and self._process.poll() is None:
            self._write(line)
        return seat  # a new process gets it from `_starts`

    def _end(self, seat_index: int, outcome: Outcome | None) -> list[tuple[int | None, str]]:
        seat = self._seats.pop(seat_index, None)
        self._starts.pop(seat_index, None)
        if seat is None:
            return []
        self._take_late_lines(seat)
        if self._process is not None and self._process.poll() is None:
            result: dict[str, Any] = outcome.to_json() if outcome is not None else {
                "result": "aborted", "winner": None, "scores": None,
                "termination": "aborted", "detail": "the game was left unfinished"}
            with contextlib.suppress(BotGaveUp):
                self._write(self._lines.over(
                    game_id=seat.game_id, result=result["result"], winner=result["winner"],
                    scores=result["scores"], termination=result["termination"],
                    reason=result.get("detail") or "the game ended", seat=seat_index))
            self._game_ended()
        self.drain_stderr(seat)
        notes = list(seat.notes)
        if seat.dropped:
            dropped = (f"({seat.dropped} more debug lines were dropped; at most "
                       f"{LIMITS.max_logs_per_turn} '#' lines are kept a turn and "
                       f"{MAX_NOTES} a game, as on a server, and {MAX_NOTES} lines of "
                       "standard error)")
            notes.append((seat.turn, dropped))
        return notes


def _ended(status: int | None) -> Termination:
    """How a game ends whose program is gone: a crash if a signal killed it or it exited
    with a non-zero status, else a disconnect (it closed its output, or exited 0)."""
    return Termination.CRASH if status else Termination.DISCONNECT


def _make(game: Game[Any, Any], params: Mapping[str, Any]) -> ExecBot:
    return ExecBot(str(params["command"]))


def exec_factory(game: str) -> BotFactory:
    """The ``exec`` bot of `game` (`arena.registry.Registry.bot_factory`)."""
    return BotFactory(
        "exec", game, "a program playing through the line protocol (exec:COMMAND)", _make,
        (Param("command", "str", "", "the command line to run"),))
