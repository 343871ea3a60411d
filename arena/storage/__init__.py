"""The arena's storage: one typed async interface (`Storage`), two databases behind it.

SQLite (`arena.storage.sqlite`) is the embedded default, one file; PostgreSQL
(`arena.storage.postgres`, through asyncpg) is a database several processes may share.
`open_storage` opens either from a ``--db`` URL. The server, the web, the command line
and game plugins use storage through this package; it imports none of them.
See docs/server.md ("Storage").
"""

from arena.storage.interface import (
    BotAccount,
    BuildRow,
    GameRow,
    Lease,
    PendingChallenge,
    RatingRow,
    RunningGame,
    Storage,
    StorageFailure,
    StorageVersionError,
    StoredGame,
    StoredTurn,
    commit_in_task,
    hash_token,
)
from arena.storage.people import AccountLimit, BotVersion, OwnedBot, Person
from arena.storage.urls import DatabaseUrl, open_storage, parse_url

__all__ = [
    "AccountLimit",
    "BotAccount",
    "BotVersion",
    "BuildRow",
    "DatabaseUrl",
    "GameRow",
    "Lease",
    "OwnedBot",
    "PendingChallenge",
    "Person",
    "RatingRow",
    "RunningGame",
    "Storage",
    "StorageFailure",
    "StorageVersionError",
    "StoredGame",
    "StoredTurn",
    "commit_in_task",
    "hash_token",
    "open_storage",
    "parse_url",
]
