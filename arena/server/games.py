"""The live games of a server: started, played, delivered, stored, announced, forgotten.

`Games` owns the table of live games (`live`, and `bot_games` per player) and is the
driver of each `LiveGame`, which does no I/O: `Games` gives it every input with the
event loop's time, delivers what it returns (`Outgoing` messages to the players'
sessions and the spectators; a `HouseTurn`: a worker chooses the house seat's move,
`arena.server.house`, fed back the same way), then reads what the game asks of it:
its end (`LiveGame.over`) or the time to wake it (`LiveGame.wake_at`), one timer per
game moved only when the deadline comes sooner. It starts a game after checking its
players and settings, runs it to its end in a task of its own, stores the result
(`Durability`: nothing is announced unless it is stored) and only then sends
``game_over``. A bot that disconnects has each game's grace period to come back
(`arena.server.grace`, given the time too; one timer here) before it forfeits.

Every accepted move is stored before anybody hears of it (`arena.server.writeahead`:
what a move asks to send waits for its commit), so a restarted server resumes each
running game from its stored moves (`restore_running`, through `LiveGame.restore`, the
one replay path, with the clocks as stored): the game waits for its players to come
back (each has the game's grace period, from the restart), then begins again with a
fresh ``your_turn``. A closing server suspends its games instead of ending them
(`suspend_all`); a game whose record cannot be replayed is aborted with the reason.

Under a time control of kind ``cpu`` the hosted bots' seats are timed by the CPU time
of their sandboxes (`LiveGame.cpu_players`: the players connected through the server's
own `arena.server.hosted.HostedRunner`, which measures it): `Games` reads the mover's
CPU time on the turn from `cpu_meter` (in-process: the runner is a client in this very
process) each time it wakes the game and when its move comes, and gives it to the game.
Other players keep wall time.

On a database shared by several servers (docs/cluster.md), each game is leased to its
host (`arena.storage.leases.LeaseKeeper`): a game is stored already leased, a dead
host's games are resumed here through the same `restore_running`, and a game another
host took over stops here announcing nothing (`lose`; its result is stored only while
the lease is held).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import uuid
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.bots import EXEC_PREFIX, HOSTED_PREFIX
from arena.errors import ArenaError, BotSpecError
from arena.game import Game, Outcome, Termination
from arena.limits import Tier, check_settings
from arena.match import Match
from arena.names import HOUSE_PREFIX, is_guest, is_house
from arena.record import MatchRecord, to_jsonl, turn_line
from arena.registry import Registry
from arena.sandbox.slots import Slots
from arena.seeds import new_seed, seed_commitment, seed_to_text
from arena.server.aids import LegalMoves, Notes
from arena.server.config import ServerConfig, TimeControl
from arena.server.durability import Durability, StorageUnavailable
from arena.server.grace import GraceTimers
from arena.server.house import HouseBots, move_seed
from arena.server.live import ClockState, Effect, HousePlayer, HouseTurn, LiveGame, Outgoing
from arena.server.session import Outbox, Session
from arena.server.writeahead import WriteAhead
from arena.service import PlayerUnavailable
from arena.storage import RunningGame, Storage, StorageFailure, StoredTurn
from arena.storage.leases import LeaseKeeper
from arena.workers import JobFailed
from protocol import Message

__all__ = ["Games", "PlayerUnavailable"]

log = logging.getLogger("arena.server")

CpuMeter = Callable[[str, str, int], float]
"""The CPU time (ms) a hosted player (its name) used on a turn (its number) of a game
(its id) so far (`arena.server.hosted.HostedRunner.cpu_ms`)."""

MAX_VIEWS = 256
"""Games `Games.stored_live` keeps rebuilt."""

UNHEARD_GAMES = 16
"""The ``game_over`` messages kept for a bot that was away when its games ended."""

UNHEARD_BOTS = 10_000
"""The bots for which they are kept, at most (the oldest forgotten first)."""

PREPARE_ROUNDS = 4
"""Times a house move may find its worker unprepared before the bot forfeits."""


@dataclass(eq=False, slots=True)
class _Run:
    """The driver's side of one live game: its task, its timer, its house seat's move."""

    live: LiveGame
    ended: asyncio.Future[None]
    """Done when the game is over (its task then stores the result)."""
    task: asyncio.Task[MatchRecord] | None = None
    timer: asyncio.TimerHandle | None = None
    """Wakes the game by its `LiveGame.wake_at`: one per game, not one per move (a timer
    due before the deadline stays, and is moved on when it fires early)."""
    house_task: asyncio.Task[None] | None = None
    """The house seat's move being chosen in a worker (cancelled when the game ends)."""
    queued: bool = False
    """Waiting for hosted slots (`HostedSlots`) before it begins: ending it then
    cancels its task."""
    header: MatchRecord | None = None
    """The game's record without turns: how its turns are written (`arena.record.turn_line`)."""
    resumed: bool = False
    """Rebuilt from storage after a restart (`Games.restore_running`)."""
    waiting: set[str] = field(default_factory=set)
    """The players a resumed game waits for before it begins again."""
    back: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once nobody is waited for (or the game ended): a resumed game then knows which
    of its players are hosted, and takes their slots before it begins."""
    ready: bool = False
    """Its house bots are prepared: the game begins once nobody is waited for."""
    clock_held: bool = False
    """The clock is stopped while the move that began this turn is stored."""
    lost: bool = False
    """Another host took the game over (`Games.lose`): it stops here, announcing nothing."""
    stored: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the game's start is stored (a resumed game's was): `Games.started`."""


