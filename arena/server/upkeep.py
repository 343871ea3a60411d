"""The bots' debug lines kept within the disk: a reserve of free space, a retention period.

Debug lines are what a bot can make the server store at will: its moves are bounded by
its games, its ``log`` lines only by their limits (per line, turn and game, and a byte
budget per bot and UTC day: `arena.bot_logs.LogLimits`, enforced by
`arena.server.aids.Notes` before a line is kept). Two watches keep what they add to
the database bounded in time and in space:

* the disk reserve: every `DISK_CHECK_SECONDS` the free space of the database's file
  system is read (`shutil.disk_usage`, in a thread); below
  `ServerConfig.debug_disk_reserve_mb`, `Notes.disk_low` is set and no debug line is
  kept until there is more again. Games, results and ratings go on: they need little
  space, and when even that is gone the storage's own failure path takes over
  (`arena.server.durability`).
* retention: every `RETENTION_PASS_SECONDS` (and at start), the debug lines of games
  that ended more than `ServerConfig.debug_retention_days` ago are dropped from their
  stored logs (`Storage.drop_old_notes`: a batch a database call, so other work goes
  on in between); the rest of each log stays as it was, so the game still validates
  and replays. SQLite reuses the pages freed for the games that follow (the file does
  not shrink without ``VACUUM``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import time

from arena.bot_logs import utc_day
from arena.server.aids import Notes
from arena.storage import Storage, StorageFailure, parse_url

__all__ = ["DISK_CHECK_SECONDS", "RETENTION_PASS_SECONDS", "DebugLineUpkeep"]

log = logging.getLogger("arena.server")

DISK_CHECK_SECONDS = 5.0
"""Seconds between readings of the database's free disk space."""
RETENTION_PASS_SECONDS = 3600.0
"""Seconds between passes that drop expired debug lines."""
DAY_SECONDS = 86400.0


class DebugLineUpkeep:
    """The disk reserve and the retention period of the bots' debug lines (module
    docstring).

    Args:
        storage: the database.
        notes: the server's debug lines (told when the disk is short).
        db: the database's ``--db`` (a SQLite file's disk is watched; PostgreSQL's, or
            ``:memory:``, is not: its server keeps its own).
        reserve_mb: MiB of free disk below which no debug line is kept (0: none).
        retention_days: days after its game's end a debug line is kept (0: for ever).
    """

    def __init__(self, storage: Storage, notes: Notes, *, db: str, reserve_mb: int,
                 retention_days: float) -> None:
        self.storage = storage
        self.notes = notes
        self.reserve_bytes = reserve_mb * 1024 * 1024
        self.retention_days = retention_days
        parsed = parse_url(db)
        local = parsed.kind == "sqlite" and parsed.target != ":memory:" \
            and not parsed.target.startswith("file:")
        self._directory = os.path.dirname(os.path.abspath(parsed.target)) if local else None

    async def check_disk(self) -> bool:
        """Read the free space (off the event loop) and set `Notes.disk_low`; whether it
        is below the reserve."""
        if self._directory is None or self.reserve_bytes <= 0:
            self.notes.disk_low = False
            return False
        try:
            free = (await asyncio.to_thread(shutil.disk_usage, self._directory)).free
        except OSError as error:
            log.warning("cannot read the free disk space of %s: %s", self._directory, error)
            return self.notes.disk_low
        low = free < self.reserve_bytes
        if low != self.notes.disk_low:
            if low:
                log.warning("%d MiB free for the database, under the reserve of %d MiB: "
                            "debug lines are dropped until there is more", free >> 20,
                            self.reserve_bytes >> 20)
            else:
                log.warning("%d MiB free for the database again: debug lines are kept",
                            free >> 20)
        self.notes.disk_low = low
        return low

    async def drop_expired(self, now: float) -> int:
        """Drop the debug lines of the games that ended more than the retention period
        before `now` (seconds since the epoch); how many logs were looked at. Also
        forgets the daily counts of the days before `now`'s."""
        self.notes.forget_days_before(utc_day(now))
        if self.retention_days <= 0:
            return 0
        storage = self.storage
        before = now - self.retention_days * DAY_SECONDS
        await storage.drop_old_stderr(before)  # hosted programs' standard error, likewise
        looked = 0
        batch = 25  # a short database call each: finished games are stored in between
        while True:
            done = await storage.drop_old_notes(before, batch)
            looked += done
            if done < batch:
                return looked

    async def watch(self) -> None:
        """Check the disk every `DISK_CHECK_SECONDS` and drop expired debug lines at
        once and then every `RETENTION_PASS_SECONDS`, until cancelled."""
        next_pass = 0.0
        while True:
            now = time.time()
            if now >= next_pass and self.storage.failure is None:
                next_pass = now + RETENTION_PASS_SECONDS
                with contextlib.suppress(StorageFailure):
                    await self.drop_expired(now)
            await self.check_disk()
            await asyncio.sleep(DISK_CHECK_SECONDS)
