"""The server's promise about results: none is announced unless it is stored.

`Durability` stands between the server and its `Storage`. At start it hands the games
a stop or a crash left running to be resumed from their stored moves (`resume`: the
live games' `restore_running`; one whose record cannot be replayed is aborted there, with
the reason) and checks that the database takes writes (`recover`). While the storage fails (a full or read-only disk), or until that recovery
has happened, `unhealthy` says why: the server starts no game and `/healthz` answers
503. A finished game's result is stored before it is announced (`store_result`); while
the storage fails, the players are told and the result waits, unannounced, until the
storage works again (or the server closes, and the next start finds the game still
resumed, since nobody heard of its end). Every move is stored before anybody hears of
it (`arena.server.writeahead`); while it cannot be, the game waits the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from typing import Any

from arena.record import MatchRecord
from arena.service import StorageUnavailable
from arena.storage import RunningGame, Storage, StorageFailure

__all__ = ["STORAGE_UNAVAILABLE", "Durability", "StorageUnavailable"]

STORAGE_UNAVAILABLE = "storage-unavailable"
"""The ``error`` code telling clients that the server cannot store results now."""

Tell = Callable[..., Any]
"""Sends a message: ``tell(type, **fields)``."""

Resume = Callable[[Sequence[RunningGame]], Awaitable[tuple[list[str], list[str]]]]
"""Resumes stored running games: returns the ids resumed and the ids aborted."""


class Durability:
    """See the module docstring.

    Args:
        storage: the server's storage (its failures and recoveries are reported here).
        stopping: set when the server begins to close (results stop waiting).
        tell_everybody: sends a message to every connected client.
    """

    def __init__(self, storage: Storage, stopping: asyncio.Event,
                 tell_everybody: Tell) -> None:
        self.storage = storage
        self.recovered: list[str] = []
        """Ids of the games left running that could not be resumed at start (their
        record cannot be replayed), recorded as aborted."""
        self.resumed: list[str] = []
        """Ids of the games left running, resumed at start from their stored moves."""
        self.resume: Resume | None = None
        """Resumes the stored running games (the live games' `restore_running`); set by
        the server before `recover`. None: they are recorded as aborted (a server that
        plays no games)."""
        self._stopping = stopping
        self._tell_everybody = tell_everybody
        self._recover_pending = True
        storage.on_change = self._changed

    @property
    def unhealthy(self) -> str | None:
        """Why no game can start now, or None."""
        if self.storage.failure is not None:
            return self.storage.failure
        if self._recover_pending:
            return "resuming the games a stop or a crash left running"
        return None

    @property
    def unhealthy_code(self) -> str | None:
        """`unhealthy` as a code (`arena.server.health.FAILURE_CODES`), or None."""
        if self.storage.failure is not None:
            return "storage-failed"
        return "resuming-games" if self._recover_pending else None

    def check(self) -> None:
        """Raise `StorageUnavailable` if no game can start now."""
        reason = self.unhealthy
        if reason is not None:
            raise StorageUnavailable(f"the server cannot store games now ({reason})")

    async def recover(self) -> None:
        """Resume the games a stop or a crash left running (`resume`) and check that the
        database takes writes; if it does not, both happen again when the storage works
        again (games resumed already are not resumed twice)."""
        storage = self.storage
        try:
            if self.resume is None:
                self.recovered = await storage.recover()
            else:
                resumed, aborted = await self.resume(await storage.running_games())
                self.resumed += resumed
                self.recovered += aborted
            await storage.check_writable()
            self._recover_pending = False
        except StorageFailure:
            self._recover_pending = True

    def _changed(self, failure: str | None) -> None:
        """The storage failed (`failure` says why) or works again (None)."""
        if failure is not None:
            self._tell_everybody(
                "error", code=STORAGE_UNAVAILABLE, fatal=False,
                message=f"the server cannot store games now ({failure}); no game starts "
                        "until it can, and results wait until they are stored")
        elif self._recover_pending:
            asyncio.get_running_loop().create_task(self.recover())

    async def store_result(self, record: MatchRecord, *, rated: bool, log: str,
                           players: Iterable[Tell], pending: Collection[str] = ()) -> None:
        """Store a finished game's result, log and ratings (and the end kept for the
        `pending` players until they hear it: `Storage.finish_game`); while the storage
        fails, tell the `players` (once) and wait for it to work again.

        Raises:
            StorageUnavailable: the server began to close before the result was stored.
        """
        storage = self.storage
        told = False
        while True:
            try:
                await storage.finish_game(record, rated=rated, log=log, pending=pending)
                return
            except StorageFailure as failure:
                if not told:
                    told = True
                    for tell in players:
                        tell("error", code=STORAGE_UNAVAILABLE, fatal=False, game_id=record.id,
                             message=f"game {record.id} is over, but its result cannot be "
                                     f"stored now ({failure}); it is announced once it is "
                                     "stored")
                if not await self.recovers():
                    raise StorageUnavailable(str(failure)) from None

    async def recovers(self) -> bool:
        """Wait until the storage works again (True) or the server closes (False)."""
        if self._stopping.is_set():
            return False
        healthy = asyncio.ensure_future(self.storage.wait_healthy())
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({healthy, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            healthy.cancel()
            stopping.cancel()
        return not self._stopping.is_set()