class Games:
    """See the module docstring. Made in the server's event loop, whose clock it gives
    the games.

    Args:
        config: the server's settings (limits, time control, frame size).
        registry: the games and bots.
        sessions: the connected bots by name (shared with the server, which keeps it).
        storage, durability: where games are stored, and the promise about results.
        house_bots: the workers that play ``house:SPEC`` seats.
        legal_moves, notes: the aids to bots (`arena.server.aids`).
        stopping: set when the server begins to close (no game starts then).
        write_ahead: store each move before anybody is told of it (False: the figures'
            baseline only, `arena.server.writeahead`).
        leases: this host's leases (docs/cluster.md): each game started is leased, a
            result is stored only while the lease is held. None: no leases (tests).
        outbox: the sessions' frames, written as soon as a commit's moves are told
            (None: on the loop's next turn, as any frame).
    """

    def __init__(self, config: ServerConfig, registry: Registry, sessions: dict[str, Session],
                 *, storage: Storage, durability: Durability, house_bots: HouseBots,
                 legal_moves: LegalMoves, notes: Notes, stopping: asyncio.Event,
                 write_ahead: bool = True, hosted_slots: Slots | None = None,
                 leases: LeaseKeeper | None = None, outbox: Outbox | None = None) -> None:
        self.config = config
        self.hosted_slots = hosted_slots
        """Where games with hosted bots wait their turn (None: the server hosts none)."""
        self.registry = registry
        self.sessions = sessions
        self._unheard: dict[str, deque[dict[str, Any]]] = {}
        """Per bot away when games of its ended, their ``game_over`` (`take_unheard`)."""
        self.storage = storage
        self.durability = durability
        self.house_bots = house_bots
        self.legal_moves = legal_moves
        self.notes = notes
        self.leases = leases
        self.cpu_meter: CpuMeter | None = None
        """Where the hosted players' CPU time is read (set once the server hosts bots;
        None: no player is timed by CPU time)."""
        self.live: dict[str, LiveGame] = {}
        self.bot_games: defaultdict[str, set[str]] = defaultdict(set)
        """The ids of the live games each player (bot or ``house:SPEC``) plays in."""
        self.tasks: set[asyncio.Task[Any]] = set()
        self.finished = 0
        self.moves_ended = 0
        """The accepted moves of the games that ended (with each live game's `turn`: all
        the moves this server accepted; `/metrics`)."""
        self.grace = GraceTimers()
        """The grace periods of the bots away from their games."""
        self.follow_ends = False
        """Whether each game's end is kept in the database for its players until they
        hear it (`Storage.pending_ends`: a cluster's host, whose gateways tell it; one
        process keeps a bot's unheard ends here, `take_unheard`)."""
        self.on_live: Callable[[str, bool], None] | None = None
        """Told a game's id when it becomes live here (True) and when it is forgotten
        (False): a host listens to its bots' messages about it meanwhile
        (`arena.cluster.host`)."""
        self._views: OrderedDict[str, tuple[int, LiveGame]] = OrderedDict()
        """`stored_live`'s games, each with its number of stored moves."""
        self._runs: dict[str, _Run] = {}
        """The driver's side of each game, from `start` until its task is done."""
        self._grace_timer: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()
        self._stopping = stopping
        self._make = Message.make if config.validate_outgoing else Message.unchecked
        self._suspending = False
        self.writeahead: WriteAhead[_Run] = WriteAhead(
            storage, self._released, recovers=durability.recovers, enabled=write_ahead,
            concurrency=storage.write_concurrency, told=None if outbox is None else outbox.flush)

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
        ladder_name: str | None = None,
    ) -> LiveGame:
        """`ArenaServer.start_game` (which documents it); `task_of` the game is its task."""
        if self._stopping.is_set():
            raise RuntimeError("the server is not running")
        if self.config.role == "gateway":
            raise PlayerUnavailable(
                "this is a gateway of the arena: it plays no game itself (operators' "
                "requests, challenges and the web's games go to the hosts: "
                "ArenaServer.launch_game)")
        self.durability.check()
        game = self.registry.load_game(game_name, settings)
        tier: Tier = "guest" if any(is_guest(name) for name in players) else "standard"
        check_settings(game, tier, self.config.guest_settings_limits if tier == "guest"
                       else self.config.settings_limits)
        if len(players) != game.num_players():
            raise ValueError(f"{game_name} needs {game.num_players()} players, got {len(players)}")
        house = self._house_players(game_name, game, players)
        compact: set[str] = set()
        cpu: set[str] = set()
        for seat, name in enumerate(players):
            if seat in house:
                continue
            session = self.sessions.get(name)
            if session is None:
                raise PlayerUnavailable(f"bot {name!r} is not connected")
            if session.games_played and game_name not in session.games_played:
                raise PlayerUnavailable(f"bot {name!r} does not play {game_name}")
            if "compact-turns" in session.capabilities:
                compact.add(name)
            if self._cpu_timed(session):
                cpu.add(name)
        seed = new_seed() if seed is None else seed
        game_id = "g" + uuid.uuid4().hex[:12]
        match: Match = Match(game, players, seed=seed, match_id=game_id,
                             seed_commitment=seed_commitment(game_id, seed))
        live = LiveGame(game_id, game, match, time_control or self.config.time_control,
                        ladder=ladder, pair=pair, ladder_name=ladder_name, house=house,
                        compact_turns=compact, cpu_players=cpu,
                        max_state_bytes=self.config.max_state_bytes)
        return self._launch(_Run(live, self._loop.create_future(), header=match.record()))

    def _launch(self, run: _Run) -> LiveGame:
        """Make `run`'s game live and play it in a task of its own."""
        live = run.live
        self.live[live.id] = live
        for name in set(live.players):
            self.bot_games[name].add(live.id)
        self._runs[live.id] = run
        if self.on_live is not None:  # before anybody can hear of the game
            self.on_live(live.id, True)
        task = run.task = self._loop.create_task(self._play(run), name=f"game {live.id}")
        self.tasks.add(task)
        task.add_done_callback(functools.partial(self._done, run))
        return live

    def _house_players(self, game_name: str, game: Game[Any, Any],
                       players: Sequence[str]) -> dict[int, HousePlayer]:
        """The seats the server plays (``house:SPEC``), each with its bot."""
        house: dict[int, HousePlayer] = {}
        for seat, name in enumerate(players):
            if is_house(name):
                spec = name[len(HOUSE_PREFIX):]
                if spec.lstrip().startswith((EXEC_PREFIX, HOSTED_PREFIX)):
                    raise BotSpecError(f"{name!r}: a server never runs a program a client names")
                specs = self.registry.parse_bots(game_name, spec)
                if len(specs) != 1:
                    raise BotSpecError(f"{name!r} names {len(specs)} bots, not one")
                house[seat] = HousePlayer(spec, self.house_bots.key(game, str(specs[0])))
        return house

    # -- after a restart ---------------------------------------------------------------

    async def restore_running(self, running: Sequence[RunningGame]) -> tuple[list[str], list[str]]:
        """Resume the games a stopped server (or a dead host) left running, from their
        stored moves; abort (and store as aborted, with the reason) those that cannot be replayed.
        Returns the ids resumed and the ids aborted. Games already live are left alone
        (a retry after a storage failure).

        Raises:
            StorageFailure: a game that cannot be replayed could not be stored as aborted.
        """
        resumed: list[str] = []
        aborted: list[str] = []
        away: defaultdict[str, set[int]] = defaultdict(set)
        try:
            for stored in running:
                if stored.id in self.live:
                    continue
                try:
                    run = self._restore(stored)
                except (ArenaError, ValueError, KeyError) as error:  # DefectiveRecord too
                    await self._abort_stored(stored, "the game could not be resumed after a "
                                                     f"restart: {error}")
                    aborted.append(stored.id)
                    if self.leases is not None:
                        self.leases.forget(stored.id)
                    continue
                for name in run.waiting:
                    away[name].add(run.live.control.grace_ms)
                self._launch(run)
                resumed.append(stored.id)
                for name in list(run.waiting):  # a game taken over from a dead host: its
                    if name in self.sessions:   # players may be connected here already
                        self.resume(run.live, name)
        finally:  # (a storage failure above: the games resumed so far wait all the same)
            now = self._loop.time()
            for name, graces in away.items():
                if name not in self.sessions:
                    self.grace.start(name, graces, now)  # each game's grace, from the restart
            self._arm_grace()
        if resumed or aborted:
            log.info("resumed %d running game(s) from their stored moves; aborted %d that "
                     "could not be replayed", len(resumed), len(aborted))
        return resumed, aborted

    def _restore(self, stored: RunningGame) -> _Run:
        """A stored running game rebuilt through the one replay path (not begun).

        Raises:
            DefectiveRecord, LogFormatError, ValueError: its record cannot be replayed.
        """
        game = self.registry.load_game(stored.game, stored.settings)
        record = stored.record(game.type.chance_name)
        control = stored.time_control or self.config.time_control
        if stored.turns:
            last = stored.turns[-1]
            clocks = ClockState(last.banks_ms, last.retries_left)
        else:
            clocks = ClockState(tuple(float(control.bank_ms) for _ in stored.players),
                                control.retries)
        house = self._house_players(stored.game, game, stored.players)
        live = LiveGame.restore(record, game, control, clocks, ladder=stored.ladder,
                                pair=stored.pair, house=house,
                                max_state_bytes=self.config.max_state_bytes)
        waiting = {name for seat, name in enumerate(stored.players) if seat not in house}
        return _Run(live, self._loop.create_future(), header=record, resumed=True,
                    waiting=waiting)

    async def _abort_stored(self, stored: RunningGame, detail: str) -> None:
        """Store a running game that cannot be resumed as aborted, with `detail`."""
        log.error("game %s: %s", stored.id, detail)
        record = MatchRecord(
            game=stored.game, settings=stored.settings, players=stored.players, turns=(),
            outcome=Outcome(None, None, Termination.ABORTED, detail=detail[:1000]), seed=stored.seed,
            id=stored.id, seed_commitment=stored.seed_commitment)
        await self.storage.finish_game(record, rated=False, log=to_jsonl(record))

    # -- a closing server: games suspended, resumed on the next start ------------------

    def suspend_all(self) -> None:
        """The server closes: stop every game where it is, without a result (its stored
        moves are all it needs to resume on the next start); no grace period runs on.
        A game already over is left to store and announce its result."""
        self._suspending = True
        for run in list(self._runs.values()):
            if run.live.over:
                continue
            self._stop(run)
        self.grace.cancel_all()
        if self._grace_timer is not None:
            self._grace_timer.cancel()
            self._grace_timer = None

    async def wait_suspended(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds) for the games' tasks and the commit in
        progress: the moves it stores are told before the connections close."""
        waits: list[asyncio.Future[Any]] = [*self.tasks]
        waits.append(self._loop.create_task(self.writeahead.idle()))
        await asyncio.wait(waits, timeout=timeout)

    async def stored_view(self, game_id: str) -> LiveGame | None:
        """The live game `game_id` once every move it accepted is stored (None: no such
        live game): what the web and a new spectator may be shown, never a move that
        is not stored yet. Read it before the next await."""
        while (run := self._runs.get(game_id)) is not None and self.writeahead.holds(run):
            await self.writeahead.settled(run)
        return None if run is None else run.live

    async def stored_live(self, game_id: str) -> LiveGame | None:
        """A running game another process plays (a gateway's view for the web,
        docs/cluster.md): rebuilt from its stored moves, read only, never begun (None:
        no such running game, or one that cannot be replayed). The last `MAX_VIEWS`
        are kept, each until a move is stored: a page asked often replays a game once
        per move, not once per request."""
        try:
            running = await self.storage.running_games({game_id})
        except StorageFailure:
            return None
        if not running:
            self._views.pop(game_id, None)
            return None
        stored = running[0]
        kept = self._views.get(game_id)
        if kept is not None and kept[0] == len(stored.turns):
            self._views.move_to_end(game_id)
            return kept[1]
        try:
            live = self._restore(stored).live
        except (ArenaError, ValueError, KeyError):
            return None
        self._views[game_id] = (len(stored.turns), live)
        while len(self._views) > MAX_VIEWS:
            self._views.popitem(last=False)
        return live

    async def watch(self, game_id: str, session: Session) -> bool:
        """Make `session` a spectator of `game_id` and send it the game's state, as of
        its last stored move (later moves reach it as frames). False: no such game."""
        live = await self.stored_view(game_id)
        if live is None:
            return False
        if not session.closed:
            live.spectators.add(session)
            session.spectating.add(live.id)
            session.send("game_state", **live.state_message())
        return True

    def task_of(self, live: LiveGame) -> asyncio.Task[MatchRecord]:
        """The task that plays `live` to its end and returns its stored record (it
        raises if the game could not be stored). Known from `start` until it is done."""
        task = self._runs[live.id].task
        assert task is not None
        return task

    async def started(self, live: LiveGame) -> None:
        """Return once `live` (just started) is stored as running, so that whoever reads
        the database counts it (a host answers a gateway's ``play`` then).

        Raises:
            StorageUnavailable: its start could not be stored (it never began).
        """
        run = self._runs.get(live.id)
        if run is None or run.stored.is_set():
            return
        task = run.task
        assert task is not None
        stored = asyncio.ensure_future(run.stored.wait())
        try:
            await asyncio.wait((stored, task), return_when=asyncio.FIRST_COMPLETED)
        finally:
            stored.cancel()
        if run.stored.is_set():
            return
        if task.cancelled():
            raise StorageUnavailable(f"game {live.id} stopped before it was stored")
        error = task.exception()
        if error is not None:
            raise StorageUnavailable(f"game {live.id} could not be stored: {error}")

    def _done(self, run: _Run, task: asyncio.Task[MatchRecord]) -> None:
        self.tasks.discard(task)
        self._end(run)
        del self._runs[run.live.id]
        if self.live.get(run.live.id) is run.live:
            # its task ended without forgetting it: cancelled before it began (lost to
            # another host at once), or while it was being stored. Left live, with no run,
            # it stayed among its players' games, and their next return (a gateway's
            # snapshot) failed on it, and on the other bots of that snapshot too
            self.writeahead.forget(run)
            self._forget(run.live)

    async def _play(self, run: _Run) -> MatchRecord:
        live = run.live
        match = live.match
        if not run.resumed:
            leases = self.leases
            try:  # leased to this host as it is stored: no moment for another to claim it
                await self.storage.start_game(
                    match.record(), ladder=live.ladder, pair=live.pair, time_control=live.control,
                    ladder_name=live.ladder_name,
                    host=None if leases is None else leases.host,
                    lease=0.0 if leases is None else leases.lease)
            except StorageFailure as failure:
                # not stored, so not started: nobody was told of it yet
                self._forget(live)
                raise StorageUnavailable(str(failure)) from None
            if leases is not None:
                leases.hold(live.id, self._loop.time())
        run.stored.set()
        try:
            if live.house and not live.over:
                await self._prepare_house(run)
            if run.waiting and not live.over:  # resumed: its hosted players are back first
                await run.back.wait()
            hosted = self._hosted_seats(live)
            if hosted and self.hosted_slots is not None and not live.over:
                run.queued = True
                async with self.hosted_slots.hold(min(hosted, self.hosted_slots.capacity)):
                    run.queued = False
                    await self._run(run)
            else:
                await self._run(run)
            await self.writeahead.settled(run)  # its last move stored and told
        except Exception as error:  # never lose a game to a bug: record it as aborted
            log.exception("game %s failed", live.id)
            if match.outcome is None:
                match.abort(f"server error: {error!r}")
        except asyncio.CancelledError:
            # stays running in storage: resumed on the next start, or by another host
            if self._suspending or run.lost:
                self.writeahead.forget(run)
                self._forget(live)
                raise
            if match.outcome is None:
                match.abort("the server shut down")
        if match.outcome is None:
            match.abort("the server shut down")
        if not await self._still_held(run):
            self.writeahead.forget(run)
            self._forget(live)
            raise asyncio.CancelledError  # another host plays it: nothing is announced here
        record = match.record()
        log_text = to_jsonl(record)
        try:
            # committed (with the rating update) before anybody hears of the result
            await self.durability.store_result(
                record, rated=live.ladder, log=log_text,
                players=[functools.partial(self.send_to, name) for name in set(live.players)],
                pending=(() if not self.follow_ends
                         else [name for name in set(live.players) if not is_house(name)]))
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

    async def _still_held(self, run: _Run) -> bool:
        """Whether this host still holds `run`'s lease, asked of the database just
        before its result is stored (a host paused past its lease must not store the
        result of a game another host took over). A storage failure answers True: the
        result then waits for the storage, and a keeper that cannot renew for a whole
        lease gives its games up (`lose`)."""
        if run.lost:
            return False
        if self.leases is None:
            return True
        try:
            held = await self.leases.adopt(run.live.id, self._loop.time())
        except StorageFailure:
            return True
        if not held:
            run.lost = True
            log.warning("game %s: another host took it over; its result is not stored here",
                        run.live.id)
        return held

    def lose(self, game_ids: frozenset[str]) -> None:
        """Another host took these games over (this host's leases ran out): stop them
        where they are, announcing nothing (`LeaseKeeper`'s ``on_lost``)."""
        for game_id in game_ids:
            run = self._runs.get(game_id)
            if run is None or run.live.over:
                continue  # (one that ended here: its lease's renewal missed it)
            log.warning("game %s: another host took it over (its lease ran out): stopped "
                        "here, its result not stored here", game_id)
            run.lost = True
            self._stop(run)

    @staticmethod
    def _stop(run: _Run) -> None:
        """Stop `run` where it is: its clock's timer, its house bot's move, its task."""
        if run.timer is not None:
            run.timer.cancel()
            run.timer = None
        if run.house_task is not None:
            run.house_task.cancel()
        if run.task is not None:
            run.task.cancel()

    async def _run(self, run: _Run) -> None:
        """Begin the game (a resumed one once its players are back) and wait for its
        end; the caller stores the result."""
        run.ready = True
        self._begin(run)
        self._settle_run(run)  # a resumed game its stored moves ended is over at once
        try:
            await asyncio.shield(run.ended)
        finally:
            self._end(run)

    def _begin(self, run: _Run) -> None:
        """Begin `run`'s game if it is ready and waits for nobody."""
        live = run.live
        if run.ready and not run.waiting and not live.started and not live.over:
            self._apply(run, live.begin(self._loop.time(), announce=not run.resumed))

    def _end(self, run: _Run) -> None:
        """The game is over (or its task done): stop its timer and its house seat's move,
        and let its task store the result (safe to call twice)."""
        if run.timer is not None:
            run.timer.cancel()
            run.timer = None
        house, run.house_task = run.house_task, None
        if house is not None and house is not asyncio.current_task():
            house.cancel()
        if run.queued and run.task is not None and run.task is not asyncio.current_task():
            run.queued = False
            run.task.cancel()  # ended while it waited for hosted slots
        run.back.set()
        if not run.ended.done():
            run.ended.set_result(None)

    def _hosted_seats(self, live: LiveGame) -> int:
        """The seats of `live` that hosted bots play (each holds a hosted slot)."""
        return sum(1 for name in live.players
                   if (session := self.sessions.get(name)) is not None and session.hosted)

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
            if name in self.sessions:
                self.send_to(name, "game_over", **fields)
            elif not is_house(name):  # away (between two connections): told on its return
                self._keep_unheard(name, fields)
        self._send_spectators(live, "game_over", fields)
        self._forget(live)

    def _keep_unheard(self, name: str, fields: dict[str, Any]) -> None:
        """Keep the ``game_over`` of a game that ended while its bot was away (its
        opponent's last move, or a gateway closing it): `take_unheard` gives it when the
        bot is back. At most `UNHEARD_GAMES` a bot and `UNHEARD_BOTS` bots, the oldest
        forgotten first."""
        kept = self._unheard.pop(name, None) or deque(maxlen=UNHEARD_GAMES)
        kept.append(fields)
        self._unheard[name] = kept  # (re)inserted last: the dict's order is by age
        while len(self._unheard) > UNHEARD_BOTS:
            del self._unheard[next(iter(self._unheard))]

    def take_unheard(self, name: str) -> list[dict[str, Any]]:
        """The ``game_over`` fields of the games of `name` that ended while it was away
        (to send it once it is welcomed back), forgotten here."""
        return list(self._unheard.pop(name, ()))

    def _forget(self, live: LiveGame) -> None:
        if self.leases is not None:
            self.leases.forget(live.id)
        self.legal_moves.forget(live.id)
        self.notes.forget(live.id)
        for session in live.spectators:
            session.spectating.discard(live.id)
        if self.live.pop(live.id, None) is not None:
            self.moves_ended += live.turn
            if self.on_live is not None:
                self.on_live(live.id, False)
        for name in set(live.players):
            games = self.bot_games.get(name)
            if games is not None:
                games.discard(live.id)
                if not games:
                    del self.bot_games[name]
                    self.grace.cancel(name)  # no game left to forfeit

    def of(self, name: str) -> list[LiveGame]:
        """The live games `name` plays in."""
        return [live for game_id in list(self.bot_games.get(name, ()))
                if (live := self.live.get(game_id)) is not None]

    # -- what happens to a game: given to it with the time, then settled ---------------

    def submit(self, live: LiveGame, seat: int, turn: int, text: str) -> None:
        """A move from seat `seat` for `turn` has come: judge it, then tell everybody
        once it is stored (a move sent while the server closes is not judged: the bot
        has its turn again after the restart)."""
        run = self._runs[live.id]
        if self._suspending or run.lost:
            return
        before = live.turn
        now = self._loop.time()
        self._moved(run, before, live.submit(seat, turn, text, now, self._cpu_ms(live)), now)

    def _moved(self, run: _Run, before: int, effects: Sequence[Effect], now: float) -> None:
        """What a move come at `now` asked for: held until the move is stored if it was
        accepted (`arena.server.writeahead`), delivered now otherwise; then settle the
        game."""
        live = run.live
        turn = None
        if live.turn != before and self.writeahead.enabled:  # (the baseline builds none)
            record = live.match.turns[-1]
            header = run.header
            assert header is not None
            turn = StoredTurn(live.id, record.turn, turn_line(header, record),
                              tuple([clock.bank_ms for clock in live.clocks]),
                              live.retries_left, time.time())
        if not self.writeahead.add(run, turn, effects):
            self._deliver(run, effects)
        elif turn is not None and not run.clock_held:
            # nobody is told of the next turn until the move is stored: its clock waits
            run.clock_held = True
            live.pause_clock(now)
        self._settle_run(run)

    def _released(self, run: _Run, effects: list[Effect], error: BaseException | None) -> None:
        """`run`'s moves are stored: tell everybody (or, if they could not be, end it)."""
        if run.task is None or run.task.done() or run.lost:
            return  # suspended (the server closes, or another host took it): nobody is told
        if run.clock_held:
            run.clock_held = False
            run.live.resume_clock(self._loop.time())
        if error is not None:
            run.live.abort(f"server error: its moves could not be stored ({error!r})")
        else:
            self._deliver(run, effects)
        self._settle_run(run)

    def resume(self, live: LiveGame, name: str) -> None:
        """The player `name` is back: send it its games' state and turn again (a game
        resumed after a restart begins once all its players are back)."""
        run = self._runs[live.id]
        self._time_by_cpu(live, name, self.sessions.get(name))
        self._apply(run, live.resume_messages(name, self._loop.time()))
        if name in run.waiting:
            run.waiting.discard(name)
            if not run.waiting:
                run.back.set()
            self._begin(run)

    def forfeit_player(self, live: LiveGame, name: str, termination: Termination,
                       detail: str) -> None:
        """End `live` against the player `name` (it resigned, or its token was revoked)."""
        live.forfeit_player(name, termination, detail)
        self._settle(live)

    def abort(self, live: LiveGame, detail: str) -> None:
        """End `live` with no result, for the reason `detail`."""
        live.abort(detail)
        self._settle(live)

    def _forfeit(self, run: _Run, seat: int, termination: Termination, detail: str) -> None:
        run.live.forfeit(seat, termination, detail)
        self._settle_run(run)

    def _apply(self, run: _Run, effects: Sequence[Effect]) -> None:
        """Deliver what a game returned (behind its moves not yet stored), then settle it."""
        if not self.writeahead.add(run, None, effects):
            self._deliver(run, effects)
        self._settle_run(run)

    def _settle(self, live: LiveGame) -> None:
        run = self._runs.get(live.id)
        if run is not None:
            self._settle_run(run)

    def _settle_run(self, run: _Run) -> None:
        """After anything that happened to a game: end it if it is over, or have its
        timer wake it by its deadline."""
        live = run.live
        if live.over:
            self._end(run)
            return
        at = live.wake_at
        timer = run.timer
        if at is not None and (timer is None or timer.when() > at):
            if timer is not None:
                timer.cancel()
            run.timer = self._loop.call_at(at, self._wake, run)

    def _wake(self, run: _Run) -> None:
        run.timer = None
        run.live.wake(self._loop.time(), self._cpu_ms(run.live))
        self._settle_run(run)

    def _cpu_ms(self, live: LiveGame) -> float | None:
        """The mover's CPU time on the turn in progress, if it is CPU-timed."""
        if not live.cpu_turn or self.cpu_meter is None or live.over:
            return None
        return self.cpu_meter(live.players[live.match.to_act()], live.id, live.turn)

    def _cpu_timed(self, session: Session | None) -> bool:
        """Whether the player of `session` is timed by CPU time under a ``cpu`` clock:
        a hosted program whose turns' CPU time is measured (a line program; a
        WebSocket-speaking one plays all its games in one program: wall time)."""
        return (session is not None and session.hosted and not session.wall_timed
                and self.cpu_meter is not None)

    def _time_by_cpu(self, live: LiveGame, name: str, session: Session | None) -> None:
        if self._cpu_timed(session):
            live.cpu_players.add(name)
        else:
            live.cpu_players.discard(name)

    def client_changed(self, name: str, session: Session | None) -> None:
        """The bot `name` connected with `session` (or left: None). Its games learn
        whether its client takes compact turns and is timed by CPU time; leaving starts
        its games' grace periods (unless the server is closing), coming back ends them."""
        compact = session is not None and "compact-turns" in session.capabilities
        games = self.of(name)
        for live in games:
            if compact:
                live.compact_turns.add(name)
            else:
                live.compact_turns.discard(name)
            self._time_by_cpu(live, name, session)
        if session is not None:
            self.grace.cancel(name)
        elif games and not self._stopping.is_set():
            self.grace.start(name, {live.control.grace_ms for live in games}, self._loop.time())
            self._arm_grace()

    def _arm_grace(self) -> None:
        """Have the grace timer fire by the next period's end (like a game's timer)."""
        at = self.grace.wake_at
        timer = self._grace_timer
        if at is not None and (timer is None or timer.when() > at):
            if timer is not None:
                timer.cancel()
            self._grace_timer = self._loop.call_at(at, self._grace_expired)

    def _grace_expired(self) -> None:
        """A grace period ran out: its bot, still away, forfeits the games with it."""
        self._grace_timer = None
        for name, grace_ms in self.grace.expired(self._loop.time()):
            if name in self.sessions:
                continue
            for live in self.of(name):
                if live.control.grace_ms == grace_ms:
                    self.forfeit_player(live, name, Termination.DISCONNECT,
                                        f"{name} stayed disconnected longer than {grace_ms} ms")
        self._arm_grace()

    # -- delivery ----------------------------------------------------------------------

    def _deliver(self, run: _Run, effects: Iterable[Effect]) -> None:
        """Do what a game asked for: send its messages, start its house seat's move."""
        live = run.live
        for effect in effects:
            if isinstance(effect, HouseTurn):
                if not live.over:
                    run.house_task = self._loop.create_task(self._house_move(run, effect))
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

    async def _prepare_house(self, run: _Run) -> None:
        """Build and prepare the house bots in a worker before the game's clock starts;
        a house bot that cannot prepare forfeits."""
        for seat, player in run.live.house.items():
            try:
                await self.house_bots.prepare(player.key)
            except JobFailed as failure:
                self._forfeit(run, seat, Termination.ILLEGAL_MOVE,
                              f"house bot {player.spec} failed to prepare: {failure}")

    async def _house_move(self, run: _Run, house_turn: HouseTurn) -> None:
        """Have a worker choose the house seat's move on its clock and submit it; where
        no worker has the bot ready, one prepares it first, the clock stopped meanwhile."""
        live = run.live
        seat, turn = house_turn.seat, house_turn.turn
        player = live.house[seat]
        house_bots = self.house_bots
        state = live.state_json()
        seed = move_seed(live.match.seed, live.id, seat, turn)
        loop = self._loop
        for _ in range(PREPARE_ROUNDS):
            worker = house_bots.worker_for(player.key)
            if worker is None:
                live.pause_clock(loop.time())
                try:
                    worker = await house_bots.prepare(player.key)
                except JobFailed as failure:
                    live.forfeit(seat, Termination.ILLEGAL_MOVE,
                                 f"house bot {player.spec} failed to prepare: {failure}")
                    return
                finally:
                    live.resume_clock(loop.time())
                    self._settle_run(run)
            try:
                move = await house_bots.choose(player.key, state, seed, worker=worker,
                                               timeout=max(0.001, live.deadline - loop.time()))
            except JobFailed as failure:
                if failure.kind == "timeout":
                    live.wake(loop.time())  # on time, like anybody (the worker was killed)
                    self._forfeit(run, seat, Termination.TIMEOUT,
                                  f"{player.spec} overran its time on turn {turn}")
                else:
                    self._forfeit(run, seat, Termination.ILLEGAL_MOVE,
                                  f"house bot {player.spec} failed: {failure}")
                return
            if move is not None:
                before, now = live.turn, loop.time()
                self._moved(run, before, live.submit(seat, turn, move, now), now)
                return
        self._forfeit(run, seat, Termination.ILLEGAL_MOVE,
                      f"house bot {player.spec} could not be prepared in a worker")
