"""Write-ahead moves: every accepted move is stored before anybody hears of it.

`WriteAhead` stands between the live games and the players. A game that accepted a move
hands it over (`add`) with everything the move asks to send (the mover's
``move_accepted``, the opponent's news, the spectators' frame, the next ``your_turn``);
those messages are held until the move is committed (`Storage.append_turns`), then given
back (`release`) in the order they came. The moves accepted while one commit runs go
together in the next (a group commit: one transaction per flush, however many games
moved), and whatever a game asks to send meanwhile waits behind its held move. A
database that takes concurrent writers (PostgreSQL) has several commits in flight,
each of other games, so that a move waits for a free commit, not for the one in
progress to end; a game's moves are stored and told in order either way. So the
moves a database holds are exactly those the players were told of, or about to be: a
restarted server resumes each running game from them (`arena.server.games`).

While the storage fails, the held games wait until it works again, and nothing about
them is told (their driver stops the clock of a turn nobody was told of, while it is
held: `arena.server.games`); if the server closes first, they stay as stored and
resume on the next start. Writing no move ahead (``enabled``
False) hands everything back at once: the figures' baseline (``arena serve
--no-write-ahead``), not a way to run an arena.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Generic, TypeVar

from arena.server.live import Effect
from arena.storage import Storage, StorageFailure, StoredTurn

__all__ = ["WriteAhead"]

log = logging.getLogger("arena.server")

K = TypeVar("K", bound=Hashable)


class WriteAhead(Generic[K]):
    """See the module docstring; `K` is the driver's key of a game.

    Args:
        storage: where the moves go.
        release: delivers a game's held messages once its moves are stored (`error`:
            they could not be, for a reason other than a storage failure: a bug; the
            messages are dropped and the game should end).
        concurrency: commits in flight at once (`Storage.write_concurrency`).
        recovers: waits until the storage works again (True) or the server closes (False).
        enabled: False writes nothing ahead (the baseline of the figures).
        told: called once a commit's games are all told (the server writes their
            frames then, not on the loop's next turn).
    """

    def __init__(self, storage: Storage,
                 release: Callable[[K, list[Effect], BaseException | None], None], *,
                 recovers: Callable[[], Awaitable[bool]], enabled: bool = True,
                 concurrency: int = 1, told: Callable[[], None] | None = None) -> None:
        self.storage = storage
        self.enabled = enabled
        self.concurrency = max(1, concurrency)
        """Commits in flight at once, each of other games (`Storage.write_concurrency`)."""
        self.batches = 0
        """Commits so far (a group commit stores many games' moves in one)."""
        self._release = release
        self._recovers = recovers
        self._turns: dict[K, list[StoredTurn]] = {}
        self._next: dict[K, list[Effect]] = {}
        """What waits for the next commit, per game, in order."""
        self._inflight: set[K] = set()
        """The games whose moves a commit in progress stores (what they ask to send
        meanwhile waits in `_next`, for a later commit)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiters: dict[K, list[asyncio.Future[None]]] = {}
        self._closing = False
        self._starting: asyncio.Task[None] | None = None
        """A commit's task is made and has not begun: it takes whatever comes meanwhile."""
        self._told = told

    @property
    def holds_any(self) -> bool:
        return bool(self._next or self._inflight)

    def holds(self, key: K) -> bool:
        """Whether messages of game `key` wait for a commit (later ones must wait too)."""
        return key in self._next or key in self._inflight

    def add(self, key: K, turn: StoredTurn | None, effects: Sequence[Effect]) -> bool:
        """Hold `effects` of game `key` until `turn` (if any) and every move before it
        are stored. False if nothing needs holding: deliver them now."""
        if turn is None and not self.holds(key):
            return False
        if not self.enabled:
            return False
        if turn is not None:
            self._turns.setdefault(key, []).append(turn)
        held = self._next.get(key)
        if held is None:
            self._next[key] = list(effects)
        else:
            held.extend(effects)
        self._kick()
        return True

    async def settled(self, key: K) -> None:
        """Return once nothing of game `key` is held (its moves are stored and told)."""
        if not self.holds(key):
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(key, []).append(waiter)
        await waiter

    async def idle(self) -> None:
        """Return once the commits in progress (and what queued behind them) are done."""
        while self._tasks:
            await asyncio.wait([asyncio.shield(task) for task in self._tasks])

    def forget(self, key: K) -> None:
        """Drop what game `key` waits for (it is suspended: the server closes)."""
        self._next.pop(key, None)
        self._turns.pop(key, None)
        for waiter in self._waiters.pop(key, ()):
            if not waiter.done():
                waiter.cancel()

    def _kick(self) -> None:
        """Start a commit of the games waiting and in none in progress, if a slot is
        free: a task that begins on the loop's next turn (so the moves accepted until
        then go along) and, after each commit, takes what queued meanwhile."""
        if self._closing or self._starting is not None or len(self._tasks) >= self.concurrency:
            return
        if not any(key not in self._inflight for key in self._next):
            return
        task = asyncio.get_running_loop().create_task(self._flushing(), name="write-ahead")
        self._starting = task
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if self._starting is task:  # cancelled before it began
            self._starting = None

    async def _flushing(self) -> None:
        """Commit what waits (of the games no other commit stores), tell it, and go on
        with what queued meanwhile (after the loop's turn) until nothing waits."""
        self._starting = None
        try:
            await self._commits()
        finally:  # its slot is free now, not once its done callbacks run: a move added
            task = asyncio.current_task()  # before then must find it free (or wait forever)
            if task is not None:
                self._tasks.discard(task)

    async def _commits(self) -> None:
        """One commit after the other while something waits (`_flushing`)."""
        while not self._closing:
            batch = {key: effects for key, effects in self._next.items()
                     if key not in self._inflight}
            if not batch:
                return
            for key in batch:
                del self._next[key]
            turns = [turn for key in batch for turn in self._turns.pop(key, ())]
            self._inflight.update(batch)
            error: BaseException | None = None
            if turns:
                try:
                    stored = await self._store(turns)
                except Exception as failure:  # a bug (a duplicate turn): not a storage failure
                    log.exception("the moves of %d games could not be stored", len(batch))
                    stored, error = True, failure
                if not stored:
                    self._closing = True
                    return  # the server closes: the held moves stay untold
            self._inflight.difference_update(batch)
            self._tell(batch, error)
            # the loop's turn first: the moves its ready connections bring join the next
            # commit (starting it at once makes smaller commits, more of them: slower)
            await asyncio.sleep(0)

    def _tell(self, batch: dict[K, list[Effect]], error: BaseException | None) -> None:
        """Give back what `batch` held, its moves stored. What a game of it asked to send
        meanwhile, with no move of its own to store, goes along (nothing is left to
        wait for)."""
        for key, effects in batch.items():
            if error is None and key not in self._turns:
                later = self._next.pop(key, None)
                if later is not None:
                    effects.extend(later)
            self._release(key, effects, error)
            if not self.holds(key):
                for waiter in self._waiters.pop(key, ()):
                    if not waiter.done():
                        waiter.set_result(None)
        if self._told is not None:
            self._told()

    async def _store(self, turns: list[StoredTurn]) -> bool:
        """Commit `turns`; while the storage fails, wait for it. False if the server
        closes first."""
        while True:
            try:
                await self.storage.append_turns(turns)
                self.batches += 1
                return True
            except StorageFailure:
                if not await self._recovers():
                    return False
