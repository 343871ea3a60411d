"""A game being played on the server: the match, the clocks and the clock task.

Moves are judged the moment they arrive (in the connection's task, or when a house
bot's thread answers): `LiveGame.submit` asks the referee, answers the mover, tells
the opponent and the spectators, and sends the next ``your_turn`` at once. Forfeits
(a lost connection, a resignation) and aborts (shutdown) arrive the same way. The
clock is a timer handle on the event loop, moved to the mover's deadline at every
turn, which forfeits the mover on time; the game's own task (`run_game`) only waits
for the end. So a game only ever waits for its own players, a silent bot loses on
time, and a move costs no task switch.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.bots import Bot
from arena.game import TERMINAL, Game, Termination
from arena.match import Match
from arena.record import MatchRecord
from arena.server.config import TimeControl

if TYPE_CHECKING:
    from arena.server.session import Session

__all__ = ["Clock", "GameHost", "HousePlayer", "LiveGame", "run_game"]

log = logging.getLogger("arena.server")


@dataclass
class Clock:
    """One seat's clock: the move allowance and the overage bank (milliseconds)."""

    control: TimeControl
    bank_ms: float = 0.0
    moves: int = 0

    def __post_init__(self) -> None:
        self.bank_ms = float(self.control.bank_ms)

    def limit_ms(self) -> int:
        return self.control.first_move_ms if self.moves == 0 else self.control.move_ms

    def charge(self, elapsed_ms: float) -> None:
        self.bank_ms = max(0.0, self.bank_ms - max(0.0, elapsed_ms - self.limit_ms()))
        self.moves += 1


@dataclass
class HousePlayer:
    """A built-in bot playing in process for one seat."""

    spec: str
    bot: Bot
    rng: random.Random


class GameHost:
    """What a `LiveGame` needs from the server (implemented by `ArenaServer`)."""

    def send_to(self, name: str, type: str, /, **fields: Any) -> None:
        raise NotImplementedError

    def send_spectators(self, live: LiveGame, type: str, /, **fields: Any) -> None:
        raise NotImplementedError

    def uses(self, name: str, capability: str) -> bool:
        """Whether the connected client `name` listed `capability` in its hello."""
        return False

    def turn_extras(self, live: LiveGame, seat: int) -> dict[str, Any]:
        """More fields for `seat`'s ``your_turn`` (the legal moves, for clients that
        asked for them)."""
        return {}


