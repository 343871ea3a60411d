"""Write-ahead moves: every accepted move is stored before anybody hears of it.

`WriteAhead` stands between the live games and the players. A game that accepted a move
hands it over (`add`) with everything the move asks to send (the mover's
``move_accepted``, the opponent's news, the spectators' frame, the next ``your_turn``);
those messages are held until the move is committed (`Storage.commit_turns_soon`), then
given back (`release`) in the order they came, as soon as the storage calls back. The moves accepted while one commit runs go
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
        self._commits = 0
        """Commits asked for and not done (`Storage.commit_turns_soon`), one slot each."""
        self._gathering = False
        """A commit is asked for and has not taken its moves yet: it takes whatever
        comes meanwhile (so no other is asked for)."""
        self._retries: set[asyncio.Task[None]] = set()
        self._waiters: dict[K, list[asyncio.Future[None]]] = {}
        self._idle: list[asyncio.Future[None]] = []
        self._closing = False
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
        self._ask()
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
        if self._commits:
            waiter = asyncio.get_running_loop().create_future()
            self._idle.append(waiter)
            await waiter

    def forget(self, key: K) -> None:
        """Drop what game `key` waits for (it is suspended: the server closes)."""
        self._next.pop(key, None)
        self._turns.pop(key, None)
        for waiter in self._waiters.pop(key, ()):
            if not waiter.done():
                waiter.cancel()

    def _ask(self) -> None:
        """Ask the storage for a commit of the games waiting and in none in progress,
        if a slot is free and no commit asked for is still gathering its moves."""
        if self._closing or self._gathering or self._commits >= self.concurrency:
            return
        if not any(key not in self._inflight for key in self._next):
            return
        self._gathering = True
        self._commits += 1
        batch: dict[K, list[Effect]] = {}
        turns: list[StoredTurn] = []

        def take() -> list[StoredTurn]:
            """The moves waiting now (the loop's next turn: those accepted until then)."""
            self._gathering = False
            if not self._closing:
                batch.update((key, effects) for key, effects in self._next.items()
                             if key not in self._inflight)
                for key in batch:
                    del self._next[key]
                    turns.extend(self._turns.pop(key, ()))
                self._inflight.update(batch)
            return turns

        self.storage.commit_turns_soon(
            take, lambda error: self._committed(batch, turns, error))

    def _committed(self, batch: dict[K, list[Effect]], turns: list[StoredTurn],
                   error: BaseException | None) -> None:
        """A commit is done: tell its games, and ask for the next."""
        if isinstance(error, StorageFailure):  # wait for the storage, then again
            task = asyncio.get_running_loop().create_task(self._retry(batch, turns))
            self._retries.add(task)
            task.add_done_callback(self._retries.discard)
            return
        self._commits -= 1
        if isinstance(error, asyncio.CancelledError):
            self._close()  # the server closes: the held moves stay untold
            return
        if error is not None:  # a bug (a duplicate turn): not a storage failure
            log.error("the moves of %d games could not be stored", len(batch),
                      exc_info=error)
        elif turns:
            self.batches += 1
        self._inflight.difference_update(batch)
        self._tell(batch, error)
        self._ask()
        if not self._commits:
            self._wake(self._idle)

    async def _retry(self, batch: dict[K, list[Effect]], turns: list[StoredTurn]) -> None:
        """Commit `turns` again once the storage works; if the server closes first, the
        held moves stay untold (they resume as stored on the next start)."""
        if await self._recovers() and not self._closing:
            self.storage.commit_turns_soon(
                lambda: turns, lambda error: self._committed(batch, turns, error))
        else:
            self._commits -= 1
            self._close()

    def _close(self) -> None:
        self._closing = True
        self._wake(self._idle)

    @staticmethod
    def _wake(waiters: list[asyncio.Future[None]]) -> None:
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        waiters.clear()

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
            if key in self._waiters and not self.holds(key):
                self._wake(self._waiters.pop(key))
        if self._told is not None:
            self._told()
