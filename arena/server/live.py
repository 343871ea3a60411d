"""A game being played on the server: the match and the clocks; it sends nothing itself.

Moves are judged the moment they arrive (in the connection's task, or when a house
bot's worker answers): `LiveGame.submit` asks the referee and returns what to send
(`Outgoing` messages: the mover's answer, the opponent's news, the spectators' view,
the next ``your_turn``) and, when a house seat is to move next, a `HouseTurn`. The
game never sends anything itself, like the protocol core (`protocol.connection`):
the server delivers what it returns (`arena.server.games`), and the same values can
be checked in a test with no server. Forfeits (a lost connection, a resignation) and
aborts (shutdown) only end the game: ``game_over`` is the server's, once the result
is stored. The clock is a timer handle on the event loop, moved to the mover's
deadline at every turn, which forfeits the mover on time; the game's own task only
waits for the end (`ended`). So a game only ever waits for its own players, a silent
bot loses on time, and a move costs no task switch. (The clock timer is the game's
only tie to the event loop; the house seat's task is the server's, kept here only to
be cancelled when the game ends.)

House bots think in worker processes (`arena.server.house`) on the same clock; only
while a worker builds and prepares a house bot is that seat's clock stopped. A game
whose state grows beyond `max_state_bytes` (its msgpack encoding) is aborted with
that reason, and so is one whose ``your_turn`` could not be sent (a frame above the
client's limit, `Outgoing.vital`): the server keeps one state per game and never
sends more than it announced.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.clock import Clock, TimeControl
from arena.game import TERMINAL, Game, Termination
from arena.match import Match
from arena.record import MatchRecord
from arena.server.house import HouseBotKey
from arena.server.limits import clip
from protocol import Encoding

if TYPE_CHECKING:
    from arena.server.session import Session

__all__ = ["Clock", "Effect", "HousePlayer", "HouseTurn", "LiveGame", "Outgoing"]

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


@dataclass
class LiveGame:
    """A game in progress (see the module docstring)."""

    id: str
    game: Game[Any, Any]
    match: Match
    control: TimeControl
    ladder: bool = False
    pair: str | None = None
    house: dict[int, HousePlayer] = field(default_factory=dict)
    compact_turns: set[str] = field(default_factory=set)
    """The players whose client listed ``compact-turns``: the opponent's move rides on
    their ``your_turn`` (kept current by the server as clients come and go)."""
    max_state_bytes: int = 0
    """Largest state (its msgpack encoding, in bytes) before the game is aborted; 0: any."""
    spectators: set[Session] = field(default_factory=set)
    turn: int = 0
    clocks: list[Clock] = field(default_factory=list)
    retries_left: int = 0
    turn_started: float = 0.0
    deadline: float = 0.0
    started: bool = False
    task: asyncio.Task[MatchRecord] | None = None
    record: MatchRecord | None = None
    log: str | None = None
    """The stored record as JSON Lines, once the game is over and stored."""
    house_task: asyncio.Task[None] | None = None
    """The house seat's move being chosen in a worker (cancelled when the game ends)."""
    _timer: asyncio.TimerHandle | None = None
    _paused_at: float | None = None
    _json_of: Any = None
    _json: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.clocks = [Clock(self.control) for _ in self.match.players]
        self._loop = asyncio.get_running_loop()
        self.ended: asyncio.Future[None] = self._loop.create_future()

    @property
    def players(self) -> tuple[str, ...]:
        return self.match.players

    @property
    def over(self) -> bool:
        return self.match.outcome is not None

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
        the state, and its ``your_turn`` if it is to move."""
        out = []
        for seat in self.seats_of(name):
            out.append(Outgoing(name, "game_start", self.start_message(seat)))
            out.append(Outgoing(name, "game_state", self.state_message()))
            if self.match.to_act() == seat:
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

    # -- flow --------------------------------------------------------------------------

    def begin(self) -> list[Effect]:
        """Start the game: ``game_start`` for the players, and the first turn."""
        out: list[Effect] = []
        if self.started:
            return out
        self.started = True
        for seat, name in enumerate(self.players):
            if seat not in self.house:
                out.append(Outgoing(name, "game_start", self.start_message(seat)))
        if not self.over and self._state_fits():
            self._begin_turn(out)
        return out

    def _begin_turn(self, out: list[Effect], last_move: dict[str, Any] | None = None) -> None:
        """Open the next turn; `last_move` rides on its your_turn (compact-turns)."""
        seat = self.match.to_act()
        if seat == TERMINAL:
            self._changed()
            return
        clock = self.clocks[seat]
        self.retries_left = self.control.retries
        self.turn_started = self._loop.time()
        self.deadline = self.turn_started + (clock.limit_ms() + clock.bank_ms) / 1000
        self._arm_timer()
        if seat in self.house:
            out.append(HouseTurn(seat, self.turn))
        else:
            out.append(Outgoing(self.players[seat], "your_turn",
                                self.turn_message(seat, self.turn_started, last_move),
                                vital=True))

    def _arm_timer(self) -> None:
        """Have the clock timer fire by the current deadline. One timer per game, not per
        move: a timer due before the deadline stays (it re-arms itself when it fires
        early); only a later one is replaced."""
        timer = self._timer
        if timer is None or timer.when() > self.deadline:
            if timer is not None:
                timer.cancel()
            self._timer = self._loop.call_at(self.deadline, self._on_deadline)

    def pause_clock(self) -> None:
        """Stop the mover's clock (while a worker prepares a house bot)."""
        if self._paused_at is None:
            self._paused_at = self._loop.time()

    def resume_clock(self) -> None:
        """Restart the mover's clock: the paused time is not charged."""
        if self._paused_at is None:
            return
        paused = self._loop.time() - self._paused_at
        self._paused_at = None
        self.turn_started += paused
        self.deadline += paused
        if not self.over:
            self._arm_timer()
            self.check_clock()

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

    def _changed(self) -> None:
        """After anything that may have ended the game: if it did, settle its end."""
        if self.over:
            self.stop()

    def stop(self) -> None:
        """Stop the clock and the house bot, and wake the game's task (safe to call twice)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.house_task is not None:
            self.house_task.cancel()
            self.house_task = None
        if not self.ended.done():
            self.ended.set_result(None)

    def _on_deadline(self) -> None:
        if self.over:
            self._timer = None
        elif self._loop.time() < self.deadline:  # a later turn moved the deadline on
            self._timer = self._loop.call_at(self.deadline, self._on_deadline)
        else:
            self._timer = None
            self.check_clock()

    def check_clock(self) -> None:
        """Forfeit the mover if its time is up."""
        if self.over or not self.started or self._paused_at is not None:
            return
        if self._loop.time() >= self.deadline:
            seat = self.match.to_act()
            clock = self.clocks[seat]
            self.match.forfeit(
                seat, Termination.TIMEOUT,
                f"{self.players[seat]} used {clock.limit_ms()} ms and its {int(clock.bank_ms)} ms "
                f"bank on turn {self.turn}")
            self._changed()

    # -- input -------------------------------------------------------------------------

    def forfeit(self, seat: int, termination: Termination, detail: str) -> None:
        if not self.over:
            self.match.forfeit(seat, termination, _cap(detail))
            self._changed()

    def forfeit_player(self, name: str, termination: Termination, detail: str) -> None:
        """Forfeit the game against the player `name` (every seat it holds)."""
        for seat in self.seats_of(name):
            self.forfeit(seat, termination, detail)

    def abort(self, detail: str) -> None:
        if not self.over:
            self.match.abort(_cap(detail))
            self._changed()

    def submit(self, mover: int, turn: int, text: str) -> list[Effect]:
        """Judge a move from seat `mover` for turn `turn`; return what to tell everybody.

        Never raises: a failure in the rules or the server aborts this game only (what
        was decided before the failure is still returned).
        """
        out: list[Effect] = []
        try:
            self._submit(out, mover, turn, text)
        except Exception as error:  # one broken game must not take the others down
            log.exception("game %s failed on a move", self.id)
            self.abort(f"server error: {error!r}")
        return out

    def _submit(self, out: list[Effect], mover: int, turn: int, text: str) -> None:
        if self.over:
            return
        self.check_clock()  # a move after the deadline is too late
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
        now = self._loop.time()
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
                    out.append(Outgoing(name, "your_turn",
                                        self.turn_message(seat, self._loop.time())))
            return
        elapsed_ms = (now - self.turn_started) * 1000
        clock = self.clocks[seat]
        clock.charge(elapsed_ms)
        self.turn += 1
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
        self._begin_turn(out, folded)


def _cap(detail: str) -> str:
    return detail if len(detail) <= MAX_DETAIL else detail[:MAX_DETAIL] + "..."
