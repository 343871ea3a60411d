"""A whole database copied into another, of either kind (``arena db copy``).

Every table of `COPIED_TABLES` (accounts with their token hashes, guests, games with
their logs, seeds and commitments, ratings and their history, presets, the write-ahead
turns of running games) is read from one consistent snapshot of the source, in batches,
and written into the target, each batch in its own transaction; then the rows of every
table are counted in the target and compared with the source's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from arena.errors import ArenaError
from arena.storage.interface import COPIED_TABLES, Storage

__all__ = ["CopyMismatch", "TargetNotEmpty", "copy_database", "row_counts"]

Progress = Callable[[str, int, int], None]
"""Told ``(table, rows copied so far, rows in all)`` after every batch."""


class TargetNotEmpty(ArenaError):
    """The target database has rows already (copy with ``overwrite`` to replace them)."""


class CopyMismatch(ArenaError):
    """After the copy, a table of the target does not have the source's rows."""


async def row_counts(storage: Storage) -> dict[str, int]:
    """The rows of every table of `COPIED_TABLES`, from one snapshot."""
    async with storage.snapshot() as snapshot:
        return {table: await snapshot.count(table) for table in COPIED_TABLES}


async def copy_database(source: Storage, target: Storage, *, overwrite: bool = False,
                        batch: int = 500, progress: Progress | None = None) -> Mapping[str, int]:
    """Copy every row of `source` into `target`; return the rows copied per table.

    Raises:
        TargetNotEmpty: `target` has rows and `overwrite` is False (nothing is written).
        CopyMismatch: a table's rows in the target differ in number from the source's.
        StorageFailure: either database failed (the target may then hold part of the
            copy: copy again with `overwrite`).
    """
    if batch < 1:
        raise ValueError("the batch size must be at least 1")
    present = {table: count for table, count in (await row_counts(target)).items() if count}
    if present and not overwrite:
        shown = ", ".join(f"{table} {count}" for table, count in present.items())
        raise TargetNotEmpty(f"the target database has rows already ({shown}); copy into an "
                             "empty one, or overwrite it (its rows are deleted first)")
    if present:
        await target.clear()
    async with source.snapshot() as snapshot:
        counts = {table: await snapshot.count(table) for table in COPIED_TABLES}
        for table in COPIED_TABLES:
            done = 0
            if progress is not None:
                progress(table, done, counts[table])
            async for rows in snapshot.rows(table, batch):
                await target.insert_rows(table, rows)
                done += len(rows)
                if progress is not None:
                    progress(table, done, counts[table])
    copied = await row_counts(target)
    wrong = {table: (counts[table], copied[table]) for table in COPIED_TABLES
             if counts[table] != copied[table]}
    if wrong:
        shown = ", ".join(f"{table}: {want} in the source, {have} in the target"
                          for table, (want, have) in wrong.items())
        raise CopyMismatch(f"the copy is incomplete ({shown})")
    return counts
