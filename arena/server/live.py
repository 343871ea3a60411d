"""A game being played on the server: the match and the clocks, without I/O.

`LiveGame` is a state machine over what happens to a game (it begins, a move comes, a
player forfeits, a house seat's clock stops and starts, the mover's deadline passes)
and the time it happens at: every input that involves the clock is given ``now`` (the
server passes its event loop's ``loop.time()``, a test any number it likes). It
answers with what to send: `Outgoing` messages (the mover's answer, the opponent's
news, the spectators' view, the next ``your_turn``) and, when a house seat is to move,
a `HouseTurn`. Like websockets' sans-I/O protocols and the protocol core
(`protocol.connection`), it reads no clock, owns no timer or task and sends nothing:
after each input its driver (`arena.server.games`) delivers what it returned and reads
`over` (the game ended: store it, then announce it; ``game_over`` is the server's, once
the result is stored) and `wake_at`, the time at which it must call `wake` to forfeit
the mover on time (or None: nothing to wake for). So a game only waits for its own
players, a silent bot loses on time, a move costs no task switch, and every clock rule
is tested with given times, without waiting (`tests/server/test_live.py`).

Under a time control of kind ``cpu`` the moves of the players in `cpu_players` (hosted
programs) are timed by the CPU time they use (`arena.clock.CpuTimer`'s rules): the
driver gives the game the mover's CPU time on the turn with each input (`wake`,
`submit`), and `wake_at` asks it to look every `arena.clock.CPU_POLL_SECONDS` while
such a turn runs; the turn's deadline is its wall-time ceiling
(`arena.clock.cpu_wall_ceiling_ms`). Every other seat keeps wall time.

House bots think in worker processes (`arena.server.house`) on the same clock; only
while a worker builds and prepares a house bot is that seat's clock stopped
(`pause_clock`, `resume_clock`). A game whose state grows beyond `max_state_bytes` (its
msgpack encoding) is aborted with that reason, and so is one whose ``your_turn`` could
not be sent (a frame above the client's limit, `Outgoing.vital`): the server keeps one
state per game and never sends more than it announced.

A game is rebuilt from its stored start and the moves played so far by `restore`,
replayed through `arena.replay` (the one replay path), with each seat's clock as
stored (`ClockState`, what `clock_state` gives between two moves): what a server needs
to resume its running games after a restart.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.clock import CPU_POLL_SECONDS, Clock, TimeControl, cpu_wall_ceiling_ms
from arena.game import TERMINAL, Game, Termination
from arena.match import Match
from arena.record import MatchRecord
from arena.server.house import HouseBotKey
from arena.server.limits import clip
from protocol import Encoding

if TYPE_CHECKING:
    from arena.server.session import Session

__all__ = ["Clock", "ClockState", "Effect", "HousePlayer", "HouseTurn", "LiveGame", "Outgoing"]

log = logging.getLogger("arena.server")


MAX_MOVE_QUOTE = 200
"""Characters of an illegal move quoted in a stored reason (and echoed back)."""
MAX_DETAIL = 1000
"""Characters of any other text (a rejection, an error) quoted in a stored reason."""


@dataclass(frozen=True)
class HousePlayer:
    """A built-in bot the server plays for one seat, in its worker processes."""

    spec: str
    key: HouseBotKey


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message a game wants sent; the server sends it (`arena.server.games`)."""

    to: str | None
    """The player's name, or None: every spectator of the game."""
    type: str
    fields: Mapping[str, Any]
    vital: bool = False
    """The game cannot go on without it (a turn's ``your_turn``): if it is too long to
    send (above the frame limit the client was told), the game is aborted."""


@dataclass(frozen=True, slots=True)
class HouseTurn:
    """A house seat is to move in `turn`: the server has a worker choose its move."""

    seat: int
    turn: int


Effect = Outgoing | HouseTurn
"""What `LiveGame.begin` and `LiveGame.submit` ask of the server, in order."""


@dataclass(frozen=True)
class ClockState:
    """A game's clocks between two moves, as a server stores them to resume the game.

    The rest of the clocks follows from the moves (a seat's first move has its own
    allowance); the time spent on the turn in progress is not kept: a resumed turn
    starts again with the mover's full allowance.
    """

    banks_ms: tuple[float, ...]
    """Each seat's overage bank."""
    retries_left: int
    """The illegal moves the seat to move may still correct in this turn."""