@dataclass
class LiveGame:
    """A game in progress (see the module docstring)."""

    id: str
    game: Game[Any, Any]
    match: Match
    control: TimeControl
    host: GameHost
    ladder: bool = False
    pair: str | None = None
    house: dict[int, HousePlayer] = field(default_factory=dict)
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
    _house_task: asyncio.Task[None] | None = None
    _timer: asyncio.TimerHandle | None = None

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
            "ladder": self.ladder,
        }

    def turn_message(self, seat: int, now: float,
                     last_move: dict[str, Any] | None = None) -> dict[str, Any]:
        clock = self.clocks[seat]
        left_ms = max(0, int((self.deadline - now) * 1000))
        message = {
            "game_id": self.id, "turn": self.turn, "move_number": self._move_number(),
            "seat": seat, "chance": self.match.pending_chance,
            "state": self.game.state_to_json(self.match.state),
            "clock": {"limit_ms": clock.limit_ms(), "bank_ms": int(clock.bank_ms),
                      "left_ms": left_ms},
            "clocks": [int(c.bank_ms) for c in self.clocks],
            "retries_left": self.retries_left,
        }
        if last_move is not None:
            message["last_move"] = last_move
        message.update(self.host.turn_extras(self, seat))
        return message

    def state_message(self) -> dict[str, Any]:
        return {
            "game_id": self.id, "game": self.game.type.name, "settings": self.game.settings(),
            "players": list(self.players), "turn": self.turn, "to_act": self.match.to_act(),
            "chance": self.match.pending_chance,
            "state": self.game.state_to_json(self.match.state),
        }

    def _move_number(self) -> int:
        number = getattr(self.game, "move_number", None)
        return int(number(self.match.state)) if callable(number) else self.turn

    # -- flow --------------------------------------------------------------------------

    def begin(self) -> None:
        """Send ``game_start`` to the players and open the first turn."""
        if self.started:
            return
        self.started = True
        for seat, name in enumerate(self.players):
            if seat not in self.house:
                self.host.send_to(name, "game_start", **self.start_message(seat))
        if not self.over:
            self._begin_turn()

    def _begin_turn(self, last_move: dict[str, Any] | None = None) -> None:
        """Open the next turn; `last_move` rides on its your_turn (compact-turns)."""
        seat = self.match.to_act()
        if seat == TERMINAL:
            self._changed()
            return
        clock = self.clocks[seat]
        self.retries_left = self.control.retries
        self.turn_started = self._loop.time()
        self.deadline = self.turn_started + (clock.limit_ms() + clock.bank_ms) / 1000
        # One timer per game, not per move: a timer due before the new deadline stays
        # (it re-arms itself when it fires early); only a later one is replaced.
        timer = self._timer
        if timer is None or timer.when() > self.deadline:
            if timer is not None:
                timer.cancel()
            self._timer = self._loop.call_at(self.deadline, self._on_deadline)
        if seat in self.house:
            self._house_task = self._loop.create_task(_house_move(self, seat))
        else:
            self.host.send_to(self.players[seat], "your_turn",
                              **self.turn_message(seat, self.turn_started, last_move))

    def _changed(self) -> None:
        """After anything that may have ended the game: if it did, settle its end."""
        if self.over:
            self.stop()

    def stop(self) -> None:
        """Stop the clock and the house bot, and wake `run_game` (safe to call twice)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._house_task is not None:
            self._house_task.cancel()
            self._house_task = None
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
        if self.over or not self.started:
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
            self.match.forfeit(seat, termination, detail)
            self._changed()

    def forfeit_player(self, name: str, termination: Termination, detail: str) -> None:
        """Forfeit the game against the player `name` (every seat it holds)."""
        for seat in self.seats_of(name):
            self.forfeit(seat, termination, detail)

    def abort(self, detail: str) -> None:
        if not self.over:
            self.match.abort(detail)
            self._changed()

    def submit(self, mover: int, turn: int, text: str) -> None:
        """Judge a move from seat `mover` for turn `turn`, and answer everybody.

        Never raises: a failure in the rules or the server aborts this game only.
        """
        try:
            self._submit(mover, turn, text)
        except Exception as error:  # one broken game must not take the others down
            log.exception("game %s failed on a move", self.id)
            self.abort(f"server error: {error!r}")

    def _submit(self, mover: int, turn: int, text: str) -> None:
        if self.over:
            return
        self.check_clock()  # a move after the deadline is too late
        if self.over:
            return
        host = self.host
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
            host.send_to(self.players[mover], "move_rejected", game_id=self.id, turn=turn,
                         move=text, code=wrong[0], message=wrong[1], step=None,
                         retries_left=self.retries_left if mover == seat else 0)
            return
        name = self.players[seat]
        now = self._loop.time()
        chance = match.pending_chance
        verdict = match.submit(seat, text)
        rejection = verdict.rejection
        if rejection is not None:
            forfeited = self.retries_left <= 0
            if seat not in self.house:
                host.send_to(name, "move_rejected", game_id=self.id, turn=turn, move=text,
                             code=rejection.code, message=rejection.message, step=rejection.step,
                             retries_left=-1 if forfeited else self.retries_left - 1)
            if forfeited:
                match.forfeit(seat, Termination.ILLEGAL_MOVE, f"{name} played {text!r}: {rejection}")
                self._changed()
            else:
                self.retries_left -= 1
                if seat not in self.house:  # the turn again, with the clock now
                    host.send_to(name, "your_turn", **self.turn_message(seat, self._loop.time()))
            return
        elapsed_ms = (now - self.turn_started) * 1000
        clock = self.clocks[seat]
        clock.charge(elapsed_ms)
        self.turn += 1
        if seat not in self.house:
            host.send_to(name, "move_accepted", game_id=self.id, turn=turn,
                         elapsed_ms=int(elapsed_ms), bank_ms=int(clock.bank_ms))
        moved = {"turn": turn, "seat": seat, "move": text, "chance": chance}
        folded = None
        following = match.to_act()
        for other, player in enumerate(self.players):
            if other == seat or other in self.house:
                continue
            if other == following and host.uses(player, "compact-turns"):
                folded = moved  # told in its your_turn, which follows at once
            else:
                host.send_to(player, "opponent_moved", game_id=self.id, **moved)
        if self.spectators:
            host.send_spectators(self, "moved", game_id=self.id, turn=turn, seat=seat, move=text,
                                 chance=chance, state=self.game.state_to_json(match.state))
        self._begin_turn(folded)


async def run_game(live: LiveGame) -> None:
    """Start `live` and wait for its end; the caller stores the result."""
    live.begin()
    try:
        await asyncio.shield(live.ended)
    finally:
        live.stop()


async def _house_move(live: LiveGame, seat: int) -> None:
    player = live.house[seat]
    state, turn = live.match.state, live.turn
    try:
        move = await asyncio.to_thread(player.bot.choose_move, live.game, state, player.rng)
    except Exception as error:  # noqa: BLE001 - a broken house bot loses its game, nothing else
        live.forfeit(seat, Termination.ILLEGAL_MOVE, f"house bot {player.spec} failed: {error!r}")
        return
    text = move if isinstance(move, str) else live.game.format_move(move)
    live.submit(seat, turn, text)
