"""The live games of a server: started, played, delivered, stored, announced, forgotten.

`Games` owns the table of live games (`live`, and `bot_games` per player). It starts a
game after checking its players and settings, runs it to its end in a task of its
own, stores the result (`Durability`: nothing is announced unless it is stored) and
only then sends ``game_over``. In between, each `LiveGame` decides and `Games`
delivers: what `LiveGame.begin` and `LiveGame.submit` return (`Outgoing` messages, a
`HouseTurn`) is sent to the players' sessions and the spectators here, and a house
seat's move is chosen in a worker (`arena.server.house`) and fed back the same way.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from arena.bots import EXEC_PREFIX, HOSTED_PREFIX
from arena.errors import ArenaError, BotSpecError
from arena.game import Termination
from arena.limits import Tier, check_settings
from arena.match import Match
from arena.record import MatchRecord, to_jsonl
from arena.registry import Registry
from arena.seeds import new_seed, seed_commitment, seed_to_text
from arena.server.aids import LegalMoves, Notes
from arena.server.config import ServerConfig, TimeControl
from arena.server.durability import Durability, StorageUnavailable
from arena.server.house import HouseBots, move_seed
from arena.server.live import Effect, HousePlayer, HouseTurn, LiveGame, Outgoing
from arena.server.names import HOUSE_PREFIX, is_guest, is_house
from arena.server.session import Session
from arena.server.storage import AsyncStorage, StorageFailure
from arena.server.workers import JobFailed
from protocol import Message

__all__ = ["Games", "PlayerUnavailable"]

log = logging.getLogger("arena.server")

PREPARE_ROUNDS = 4
"""Times a house move may find its worker unprepared before the bot forfeits."""


class PlayerUnavailable(ArenaError):
    """A game was requested for a bot that is not connected (or plays another game)."""


class Games:
    """See the module docstring.

    Args:
        config: the server's settings (limits, time control, frame size).
        registry: the games and bots.
        sessions: the connected bots by name (shared with the server, which keeps it).
        storage, durability: where games are stored, and the promise about results.
        house_bots: the workers that play ``house:SPEC`` seats.
        legal_moves, notes: the aids to bots (`arena.server.aids`).
        stopping: set when the server begins to close (no game starts then).
        idle: called with a player's name when its last live game ends.
    """

    def __init__(self, config: ServerConfig, registry: Registry, sessions: dict[str, Session],
                 *, storage: AsyncStorage, durability: Durability, house_bots: HouseBots,
                 legal_moves: LegalMoves, notes: Notes, stopping: asyncio.Event,
                 idle: Callable[[str], None]) -> None:
        self.config = config
        self.registry = registry
        self.sessions = sessions
        self.storage = storage
        self.durability = durability
        self.house_bots = house_bots
        self.legal_moves = legal_moves
        self.notes = notes
        self.live: dict[str, LiveGame] = {}
        self.bot_games: defaultdict[str, set[str]] = defaultdict(set)
        """The ids of the live games each player (bot or ``house:SPEC``) plays in."""
        self.tasks: set[asyncio.Task[Any]] = set()
        self.finished = 0
        self._stopping = stopping
        self._idle = idle
        self._make = Message.make if config.validate_outgoing else Message.unchecked

    # -- starting and ending -----------------------------------------------------------

    def start(
        self,
        game_name: str,
        settings: Mapping[str, Any],
        players: Sequence[str],
        *,
        seed: int | None = None,
        time_control: TimeControl | None = None,
        ladder: bool = False,
        pair: str | None = None,
    ) -> LiveGame:
        """`ArenaServer.start_game` (which documents it)."""
        if self._stopping.is_set():
            raise RuntimeError("the server is not running")
        self.durability.check()
        game = self.registry.load_game(game_name, settings)
        tier: Tier = "guest" if any(is_guest(name) for name in players) else "standard"
        check_settings(game, tier, self.config.guest_settings_limits if tier == "guest"
                       else self.config.settings_limits)
        if len(players) != game.num_players():
            raise ValueError(f"{game_name} needs {game.num_players()} players, got {len(players)}")
        house: dict[int, HousePlayer] = {}
        compact: set[str] = set()
        for seat, name in enumerate(players):
            if is_house(name):
                spec = name[len(HOUSE_PREFIX):]
                if spec.lstrip().startswith((EXEC_PREFIX, HOSTED_PREFIX)):
                    raise BotSpecError(f"{name!r}: a server never runs a program a client names")
                specs = self.registry.parse_bots(game_name, spec)
                if len(specs) != 1:
                    raise BotSpecError(f"{name!r} names {len(specs)} bots, not one")
                house[seat] = HousePlayer(spec, self.house_bots.key(game, str(specs[0])))
                continue
            session = self.sessions.get(name)
            if session is None:
                raise PlayerUnavailable(f"bot {name!r} is not connected")
            if session.games_played and game_name not in session.games_played:
                raise PlayerUnavailable(f"bot {name!r} does not play {game_name}")
            if "compact-turns" in session.capabilities:
                compact.add(name)
        seed = new_seed() if seed is None else seed
        game_id = "g" + uuid.uuid4().hex[:12]
        match: Match = Match(game, players, seed=seed, match_id=game_id,
                             seed_commitment=seed_commitment(game_id, seed))
        live = LiveGame(game_id, game, match, time_control or self.config.time_control,
                        ladder=ladder, pair=pair, house=house, compact_turns=compact,
                        max_state_bytes=self.config.max_state_bytes)
        self.live[game_id] = live
        for name in set(players):
            self.bot_games[name].add(game_id)
        task = asyncio.get_running_loop().create_task(self._play(live), name=f"game {game_id}")
        live.task = task
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return live

    async def _play(self, live: LiveGame) -> MatchRecord:
        storage = self.storage.storage
        match = live.match
        try:
            await self.storage.call(storage.start_game, match.record(), ladder=live.ladder,
                                    pair=live.pair)
        except StorageFailure as failure:
            # not stored, so not started: nobody was told of it yet
            self._forget(live)
            raise StorageUnavailable(str(failure)) from None
        try:
            if live.house:
                await self._prepare_house(live)
            await self._run(live)
        except Exception as error:  # never lose a game to a bug: record it as aborted
            log.exception("game %s failed", live.id)
            if match.outcome is None:
                match.abort(f"server error: {error!r}")
        except asyncio.CancelledError:
            if match.outcome is None:
                match.abort("the server shut down")
        if match.outcome is None:
            match.abort("the server shut down")
        record = match.record()
        log_text = to_jsonl(record)
        try:
            # committed (with the rating update) before anybody hears of the result
            await self.durability.store_result(
                record, rated=live.ladder, log=log_text,
                players=[functools.partial(self.send_to, name) for name in set(live.players)])
        except BaseException:
            # not stored, so not announced; the row stays 'running' and the next start
            # records it as aborted
            log.error("game %s: the result could not be stored; it is not announced", live.id)
            self._forget(live)
            raise
        live.record = record
        live.log = log_text
        self.finished += 1
        self._announce_end(live, record)
        return record

    async def _run(self, live: LiveGame) -> None:
        """Start `live` and wait for its end; the caller stores the result."""
        self.deliver(live, live.begin())
        try:
            await asyncio.shield(live.ended)
        finally:
            live.stop()

    def game_over_fields(self, live: LiveGame, record: MatchRecord) -> dict[str, Any]:
        """The ``game_over`` message of a stored game."""
        outcome = record.outcome
        assert outcome is not None
        return {
            "game_id": live.id, "result": outcome.result, "winner": outcome.winner,
            "scores": list(outcome.scores) if outcome.scores is not None else None,
            "termination": outcome.termination.value,
            "reason": outcome.detail or "the game ended", "log_id": live.id,
            "seed": None if record.seed is None else seed_to_text(record.seed),
        }

    def _announce_end(self, live: LiveGame, record: MatchRecord) -> None:
        fields = self.game_over_fields(live, record)
        for name in set(live.players):
            self.send_to(name, "game_over", **fields)
        self._send_spectators(live, "game_over", fields)
        self._forget(live)

    def _forget(self, live: LiveGame) -> None:
        self.legal_moves.forget(live.id)
        self.notes.forget(live.id)
        for session in live.spectators:
            session.spectating.discard(live.id)
        self.live.pop(live.id, None)
        for name in set(live.players):
            games = self.bot_games.get(name)
            if games is not None:
                games.discard(live.id)
                if not games:
                    del self.bot_games[name]
                    self._idle(name)

    def abort_all(self, detail: str) -> None:
        for live in list(self.live.values()):
            live.abort(detail)

    def of(self, name: str) -> list[LiveGame]:
        """The live games `name` plays in."""
        return [live for game_id in list(self.bot_games.get(name, ()))
                if (live := self.live.get(game_id)) is not None]

    def client_changed(self, name: str, session: Session | None) -> None:
        """The bot `name` connected with `session` (or left: None): its games learn
        whether its client takes compact turns."""
        compact = session is not None and "compact-turns" in session.capabilities
        for live in self.of(name):
            if compact:
                live.compact_turns.add(name)
            else:
                live.compact_turns.discard(name)

    # -- delivery ----------------------------------------------------------------------

    def deliver(self, live: LiveGame, effects: Iterable[Effect]) -> None:
        """Do what a game asked for: send its messages, start its house seat's move."""
        for effect in effects:
            if isinstance(effect, HouseTurn):
                if not live.over:
                    live.house_task = asyncio.get_running_loop().create_task(
                        self._house_move(live, effect))
            elif effect.to is None:
                self._send_spectators(live, effect.type, effect.fields)
            elif not self._send(live, effect) and effect.vital:
                live.abort(f"the state is too large to send to {effect.to} "
                           "(above the frame limit the server announced)")

    def _send(self, live: LiveGame, out: Outgoing) -> bool:
        session = self.sessions.get(out.to or "")
        if session is None:
            return True  # away: it hears everything again when it is back
        fields = out.fields
        if out.type == "your_turn":
            if session.rate is not None:
                session.rate.credit()  # a turn asks for a move: that message is budgeted
            if "legal-moves" in session.capabilities:
                fields = {**fields, **self.legal_moves.turn_fields(live)}
        return session.send(out.type, **fields)

    def send_to(self, name: str, type: str, /, **fields: Any) -> bool:
        """Send a message to the client `name` if it is connected; False if it was too
        long to send (above the frame limit the client was told)."""
        session = self.sessions.get(name)
        return True if session is None else session.send(type, **fields)

    def _send_spectators(self, live: LiveGame, type: str, fields: Mapping[str, Any]) -> None:
        if live.spectators:
            message = self._make(type, **fields)
            for session in list(live.spectators):
                session.send_message(message)

    # -- house seats -------------------------------------------------------------------

    async def _prepare_house(self, live: LiveGame) -> None:
        """Build and prepare the house bots in a worker before the game's clock starts;
        a house bot that cannot prepare forfeits."""
        for seat, player in live.house.items():
            try:
                await self.house_bots.prepare(player.key)
            except JobFailed as failure:
                live.forfeit(seat, Termination.ILLEGAL_MOVE,
                             f"house bot {player.spec} failed to prepare: {failure}")

    async def _house_move(self, live: LiveGame, house_turn: HouseTurn) -> None:
        """Have a worker choose the house seat's move on its clock and submit it; where
        no worker has the bot ready, one prepares it first, the clock stopped meanwhile."""
        seat, turn = house_turn.seat, house_turn.turn
        player = live.house[seat]
        house_bots = self.house_bots
        state = live.state_json()
        seed = move_seed(live.match.seed, live.id, seat, turn)
        loop = asyncio.get_running_loop()
        for _ in range(PREPARE_ROUNDS):
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
                self.deliver(live, live.submit(seat, turn, move))
                return
        live.forfeit(seat, Termination.ILLEGAL_MOVE,
                     f"house bot {player.spec} could not be prepared in a worker")