@dataclass
class LiveGame:
    """A game in progress (see the module docstring)."""

    id: str
    game: Game[Any, Any]
    match: Match
    control: TimeControl
    ladder: bool = False
    pair: str | None = None
    ladder_name: str | None = None
    """The ladder that paired the game, if any (`ladder`: whether it is rated)."""
    house: dict[int, HousePlayer] = field(default_factory=dict)
    compact_turns: set[str] = field(default_factory=set)
    """The players whose client listed ``compact-turns``: the opponent's move rides on
    their ``your_turn`` (kept current by the server as clients come and go)."""
    cpu_players: set[str] = field(default_factory=set)
    """The players whose moves a time control of kind ``cpu`` times by CPU time: hosted
    programs, whose CPU time the server measures (kept current by the server as clients
    come and go; a turn keeps the timing it began with)."""
    max_state_bytes: int = 0
    """Largest state (its msgpack encoding, in bytes) before the game is aborted; 0: any."""
    spectators: set[Session] = field(default_factory=set)
    turn: int = 0
    clocks: list[Clock] = field(default_factory=list)
    retries_left: int = 0
    turn_started: float = 0.0
    """When the turn in progress began, on the driver's clock (its paused time left out)."""
    deadline: float = 0.0
    """When the mover's allowance and bank run out, on the driver's clock (a CPU-timed
    turn: its wall-time ceiling)."""
    cpu_turn: bool = False
    """The turn in progress is timed by the mover's CPU time (`cpu_players`)."""
    cpu_used_ms: float = 0.0
    """The CPU time the mover used on a CPU-timed turn, as last given by the driver."""
    started: bool = False
    record: MatchRecord | None = None
    """The stored record, once the game is over and stored (set by the server)."""
    log: str | None = None
    """The stored record as JSON Lines, once the game is over and stored."""
    _paused_at: float | None = None
    _cpu_look_at: float = 0.0
    _json_of: Any = None
    _json: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.clocks = [Clock(self.control) for _ in self.match.players]
        self.retries_left = self.control.retries

    @classmethod
    def restore(cls, record: MatchRecord, game: Game[Any, Any], control: TimeControl,
                clocks: ClockState, *, ladder: bool = False, pair: str | None = None,
                house: dict[int, HousePlayer] | None = None,
                compact_turns: set[str] | None = None, max_state_bytes: int = 0) -> LiveGame:
        """A game rebuilt from its stored start and moves, not yet begun.

        `record` is the game as stored (its id, players, seed and commitment, and the
        turns played; no result), replayed through `arena.replay.Replay` by
        `Match.resume`; `clocks` are the clocks as stored after its last turn.
        `begin` then opens the turn to play, at the time it is given, with a fresh
        ``your_turn`` (`ClockState` says why the mover's allowance starts again); the
        other arguments are `LiveGame`'s own.

        Raises:
            arena.replay.DefectiveRecord: a turn of `record` is not what the referee
                and the dice say, or the game has a result.
            ValueError: `clocks` do not fit the game (a bank per seat, no more retries
                than the time control allows).
        """
        banks = clocks.banks_ms
        if len(banks) != len(record.players) or any(bank < 0 for bank in banks):
            raise ValueError(f"game {record.id}: the stored clocks have banks {list(banks)} "
                             f"where its {len(record.players)} seats need one each, none negative")
        if not 0 <= clocks.retries_left <= control.retries:
            raise ValueError(f"game {record.id}: the stored clocks have {clocks.retries_left} "
                             f"retries left, its time control {control.retries}")
        match = Match.resume(game, record)
        live = cls(record.id, game, match, control, ladder=ladder, pair=pair,
                   house=house or {}, compact_turns=compact_turns or set(),
                   max_state_bytes=max_state_bytes)
        for seat, clock in enumerate(live.clocks):
            clock.bank_ms = float(banks[seat])
            clock.moves = sum(1 for turn in record.turns if turn.player == seat)
        live.turn = len(record.turns)
        live.retries_left = clocks.retries_left
        return live

    def clock_state(self) -> ClockState:
        """The clocks as a server stores them with each move (see `restore`)."""
        return ClockState(tuple(clock.bank_ms for clock in self.clocks), self.retries_left)

    @property
    def players(self) -> tuple[str, ...]:
        return self.match.players

    @property
    def over(self) -> bool:
        return self.match.outcome is not None

    @property
    def wake_at(self) -> float | None:
        """When the driver must `wake` the game (the mover's deadline), on the clock it
        gives the game; None while there is nothing to wake for: the game is over, has
        not begun, or its mover's clock is stopped."""
        if self.match.outcome is not None or not self.started or self._paused_at is not None:
            return None
        if self.cpu_turn:  # the mover's CPU time is looked at while it thinks
            return min(self.deadline, self._cpu_look_at)
        return self.deadline

    def seats_of(self, name: str) -> list[int]:
        return [seat for seat, player in enumerate(self.players) if player == name]

    # -- messages ----------------------------------------------------------------------

    def start_message(self, seat: int) -> dict[str, Any]:
        others = [p for s, p in enumerate(self.players) if s != seat]
        return {
            "game_id": self.id, "game": self.game.type.name, "settings": self.game.settings(),
            "seat": seat, "players": list(self.players), "opponent": ", ".join(others),
            "time_control": self.control.to_json(), "chance_name": self.game.type.chance_name,
            "ladder": self.ladder, "seed_commitment": self.match.seed_commitment or "",
        }

    def turn_message(self, seat: int, now: float,
                     last_move: dict[str, Any] | None = None) -> dict[str, Any]:
        clock = self.clocks[seat]
        if self.cpu_turn and seat == self.match.to_act():  # CPU time left (`clock` counts it)
            left_ms = max(0, int(clock.limit_ms() + clock.bank_ms - self.cpu_used_ms))
        else:
            left_ms = max(0, int((self.deadline - now) * 1000))
        message = {
            "game_id": self.id, "turn": self.turn, "move_number": self._move_number(),
            "seat": seat, "chance": self.match.pending_chance,
            "state": self.state_json(),
            "clock": {"limit_ms": clock.limit_ms(), "bank_ms": int(clock.bank_ms),
                      "left_ms": left_ms},
            "clocks": [int(c.bank_ms) for c in self.clocks],
            "retries_left": self.retries_left,
        }
        if last_move is not None:
            message["last_move"] = last_move
        return message

    def state_message(self) -> dict[str, Any]:
        return {
            "game_id": self.id, "game": self.game.type.name, "settings": self.game.settings(),
            "players": list(self.players), "turn": self.turn, "to_act": self.match.to_act(),
            "chance": self.match.pending_chance,
            "state": self.state_json(),
        }

    def resume_messages(self, name: str, now: float) -> list[Outgoing]:
        """Everything a player coming back needs: per seat it holds, its ``game_start``,
        the state, and its ``your_turn`` if it is to move (once the game has begun: a
        resumed game begins when its players are back)."""
        out = []
        for seat in self.seats_of(name):
            out.append(Outgoing(name, "game_start", self.start_message(seat)))
            out.append(Outgoing(name, "game_state", self.state_message()))
            if self.started and self.match.to_act() == seat:
                out.append(Outgoing(name, "your_turn", self.turn_message(seat, now)))
        return out

    def state_json(self) -> dict[str, Any]:
        """The current state as JSON (made once per state, for every message)."""
        state = self.match.state
        if self._json_of is not state:
            self._json = self.game.state_to_json(state)
            self._json_of = state
        return self._json

    def _move_number(self) -> int:
        number = getattr(self.game, "move_number", None)
        return int(number(self.match.state)) if callable(number) else self.turn

    # -- the clock ---------------------------------------------------------------------

    def begin(self, now: float, *, announce: bool = True) -> list[Effect]:
        """Start the game at `now`: ``game_start`` for the players (unless not
        `announce`: a resumed game's players had it when they came back), and the first
        turn (for a `restore`d game, the turn it stopped at)."""
        out: list[Effect] = []
        if self.started:
            return out
        self.started = True
        for seat, name in enumerate(self.players):
            if announce and seat not in self.house:
                out.append(Outgoing(name, "game_start", self.start_message(seat)))
        if not self.over and self._state_fits():
            self._begin_turn(out, now)
        return out

    def _begin_turn(self, out: list[Effect], now: float,
                    last_move: dict[str, Any] | None = None) -> None:
        """Open the next turn at `now`; `last_move` rides on its your_turn (compact-turns)."""
        seat = self.match.to_act()
        if seat == TERMINAL:
            return
        clock = self.clocks[seat]
        self.turn_started = now
        allowance_ms = clock.limit_ms() + clock.bank_ms
        self.cpu_turn = (self.control.kind == "cpu" and seat not in self.house
                         and self.players[seat] in self.cpu_players)
        self.cpu_used_ms = 0.0
        if self.cpu_turn:
            self.deadline = now + cpu_wall_ceiling_ms(allowance_ms) / 1000
            self._cpu_look_at = now + CPU_POLL_SECONDS
        else:
            self.deadline = now + allowance_ms / 1000
        if seat in self.house:
            out.append(HouseTurn(seat, self.turn))
        else:
            out.append(Outgoing(self.players[seat], "your_turn",
                                self.turn_message(seat, now, last_move), vital=True))

    def wake(self, now: float, cpu_ms: float | None = None) -> None:
        """The driver's timer (`wake_at`): forfeit the mover if its time is up at `now`;
        a timer that fires early (the deadline moved on) does nothing. On a CPU-timed
        turn `cpu_ms` is the CPU time the mover used on it so far (None: not measured
        this time)."""
        if self.match.outcome is not None or not self.started or self._paused_at is not None:
            return
        if self.cpu_turn:
            self._cpu_wake(now, cpu_ms)
            return
        if now >= self.deadline:
            seat = self.match.to_act()
            clock = self.clocks[seat]
            self.match.forfeit(
                seat, Termination.TIMEOUT,
                f"{self.players[seat]} used {clock.limit_ms()} ms and its {int(clock.bank_ms)} ms "
                f"bank on turn {self.turn}")

    def _cpu_wake(self, now: float, cpu_ms: float | None) -> None:
        """`wake` on a CPU-timed turn: its CPU allowance and bank, then its wall-time
        ceiling."""
        if cpu_ms is not None:
            self.cpu_used_ms = max(self.cpu_used_ms, cpu_ms)
        seat = self.match.to_act()
        clock = self.clocks[seat]
        name = self.players[seat]
        allowance_ms = clock.limit_ms() + clock.bank_ms
        if self.cpu_used_ms > allowance_ms:
            self.match.forfeit(
                seat, Termination.TIMEOUT,
                f"{name} used {clock.limit_ms()} ms and its {int(clock.bank_ms)} ms bank of "
                f"CPU time on turn {self.turn}")
        elif now >= self.deadline:
            self.match.forfeit(
                seat, Termination.TIMEOUT,
                f"{name} took {cpu_wall_ceiling_ms(allowance_ms) / 1000:.1f} s of wall time on "
                f"turn {self.turn}, the ceiling of a CPU-timed move (it used "
                f"{self.cpu_used_ms:.0f} ms of its {allowance_ms:.0f} ms of CPU time)")
        else:
            self._cpu_look_at = now + CPU_POLL_SECONDS

    def pause_clock(self, now: float) -> None:
        """Stop the mover's clock at `now` (while a worker prepares a house bot)."""
        if self._paused_at is None:
            self._paused_at = now

    def resume_clock(self, now: float) -> None:
        """Restart the mover's clock at `now`: the paused time is not charged."""
        if self._paused_at is None:
            return
        paused = now - self._paused_at
        self._paused_at = None
        self.turn_started += paused
        self.deadline += paused
        self._cpu_look_at += paused
        self.wake(now)

    # -- input -------------------------------------------------------------------------

    def forfeit(self, seat: int, termination: Termination, detail: str) -> None:
        if not self.over:
            self.match.forfeit(seat, termination, _cap(detail))

    def forfeit_player(self, name: str, termination: Termination, detail: str) -> None:
        """Forfeit the game against the player `name` (every seat it holds)."""
        for seat in self.seats_of(name):
            self.forfeit(seat, termination, detail)

    def abort(self, detail: str) -> None:
        if not self.over:
            self.match.abort(_cap(detail))

    def submit(self, mover: int, turn: int, text: str, now: float,
               cpu_ms: float | None = None) -> list[Effect]:
        """Judge a move from seat `mover` for turn `turn`, come at `now`; return what to
        tell everybody. On a CPU-timed turn `cpu_ms` is the CPU time the mover used on
        it (what its move is charged).

        Never raises: a failure in the rules or the server aborts this game only (what
        was decided before the failure is still returned).
        """
        out: list[Effect] = []
        try:
            self._submit(out, mover, turn, text, now, cpu_ms)
        except Exception as error:  # one broken game must not take the others down
            log.exception("game %s failed on a move", self.id)
            self.abort(f"server error: {error!r}")
        return out

    def _state_fits(self) -> bool:
        """Whether the state is within `max_state_bytes`; if not, abort the game."""
        limit = self.max_state_bytes
        if limit <= 0:
            return True
        size = len(Encoding.MSGPACK.encode(self.state_json()))
        if size <= limit:
            return True
        self.abort(f"the game's state grew to {size} bytes after {self.match.turn_count} "
                   f"turns, above the server's limit of {limit} bytes")
        return False

    def _submit(self, out: list[Effect], mover: int, turn: int, text: str, now: float,
                cpu_ms: float | None) -> None:
        if self.over:
            return
        self.wake(now, cpu_ms)  # a move after the deadline is too late
        if self.over:
            return
        match = self.match
        seat = match.to_act()
        # A move for another turn, or out of turn, costs nothing (docs/protocol.md).
        wrong = None
        if turn < self.turn:
            wrong = "stale-turn", f"turn {turn} is over; this is turn {self.turn}"
        elif turn > self.turn:
            wrong = "future-turn", f"turn {turn} has not begun; this is turn {self.turn}"
        elif mover != seat or not self.started:
            wrong = "not-your-turn", f"seat {seat} is to move in turn {self.turn}"
        if wrong is not None:
            out.append(Outgoing(self.players[mover], "move_rejected", {
                "game_id": self.id, "turn": turn, "move": text, "code": wrong[0],
                "message": wrong[1], "step": None,
                "retries_left": self.retries_left if mover == seat else 0}))
            return
        name = self.players[seat]
        chance = match.pending_chance
        verdict = match.submit(seat, text)
        rejection = verdict.rejection
        if rejection is not None:
            forfeited = self.retries_left <= 0
            if seat not in self.house:
                out.append(Outgoing(name, "move_rejected", {
                    "game_id": self.id, "turn": turn, "move": text[:MAX_MOVE_QUOTE],
                    "code": rejection.code, "message": rejection.message[:MAX_DETAIL],
                    "step": rejection.step,
                    "retries_left": -1 if forfeited else self.retries_left - 1}))
            if forfeited:
                # the reason is stored: the move (as long as a frame, and the rejection
                # may quote it again) is quoted cut short, the whole capped (`forfeit`)
                self.forfeit(seat, Termination.ILLEGAL_MOVE,
                             f"{name} played {clip(text, MAX_MOVE_QUOTE)}: "
                             f"{_cap(str(rejection))}")
            else:
                self.retries_left -= 1
                if seat not in self.house:  # the turn again, with the clock now
                    out.append(Outgoing(name, "your_turn", self.turn_message(seat, now)))
            return
        elapsed_ms = self.cpu_used_ms if self.cpu_turn else (now - self.turn_started) * 1000
        clock = self.clocks[seat]
        clock.charge(elapsed_ms)
        self.turn += 1
        self.retries_left = self.control.retries
        if seat not in self.house:
            out.append(Outgoing(name, "move_accepted", {
                "game_id": self.id, "turn": turn, "elapsed_ms": int(elapsed_ms),
                "bank_ms": int(clock.bank_ms)}))
        moved = {"turn": turn, "seat": seat, "move": text, "chance": chance}
        folded = None
        following = match.to_act()
        for other, player in enumerate(self.players):
            if other == seat or other in self.house:
                continue
            if other == following and player in self.compact_turns:
                folded = moved  # told in its your_turn, which follows at once
            else:
                out.append(Outgoing(player, "opponent_moved", {"game_id": self.id, **moved}))
        if not self._state_fits():
            return
        if self.spectators:
            out.append(Outgoing(None, "moved", {
                "game_id": self.id, "turn": turn, "seat": seat, "move": text,
                "chance": chance, "state": self.state_json()}))
        self._begin_turn(out, now, folded)


def _cap(detail: str) -> str:
    return detail if len(detail) <= MAX_DETAIL else detail[:MAX_DETAIL] + "..."
