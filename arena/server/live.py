"""A game being played on the server: the match, the clocks, the inbox and the runner.

Everything that can end or advance a game arrives in the game's inbox (a move from a
connection, a house bot's move, a forfeit after a lost connection, an abort at
shutdown); the runner task waits on it with the mover's deadline as timeout. So a
game only ever waits for its own players, and a silent bot loses on time.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.bots import Bot
from arena.game import TERMINAL, Game, Termination
from arena.match import Match
from arena.record import MatchRecord
from arena.server.config import TimeControl

if TYPE_CHECKING:
    from arena.server.session import Session

__all__ = ["Clock", "HousePlayer", "LiveGame"]


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


@dataclass
class LiveGame:
    """A game in progress and the task that runs it."""

    id: str
    game: Game[Any, Any]
    match: Match[Any]
    control: TimeControl
    ladder: bool = False
    pair: str | None = None
    house: dict[int, HousePlayer] = field(default_factory=dict)
    on_finish: Callable[[LiveGame], Any] | None = None
    inbox: asyncio.Queue[tuple[Any, ...]] = field(default_factory=asyncio.Queue)
    spectators: set[Session] = field(default_factory=set)
    turn: int = 0
    clocks: list[Clock] = field(default_factory=list)
    retries_left: int = 0
    turn_started: float = 0.0
    deadline: float = 0.0
    task: asyncio.Task[MatchRecord] | None = None
    record: MatchRecord | None = None

    def __post_init__(self) -> None:
        self.clocks = [Clock(self.control) for _ in self.match.players]

    @property
    def players(self) -> tuple[str, ...]:
        return self.match.players

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

    def turn_message(self, seat: int, now: float) -> dict[str, Any]:
        clock = self.clocks[seat]
        left_ms = max(0, int((self.deadline - now) * 1000))
        return {
            "game_id": self.id, "turn": self.turn, "move_number": self._move_number(),
            "seat": seat, "chance": self.match.pending_chance,
            "state": self.game.state_to_json(self.match.state),
            "clock": {"limit_ms": clock.limit_ms(), "bank_ms": int(clock.bank_ms),
                      "left_ms": left_ms},
            "clocks": [int(c.bank_ms) for c in self.clocks],
            "retries_left": self.retries_left,
        }

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

    # -- input -------------------------------------------------------------------------

    def submit(self, seat: int, turn: int, move: str) -> None:
        self.inbox.put_nowait(("move", seat, turn, move))

    def forfeit(self, seat: int, termination: Termination, detail: str) -> None:
        self.inbox.put_nowait(("forfeit", seat, termination, detail))

    def abort(self, detail: str) -> None:
        self.inbox.put_nowait(("abort", detail))


class GameHost:
    """What a `LiveGame` runner needs from the server (implemented by `ArenaServer`)."""

    def send_to(self, name: str, type: str, /, **fields: Any) -> None:
        raise NotImplementedError

    def send_spectators(self, live: LiveGame, type: str, /, **fields: Any) -> None:
        raise NotImplementedError


async def run_game(live: LiveGame, host: GameHost) -> None:
    """Play `live` to the end; the caller stores and announces the result."""
    match = live.match
    loop = asyncio.get_running_loop()
    for seat, name in enumerate(live.players):
        if seat not in live.house:
            host.send_to(name, "game_start", **live.start_message(seat))
    house_task: asyncio.Task[None] | None = None
    try:
        while (seat := match.to_act()) != TERMINAL:
            clock = live.clocks[seat]
            live.retries_left = live.control.retries
            live.turn_started = loop.time()
            live.deadline = live.turn_started + (clock.limit_ms() + clock.bank_ms) / 1000
            if seat in live.house:
                house_task = loop.create_task(_house_move(live, seat))
            else:
                host.send_to(live.players[seat], "your_turn", **live.turn_message(seat, live.turn_started))
            if not await _await_move(live, host, seat, loop):
                break
            if house_task is not None:
                house_task.cancel()
                house_task = None
    finally:
        if house_task is not None:
            house_task.cancel()


async def _await_move(live: LiveGame, host: GameHost, seat: int, loop: asyncio.AbstractEventLoop) -> bool:
    """Wait for the mover's legal move; False when the game ended meanwhile."""
    match = live.match
    name = live.players[seat]
    while True:
        remaining = live.deadline - loop.time()
        item: tuple[Any, ...]
        if live.inbox.empty():
            if remaining <= 0:
                item = ("timeout",)
            else:
                try:
                    async with asyncio.timeout(remaining):
                        item = await live.inbox.get()
                except TimeoutError:
                    item = ("timeout",)
        else:
            item = live.inbox.get_nowait()
        kind = item[0]
        if kind == "timeout":
            clock = live.clocks[seat]
            match.forfeit(seat, Termination.TIMEOUT,
                          f"{name} used {clock.limit_ms()} ms and its {int(clock.bank_ms)} ms bank "
                          f"on turn {live.turn}")
            return False
        if kind == "abort":
            match.abort(item[1])
            return False
        if kind == "forfeit":
            _, loser, termination, detail = item
            match.forfeit(loser, termination, detail)
            return False
        _, mover, turn, text = item
        if mover != seat:
            host.send_to(live.players[mover], "move_rejected", game_id=live.id, turn=turn, move=text,
                         code="not-your-turn", message=f"seat {seat} is to move",
                         step=None, retries_left=live.retries_left)
            continue
        if turn != live.turn:
            host.send_to(name, "move_rejected", game_id=live.id, turn=turn, move=text,
                         code="stale-turn", message=f"this is turn {live.turn}, not {turn}",
                         step=None, retries_left=live.retries_left)
            continue
        now = loop.time()
        chance = match.pending_chance
        verdict = match.submit(seat, text)
        rejection = verdict.rejection
        if rejection is not None:
            forfeited = live.retries_left <= 0
            if seat not in live.house:
                host.send_to(name, "move_rejected", game_id=live.id, turn=turn, move=text,
                             code=rejection.code, message=rejection.message, step=rejection.step,
                             retries_left=-1 if forfeited else live.retries_left - 1)
            if forfeited:
                match.forfeit(seat, Termination.ILLEGAL_MOVE, f"{name} played {text!r}: {rejection}")
                return False
            live.retries_left -= 1
            continue
        elapsed_ms = (now - live.turn_started) * 1000
        clock = live.clocks[seat]
        clock.charge(elapsed_ms)
        live.turn += 1
        if seat not in live.house:
            host.send_to(name, "move_accepted", game_id=live.id, turn=turn,
                         elapsed_ms=int(elapsed_ms), bank_ms=int(clock.bank_ms))
        for other, player in enumerate(live.players):
            if other != seat and other not in live.house:
                host.send_to(player, "opponent_moved", game_id=live.id, turn=turn, seat=seat,
                             move=text, chance=chance)
        if live.spectators:
            host.send_spectators(live, "moved", game_id=live.id, turn=turn, seat=seat, move=text,
                                 chance=chance, state=live.game.state_to_json(match.state))
        return True


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
