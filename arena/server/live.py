"""A game being played on the server: the match, the clocks and the clock task.

Moves are judged the moment they arrive (in the connection's task, or when a house
bot's worker answers): `LiveGame.submit` asks the referee, answers the mover, tells
the opponent and the spectators, and sends the next ``your_turn`` at once. Forfeits
(a lost connection, a resignation) and aborts (shutdown) arrive the same way. The
clock is a timer handle on the event loop, moved to the mover's deadline at every
turn, which forfeits the mover on time; the game's own task (`run_game`) only waits
for the end. So a game only ever waits for its own players, a silent bot loses on
time, and a move costs no task switch.

House bots think in worker processes (`arena.server.house`) on the same clock; only
while a worker builds and prepares a house bot is that seat's clock stopped. A game
whose state grows beyond `max_state_bytes` (its msgpack encoding) is aborted with
that reason, and so is one whose ``your_turn`` could not be sent (a frame above the
client's limit): the server keeps one state per game and never sends more than it
announced.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.game import TERMINAL, Game, Termination
from arena.match import Match
from arena.record import MatchRecord
from arena.server.config import TimeControl
from arena.server.house import HouseBotKey, HouseBots, move_seed
from arena.server.limits import clip
from arena.server.workers import JobFailed
from protocol import Encoding

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


MAX_MOVE_QUOTE = 200
"""Characters of an illegal move quoted in a stored reason (and echoed back)."""
MAX_DETAIL = 1000
"""Characters of any other text (a rejection, an error) quoted in a stored reason."""

_PREPARE_ROUNDS = 4
"""Times a house move may find its worker unprepared before the bot forfeits."""


@dataclass(frozen=True)
class HousePlayer:
    """A built-in bot the server plays for one seat, in its worker processes."""

    spec: str
    key: HouseBotKey


class GameHost:
    """What a `LiveGame` needs from the server (implemented by `ArenaServer`)."""

    def send_to(self, name: str, type: str, /, **fields: Any) -> bool:
        """Send a message to the client `name` if it is connected; False if the message
        was too long to send (above the frame limit the client was told)."""
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
    house_bots: HouseBots | None = None
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
    _house_task: asyncio.Task[None] | None = None
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
        message.update(self.host.turn_extras(self, seat))
        return message

    def state_message(self) -> dict[str, Any]:
        return {
            "game_id": self.id, "game": self.game.type.name, "settings": self.game.settings(),
            "players": list(self.players), "turn": self.turn, "to_act": self.match.to_act(),
            "chance": self.match.pending_chance,
            "state": self.state_json(),
        }

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

    def begin(self) -> None:
        """Send ``game_start`` to the players and open the first turn."""
        if self.started:
            return
        self.started = True
        for seat, name in enumerate(self.players):
            if seat not in self.house:
                self.host.send_to(name, "game_start", **self.start_message(seat))
        if not self.over and self._state_fits():
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
        self._arm_timer()
        if seat in self.house:
            self._house_task = self._loop.create_task(_house_move(self, seat))
        elif not self.host.send_to(self.players[seat], "your_turn",
                                   **self.turn_message(seat, self.turn_started, last_move)):
            self.abort(f"the state is too large to send to {self.players[seat]} "
                       "(above the frame limit the server announced)")

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
                host.send_to(name, "move_rejected", game_id=self.id, turn=turn,
                             move=text[:MAX_MOVE_QUOTE], code=rejection.code,
                             message=rejection.message[:MAX_DETAIL], step=rejection.step,
                             retries_left=-1 if forfeited else self.retries_left - 1)
            if forfeited:
                # the reason is stored: the move (as long as a frame, and the rejection
                # may quote it again) is quoted cut short, the whole capped (`forfeit`)
                self.forfeit(seat, Termination.ILLEGAL_MOVE,
                             f"{name} played {clip(text, MAX_MOVE_QUOTE)}: "
                             f"{_cap(str(rejection))}")
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
        if not self._state_fits():
            return
        if self.spectators:
            host.send_spectators(self, "moved", game_id=self.id, turn=turn, seat=seat, move=text,
                                 chance=chance, state=self.state_json())
        self._begin_turn(folded)


async def run_game(live: LiveGame) -> None:
    """Start `live` and wait for its end; the caller stores the result."""
    live.begin()
    try:
        await asyncio.shield(live.ended)
    finally:
        live.stop()


def _cap(detail: str) -> str:
    return detail if len(detail) <= MAX_DETAIL else detail[:MAX_DETAIL] + "..."


async def _house_move(live: LiveGame, seat: int) -> None:
    """Have a worker choose the house seat's move on its clock and submit it; where no
    worker has the bot ready, one prepares it first, the clock stopped meanwhile."""
    player = live.house[seat]
    house_bots = live.house_bots
    assert house_bots is not None, "a game with house players needs the server's workers"
    turn = live.turn
    state = live.state_json()
    seed = move_seed(live.match.seed, live.id, seat, turn)
    loop = asyncio.get_running_loop()
    for _ in range(_PREPARE_ROUNDS):
        worker = house_bots.worker_for(player.key)
        if worker is None:
            live.pause_clock()
            try:
                worker = await house_bots.prepare(player.key)
            except JobFailed as failure:
                live.forfeit(seat, Termination.ILLEGAL_MOVE,
                             f"house bot {player.spec} failed to prepare: {failure}")
                return
            finally:
                live.resume_clock()
        try:
            move = await house_bots.choose(player.key, state, seed, worker=worker,
                                           timeout=max(0.001, live.deadline - loop.time()))
        except JobFailed as failure:
            if failure.kind == "timeout":
                live.check_clock()  # on time, like anybody (the worker was killed)
                live.forfeit(seat, Termination.TIMEOUT,
                             f"{player.spec} overran its time on turn {turn}")
            else:
                live.forfeit(seat, Termination.ILLEGAL_MOVE,
                             f"house bot {player.spec} failed: {failure}")
            return
        if move is not None:
            live.submit(seat, turn, move)
            return
    live.forfeit(seat, Termination.ILLEGAL_MOVE,
                 f"house bot {player.spec} could not be prepared in a worker")
