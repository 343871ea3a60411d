"""`arena db`: the server's database: copy it between SQLite and PostgreSQL, bring its
schema up to date, say what it holds. `DB_OPTION` is the ``--db`` of every command that
uses the server's database (`arena serve`, `arena bots add/revoke/accounts`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import click

if TYPE_CHECKING:
    from arena.storage import Storage

T = TypeVar("T")

DB_HELP = ("The server's database: a SQLite file (or sqlite:///PATH) or a PostgreSQL URL "
           "(postgresql://USER@HOST/DATABASE).")

DB_OPTION = click.option("--db", default="arena.sqlite", show_default=True, metavar="URL",
                         help=DB_HELP)


def with_storage(url: str, work: Callable[[Storage], Awaitable[T]]) -> T:
    """Open the database `url`, run ``work(storage)`` and close it; a database that
    cannot be opened or used is a clear error, not a traceback."""
    from arena.storage import StorageFailure, StorageVersionError, open_storage

    async def main() -> T:
        storage = await open_storage(url)
        try:
            return await work(storage)
        finally:
            await storage.close()

    try:
        return asyncio.run(main())
    except (StorageFailure, StorageVersionError) as error:
        raise click.ClickException(str(error)) from None


def check_url(url: str) -> str:
    """`url` if it names a database (`arena.storage.parse_url`), else a usage error."""
    from arena.storage import parse_url

    try:
        parse_url(url)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    return url


@click.group()
def db() -> None:
    """The server's database: copy, migrate, info."""


@db.command("copy")
@click.option("--from", "source", required=True, metavar="URL",
              help="The database to copy (a SQLite file or sqlite:///PATH, or postgresql://...).")
@click.option("--to", "target", required=True, metavar="URL",
              help="The database to copy into (made or brought up to date; empty unless "
                   "--overwrite).")
@click.option("--overwrite", is_flag=True,
              help="Delete the target's rows first (by default a target with rows is refused).")
@click.option("--batch", default=500, show_default=True, type=click.IntRange(1),
              help="Rows per transaction.")
def copy(source: str, target: str, overwrite: bool, batch: int) -> None:
    """Copy a whole database (accounts, games with their logs and seeds, ratings and their
    history, presets, running games' turns) into another, of either kind, and check the
    rows of every table."""
    from arena.storage import open_storage, parse_url
    from arena.storage.copy import CopyMismatch, TargetNotEmpty, copy_database

    check_url(source)
    check_url(target)
    if parse_url(source) == parse_url(target):
        raise click.UsageError("--from and --to name the same database")

    def progress(table: str, done: int, total: int) -> None:
        if done == total or (done and done % (batch * 20) == 0):  # a line per 20 batches
            click.echo(f"  {table}: {done}/{total} rows", err=True)

    async def run(source_storage: Storage) -> dict[str, int]:
        target_storage = await open_storage(target)
        try:
            return dict(await copy_database(source_storage, target_storage,
                                            overwrite=overwrite, batch=batch,
                                            progress=progress))
        finally:
            await target_storage.close()

    click.echo(f"copying {parse_url(source)} into {parse_url(target)}", err=True)
    try:
        counts = with_storage(source, run)
    except (TargetNotEmpty, CopyMismatch) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"copied {sum(counts.values())} rows; every table's rows counted again in the "
               "target: the same")


@db.command("migrate")
@DB_OPTION
def migrate(db: str) -> None:
    """Bring the database's schema up to date (what opening it does anyway), and say its
    version."""
    check_url(db)
    version = with_storage(db, lambda storage: storage.schema_version())
    click.echo(f"{_shown(db)}: schema version {version}")


@db.command("info")
@DB_OPTION
def info(db: str) -> None:
    """The database's kind, schema version and the rows of every table."""
    from arena.storage.copy import row_counts

    check_url(db)

    async def read(storage: Storage) -> tuple[str, int, dict[str, int]]:
        return storage.kind, await storage.schema_version(), await row_counts(storage)

    kind, version, counts = with_storage(db, read)
    click.echo(f"{_shown(db)}: {kind}, schema version {version}")
    width = max(map(len, counts), default=0)
    for table, count in counts.items():
        click.echo(f"  {table:{width}s} {count}")


def _shown(url: str) -> str:
    from arena.storage import parse_url

    return str(parse_url(url))
