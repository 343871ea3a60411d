"""Which database a ``--db`` names: a file path or ``sqlite:///PATH`` for SQLite,
``postgresql://...`` for PostgreSQL (`open_storage`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arena.storage.interface import Storage
from arena.urls import redact

__all__ = ["DatabaseUrl", "open_storage", "parse_url"]

SQLITE_PREFIX = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@dataclass(frozen=True)
class DatabaseUrl:
    """A parsed ``--db``: the backend and what it opens (a file path, or the URL)."""

    kind: Literal["sqlite", "postgresql"]
    target: str

    def __str__(self) -> str:
        """For people: a PostgreSQL URL without its password."""
        if self.kind == "sqlite":
            return self.target
        return redact(self.target)


def parse_url(url: str) -> DatabaseUrl:
    """Parse a ``--db`` value.

    ``sqlite:///arena.sqlite`` is the file ``arena.sqlite`` (relative), ``sqlite:////var/
    arena.sqlite`` an absolute path (SQLAlchemy's convention); anything without
    ``://`` is a file path.

    Raises:
        ValueError: a URL of another kind, or one that names nothing.

    Example:
        >>> parse_url("arena.sqlite"), parse_url("sqlite:////srv/a.db").target
        (DatabaseUrl(kind='sqlite', target='arena.sqlite'), '/srv/a.db')
        >>> str(parse_url("postgresql://arena:secret@db.example/arena"))
        'postgresql://arena:***@db.example/arena'
    """
    text = url.strip()
    if text.startswith(POSTGRES_SCHEMES):
        return DatabaseUrl("postgresql", text)
    if text.startswith(SQLITE_PREFIX):
        path = text[len(SQLITE_PREFIX):]
        if not path:
            raise ValueError(f"--db {url!r}: give the file, as sqlite:///PATH")
        return DatabaseUrl("sqlite", path)
    if "://" in text or not text:
        raise ValueError(
            f"--db {url!r}: give a file path, sqlite:///PATH or postgresql://USER@HOST/DATABASE")
    return DatabaseUrl("sqlite", text)


async def open_storage(url: str) -> Storage:
    """Open the database `url` names (`parse_url`), making it or bringing its schema up
    to date as needed; close it with `Storage.close`.

    Raises:
        ValueError: `url` names no database the arena can use.
        StorageVersionError: the database was written by a newer arena.
        StorageFailure: it cannot be opened, reached or prepared.
    """
    parsed = parse_url(url)
    if parsed.kind == "postgresql":
        from arena.storage.postgres import PostgresStorage  # asyncpg only when used

        return await PostgresStorage.open(parsed.target)
    from arena.storage.sqlite import SQLiteStorage

    return await SQLiteStorage.open(parsed.target)
