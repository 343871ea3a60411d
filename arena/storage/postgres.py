"""PostgreSQL storage through asyncpg: a database several processes may share.

`PostgresStorage` keeps a pool of connections; each call takes one for its own
transaction, so calls run concurrently, and what must hold together is one transaction
(`finish_game`: result, log, ratings, the write-ahead turns dropped). Two games of one
bot that end at once are both rated, one from the other's result: `finish_game` locks
the players' rating rows (an upsert that makes a missing row and locks it either way)
one by one in the order of their names, so two such transactions wait for each other instead of
deadlocking or reading the same "before".

A failure of the database itself (a lost or refused connection, a full disk, a
read-only server, a refused write: `is_storage_failure`) raises `StorageFailure`, makes
the storage unhealthy and drops the pool's connections; the next test write that
succeeds (on a fresh connection) makes it healthy again.

The tables live in the connection's current schema: ``postgresql://host/db`` uses
``public``, and ``?search_path=NAME`` (any server setting may be given so) another one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Mapping,
    Sequence,
)
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import asyncpg

from arena.bot_logs import utc_day
from arena.clock import TimeControl
from arena.game import Outcome, Termination
from arena.metrics import STORAGE_SECONDS
from arena.names import GUEST_PREFIX, check_account_name
from arena.record import MatchRecord, to_jsonl, without_notes
from arena.seasons import Standing
from arena.seeds import seed_to_text
from arena.storage.interface import (
    CLAIM_LIMIT,
    COPIED_TABLES,
    PENDING_ENDS_SECONDS,
    PROBE_BYTES,
    RECOVERED,
    BotAccount,
    BuildRow,
    GameRow,
    Lease,
    PendingChallenge,
    RatingRow,
    RunningGame,
    SeasonRecord,
    Snapshot,
    Storage,
    StorageFailure,
    StorageVersionError,
    StoredGame,
    StoredTurn,
    check_bulk_names,
    hash_token,
    taken_error,
)
from arena.storage.migrations.postgres import MIGRATIONS
from arena.storage.postgres_people import PostgresPeople
from arena.storage.ratings import initial_rating, rate
from arena.storage.rows import (
    BUILD_COLUMNS,
    CHALLENGE_COLUMNS,
    GAME_COLUMNS,
    RATING_COLUMNS,
    RUNNING_COLUMNS,
    SEASON_COLUMNS,
    STANDING_COLUMNS,
    STANDING_ORDER,
    build_row,
    build_values,
    challenge_row,
    clocks_json,
    game_row,
    notes_bytes,
    pairings,
    running_game,
    season_record,
    standing,
    standing_values,
    stored_game,
    stored_ladder_name,
    stored_turn,
)
from arena.urls import redact

__all__ = ["PostgresStorage", "is_storage_failure", "redact"]

T = TypeVar("T")

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    Connection: TypeAlias = PoolConnectionProxy[asyncpg.Record]

_GAMES = GAME_COLUMNS.format(seed="seed")
_RUNNING = RUNNING_COLUMNS.format(seed="seed")
_RATING = RATING_COLUMNS
_SECONDS = STORAGE_SECONDS.labels("postgresql")
_NOW = "EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION"
"""The database's clock, in seconds since the epoch: the one clock of every host's leases."""

_FAILING_CLASSES = frozenset({"08", "53", "57", "58", "XX"})
"""SQLSTATE classes of a failing server: connection exceptions, insufficient resources
(a full disk, too many connections), operator intervention (shutdown, a terminated
connection), system errors, internal errors."""
_FAILING_STATES = frozenset({"25006", "42501"})
"""A read-only transaction (a standby, ``default_transaction_read_only``) and a refused
privilege: writes the database refuses, whatever they are."""

_MIGRATION_LOCK = 0x617265  # 'are': the key of the advisory lock taken while migrating

POOL_SIZE = 8
"""Connections a storage keeps at most (each call holds one for its transaction)."""
CONNECT_TIMEOUT = 10.0
"""Seconds to open a connection before the database counts as failing."""
COMMAND_TIMEOUT = 60.0
CLOSE_TIMEOUT = 10.0
"""Seconds `PostgresStorage.close` waits for the connections in use."""
"""Seconds one statement may take before the database counts as failing."""


def is_storage_failure(error: BaseException,
                       connection: Connection | asyncpg.Connection[asyncpg.Record] | None = None
                       ) -> bool:
    """Whether `error` says the database itself fails, not the request (a constraint):
    a failing network or server, or a refused write; with the `connection` the error
    came on, also asyncpg's word that the connection is closed."""
    if isinstance(error, OSError | TimeoutError | asyncpg.InternalClientError):
        return True  # (asyncpg's own state lost on a connection the server just closed)
    if isinstance(error, asyncpg.PostgresError):
        state = str(error.sqlstate or "")
        return state[:2] in _FAILING_CLASSES or state in _FAILING_STATES
    if isinstance(error, asyncpg.InterfaceError):
        return connection is not None and connection.is_closed()
    return False


def _database_failed(error: BaseException,
                     connection: Connection | asyncpg.Connection[asyncpg.Record] | None
                     ) -> bool:
    """Whether `error`, raised while a connection was made (`connection` None: refused)
    or used, says the database itself fails (`is_storage_failure`)."""
    if not isinstance(error, Exception):
        return False
    connecting = connection is None and isinstance(
        error, asyncpg.PostgresError | asyncpg.InterfaceError)  # refused to connect
    return connecting or is_storage_failure(error, connection)


_APPEND_TURNS = """
WITH unsynced AS (SELECT set_config('synchronous_commit', 'off', true))
INSERT INTO game_turns(game_id, idx, line, clocks, ended)
SELECT t.* FROM unsynced,
    unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::float8[]) AS t
"""
"""`Storage.append_turns` in one statement, so one round trip and one transaction of its
own: the moves survive the server's process, not a crash of PostgreSQL's machine, since
the commit does not wait for its WAL flush (``synchronous_commit`` off for this
transaction only; the next result's commit, synced, flushes it too)."""


async def _as_it_is(connection: asyncpg.Connection[asyncpg.Record]) -> None:
    """A connection goes back to the pool as it is (asyncpg rolls back a transaction
    left open first): this storage leaves no session state behind (no setting but
    for its transaction, no LISTEN, advisory lock or cursor past it). asyncpg's own
    reset (``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``) would cost
    every call a second round trip."""


async def _append_turns(db: asyncpg.Connection[asyncpg.Record],
                        values: tuple[list[Any], ...]) -> None:
    """`_APPEND_TURNS` of the columns `values`; a turn stored already raises ValueError."""
    try:
        await db.execute(_APPEND_TURNS, *values)
    except asyncpg.UniqueViolationError as error:
        raise ValueError(f"a turn is stored already ({error.detail})") from None


class PostgresStorage(PostgresPeople, Storage):
    """`Storage` on PostgreSQL (module docstring); open it with `open` or
    `arena.storage.open_storage`."""

    kind = "postgresql"
    write_concurrency = 4  # commits of other games in flight on their own connections

    def __init__(self, pool: asyncpg.Pool[asyncpg.Record], description: str, url: str) -> None:
        super().__init__(description)
        self._pool = pool
        self._url = url
        """How to open a writer connection."""
        self._writers: list[asyncpg.Connection[asyncpg.Record]] = []
        """Idle connections of their own for `append_turns`, at most `write_concurrency`:
        a stored move is one statement on one, no pool between (the pool's acquire and
        release cost a stored move three turns of the event loop)."""
        self._writing: set[asyncpg.Connection[asyncpg.Record]] = set()
        self._leaser: asyncpg.Connection[asyncpg.Record] | None = None
        """A connection of its own for a host's lease renewals and releases
        (`_on_leaser`), never queued behind the pool's other calls."""
        self._leasing = asyncio.Lock()

    @classmethod
    async def open(cls, url: str, *, pool_size: int = POOL_SIZE) -> PostgresStorage:
        """Connect to the database `url` (``postgresql://...``) and bring its schema up
        to date.

        Raises:
            StorageVersionError: the database was written by a newer arena.
            StorageFailure: it cannot be reached, or its schema cannot be made.
        """
        description = redact(url)
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=pool_size, timeout=CONNECT_TIMEOUT,
                command_timeout=COMMAND_TIMEOUT, reset=_as_it_is)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise StorageFailure(f"cannot connect to {description}: "
                                 f"{type(error).__name__}: {error}") from error
        try:
            async with pool.acquire() as connection:
                await _migrate(connection, description)
        except BaseException as error:
            await pool.close()
            if isinstance(error, asyncpg.PostgresError | OSError):
                raise StorageFailure(f"cannot prepare {description}: "
                                     f"{type(error).__name__}: {error}") from error
            raise
        return cls(pool, description, url)

    async def _run(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """``work(connection)`` on a connection of the pool (in a transaction if it
        opens one); a failure of the database raises `StorageFailure`. (A connection
        the server closed while idle is mostly replaced by the pool unnoticed: that is
        no failure, the database answers.)"""
        connection: Connection | None = None
        started = time.perf_counter()
        try:
            async with self._pool.acquire() as connection:
                return await work(connection)
        except Exception as error:
            if not _database_failed(error, connection):
                raise
            await self._pool.expire_connections()  # the next ones are fresh
            raise self._failed(error) from error
        finally:
            _SECONDS.observe(time.perf_counter() - started)

    async def _tx(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """`_run` with `work` in one transaction."""

        async def transaction(connection: Connection) -> T:
            async with connection.transaction():
                return await work(connection)

        return await self._run(transaction)

    async def _connect(self) -> asyncpg.Connection[asyncpg.Record]:
        """A connection of its own, outside the pool (the moves' writers, the leases')."""
        return await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT,
                                     command_timeout=COMMAND_TIMEOUT)

    async def _on_leaser(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """``work(connection)`` on the leases' own connection (opened when first needed,
        again after a failure). A loaded host's pool is often all taken, with calls
        waiting for it (games started, finished, resumed, looked up); a renewal queued
        behind them took over half a lease and the host lost every game it played
        (docs/cluster.md, "Host leases"): on a connection of its own it waits for
        nothing but the database."""
        async with self._leasing:
            connection = self._leaser
            started = time.perf_counter()
            try:
                if connection is None or connection.is_closed():
                    connection = None
                    connection = self._leaser = await self._connect()
                return await work(connection)  # type: ignore[arg-type]
            except BaseException as error:
                if connection is not None:  # mid-statement, or failing: a fresh one next
                    connection.terminate()
                self._leaser = None
                if _database_failed(error, connection):
                    raise self._failed(error) from error
                raise
            finally:
                _SECONDS.observe(time.perf_counter() - started)

    async def close(self) -> None:
        if self._leaser is not None:
            self._leaser.terminate()
            self._leaser = None
        for writer in [*self._writers, *self._writing]:
            writer.terminate()  # (its moves, if any are on their way, are not told)
        self._writers.clear()
        try:  # connections in use are waited for, a while
            await asyncio.wait_for(self._pool.close(), CLOSE_TIMEOUT)
        except TimeoutError:
            self._pool.terminate()  # a connection that never came back (a stuck server)

    async def schema_version(self) -> int:
        return await self._run(_version)

    async def check_writable(self) -> None:
        async def work(db: Connection) -> None:
            await db.execute("INSERT INTO probe(data) VALUES ($1)", bytes(PROBE_BYTES))
            await db.execute("DELETE FROM probe")

        await self._tx(work)

    # -- accounts --------------------------------------------------------------------

    async def add_bot(self, name: str, *, operator: bool = False, replace: bool = False) -> str:
        check_account_name(name)
        return await self._add_account(name, operator=operator, replace=replace)

    async def add_bots(self, names: Sequence[str], *, operator: bool = False) -> dict[str, str]:
        names = check_bulk_names(names)
        tokens = {name: secrets.token_urlsafe(32) for name in names}
        hashes = await asyncio.to_thread(lambda: [hash_token(t) for t in tokens.values()])
        now = time.time()

        async def work(db: Connection) -> None:
            taken = await db.fetch(
                "SELECT name FROM bots WHERE name = ANY($1::text[]) AND revoked IS NULL"
                " FOR UPDATE", names)
            if taken:
                raise taken_error([row[0] for row in taken])
            await db.execute(
                "INSERT INTO bots(name, token_hash, created, revoked, operator, expires)"
                " SELECT name, token_hash, $3, NULL, $4, NULL"
                " FROM unnest($1::text[], $2::text[]) AS new(name, token_hash)"
                " ON CONFLICT (name) DO UPDATE SET token_hash = excluded.token_hash,"
                " created = excluded.created, revoked = NULL, operator = excluded.operator,"
                " expires = excluded.expires", names, hashes, now, operator)

        await self._tx(work)
        return tokens

    async def add_guest(self, lifetime: float) -> tuple[str, str]:
        name = GUEST_PREFIX + secrets.token_hex(4)
        return name, await self._add_account(name, expires=time.time() + lifetime)

    async def _add_account(self, name: str, *, operator: bool = False, replace: bool = False,
                           expires: float | None = None) -> str:
        token = secrets.token_urlsafe(32)

        async def work(db: Connection) -> None:
            revoked = await db.fetchrow("SELECT revoked FROM bots WHERE name = $1 FOR UPDATE",
                                        name)
            if revoked is not None and revoked[0] is None and not replace:
                raise ValueError(f"bot {name!r} exists")
            await db.execute(
                "INSERT INTO bots(name, token_hash, created, revoked, operator, expires)"
                " VALUES ($1, $2, $3, NULL, $4, $5) ON CONFLICT (name) DO UPDATE SET"
                " token_hash = excluded.token_hash, created = excluded.created, revoked = NULL,"
                " operator = excluded.operator, expires = excluded.expires",
                name, hash_token(token), time.time(), operator, expires)

        await self._tx(work)
        return token

    async def revoke_bot(self, name: str) -> bool:
        status = await self._run(lambda db: db.execute(
            "UPDATE bots SET revoked = $1, token_hash = NULL WHERE name = $2 AND revoked IS NULL",
            time.time(), name))
        return _affected(status) > 0

    async def token_hashes(self, names: Iterable[str]) -> dict[str, str]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT name, token_hash FROM bots WHERE revoked IS NULL"
            " AND (expires IS NULL OR expires > $1) AND name = ANY($2::text[])",
            time.time(), sorted(set(names))))
        return {row[0]: row[1] for row in rows}

    async def authenticate(self, token: str) -> BotAccount | None:
        row = await self._run(lambda db: db.fetchrow(
            "SELECT name, operator, created, owner FROM bots WHERE token_hash = $1"
            " AND revoked IS NULL AND (expires IS NULL OR expires > $2)",
            hash_token(token), time.time()))
        return None if row is None else BotAccount(row[0], row[1], False, row[2], row[3])

    async def purge_expired(self) -> int:
        now = time.time()
        await self.purge_people(now)
        status = await self._run(lambda db: db.execute(
            "DELETE FROM bots WHERE expires IS NOT NULL AND expires <= $1", now))
        await self._run(lambda db: db.execute(
            "DELETE FROM pending_ends WHERE created <= $1", now - PENDING_ENDS_SECONDS))
        return _affected(status)

    async def bots(self) -> list[BotAccount]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT name, operator, revoked, created, owner FROM bots ORDER BY name"))
        return [BotAccount(r[0], r[1], r[2] is not None, r[3], r[4]) for r in rows]

    # -- games -----------------------------------------------------------------------

    async def start_game(self, record: MatchRecord, *, ladder: bool, pair: str | None,
                         time_control: TimeControl | None = None,
                         ladder_name: str | None = None, host: str | None = None,
                         lease: float = 0.0) -> None:
        async def work(db: Connection) -> None:
            try:
                await db.execute(
                    "INSERT INTO games(id, game, settings, players, seed, seed_commitment,"
                    " time_control, ladder, pair, status, started, ladder_name, host,"
                    " lease_until)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'running', $10, $11, $12::text,"
                    f" CASE WHEN $12::text IS NULL THEN NULL ELSE {_NOW} + $13 END)",
                    record.id, record.game, json.dumps(record.settings),
                    json.dumps(record.players),
                    None if record.seed is None else seed_to_text(record.seed),
                    record.seed_commitment,
                    None if time_control is None else json.dumps(time_control.to_json()),
                    ladder, pair, time.time(), stored_ladder_name(record, ladder, ladder_name),
                    host, lease)
            except asyncpg.UniqueViolationError:
                raise ValueError(f"a game {record.id!r} is stored already") from None
            await db.executemany(  # with each bot's current version (a person's bot has one)
                "INSERT INTO game_players(game_id, seat, bot, version) VALUES ($1, $2, $3,"
                " (SELECT MAX(version) FROM bot_versions WHERE bot = $3))",
                [(record.id, seat, name) for seat, name in enumerate(record.players)])

        await self._tx(work)

    async def append_turns(self, turns: Sequence[StoredTurn]) -> None:
        if not turns:
            return
        values = ([turn.game_id for turn in turns], [turn.index for turn in turns],
                  [turn.line for turn in turns], [clocks_json(turn) for turn in turns],
                  [turn.ended for turn in turns])
        writer: asyncpg.Connection[asyncpg.Record] | None = None
        started = time.perf_counter()
        try:
            while self._writers and writer is None:
                writer = self._writers.pop()
                if writer.is_closed():
                    writer = None
            if writer is None:
                writer = await self._connect()
            self._writing.add(writer)
            await _append_turns(writer, values)
        except BaseException as error:
            failing = _database_failed(error, writer)
            if writer is not None:
                self._writing.discard(writer)
                if isinstance(error, ValueError):  # a turn stored twice: the connection is fine
                    self._writers.append(writer)
                    raise
                writer.terminate()  # mid-statement, or failing: never used again
            if not failing:
                raise
            for idle in self._writers:  # (they are likely gone too)
                idle.terminate()
            self._writers.clear()
            raise self._failed(error) from error
        else:
            self._writing.discard(writer)
            if len(self._writers) < self.write_concurrency:
                self._writers.append(writer)
            else:
                writer.terminate()
        finally:
            _SECONDS.observe(time.perf_counter() - started)

    async def running_games(self, ids: Collection[str] | None = None) -> list[RunningGame]:
        chosen = "" if ids is None else " AND g.id = ANY($1::text[])"
        args = () if ids is None else (list(ids),)

        async def work(db: Connection) -> list[RunningGame]:
            async with db.transaction(isolation="repeatable_read", readonly=True):
                games = await db.fetch(f"SELECT {_RUNNING} FROM games g WHERE status = 'running'"
                                       f"{chosen} ORDER BY started, seq", *args)
                turns: dict[str, list[StoredTurn]] = {row[0]: [] for row in games}
                for game_id, index, line, clocks, ended in await db.fetch(
                        "SELECT t.game_id, t.idx, t.line, t.clocks, t.ended FROM game_turns t"
                        f" JOIN games g ON g.id = t.game_id WHERE g.status = 'running'{chosen}"
                        " ORDER BY t.game_id, t.idx", *args):
                    turns[game_id].append(
                        stored_turn(game_id, index, line, clocks, ended))
            return [running_game(tuple(row), turns[row[0]]) for row in games]

        return await self._run(work)

    async def finish_game(self, record: MatchRecord, *, rated: bool = False,
                          log: str | None = None,
                          pending: Collection[str] = ()) -> list[RatingRow]:
        outcome = record.outcome
        assert outcome is not None
        text = to_jsonl(record) if log is None else log
        log_bytes = notes_bytes(record)

        async def work(db: Connection) -> list[RatingRow]:
            now = time.time()
            await db.execute(
                "UPDATE games SET status = $1, result = $2, winner = $3, scores = $4,"
                " termination = $5, reason = $6, turns = $7, finished = $8, log = $9,"
                " notes_bytes = $10 WHERE id = $11",
                "aborted" if outcome.result == "aborted" else "finished", outcome.result,
                outcome.winner, json.dumps(list(outcome.scores)) if outcome.scores else None,
                outcome.termination.value, outcome.detail, len(record.turns), now,
                text, sum(log_bytes.values()), record.id)
            if log_bytes:  # in the order of the names, like the ratings' locks
                await db.executemany(
                    "INSERT INTO log_bytes(bot, day, bytes) VALUES ($1, $2, $3) ON CONFLICT"
                    " (bot, day) DO UPDATE SET bytes = log_bytes.bytes + excluded.bytes",
                    [(bot, utc_day(now), size) for bot, size in sorted(log_bytes.items())])
            await db.execute("DELETE FROM game_turns WHERE game_id = $1", record.id)
            if pending:
                await db.executemany(
                    "INSERT INTO pending_ends(bot, game_id, created) VALUES ($1, $2, $3)"
                    " ON CONFLICT (bot, game_id) DO NOTHING",
                    [(bot, record.id, now) for bot in sorted(set(pending))])
            if not rated or outcome.result == "aborted":
                return []
            ladder = await db.fetchval("SELECT ladder_name FROM games WHERE id = $1",
                                       record.id) or record.game
            current: dict[str, RatingRow] = {}
            for bot in sorted(set(record.players)):  # one order for every transaction
                # the row, made if missing, locked until the commit (a game of this bot
                # ending meanwhile waits here and then reads this one's result)
                fresh = initial_rating(bot, record.game, ladder)
                row = await db.fetchrow(
                    "INSERT INTO ratings(bot, game, mu, sigma, updated, ladder)"
                    " VALUES ($1, $2, $3, $4, $5, $6)"
                    " ON CONFLICT (bot, ladder) DO UPDATE SET bot = excluded.bot"
                    f" RETURNING {_RATING}", bot, record.game, fresh.mu, fresh.sigma, now, ladder)
                assert row is not None
                current[bot] = RatingRow(*row)
            before = [current[bot] for bot in record.players]
            after = rate(before, outcome)
            await db.executemany(
                "UPDATE ratings SET mu = $3, sigma = $4, games = $5, wins = $6, losses = $7,"
                " draws = $8, updated = $9 WHERE bot = $1 AND ladder = $2",
                [(new.bot, new.ladder, new.mu, new.sigma, new.games, new.wins, new.losses,
                  new.draws, now) for new in after])
            await db.executemany(
                "INSERT INTO rating_updates VALUES ($1, $2, $3, $4, $5, $6)",
                [(record.id, new.bot, old.mu, old.sigma, new.mu, new.sigma)
                 for old, new in zip(before, after, strict=True)])
            return after

        return await self._tx(work)

    async def recover(self, detail: str = RECOVERED) -> list[str]:
        running = await self._run(lambda db: db.fetch(
            "SELECT id, game, settings, players, seed, seed_commitment FROM games"
            " WHERE status = 'running' ORDER BY seq"))
        for game_id, game, settings, players, seed, commitment in running:
            await self.finish_game(MatchRecord(
                game=game, settings=json.loads(settings), players=tuple(json.loads(players)),
                turns=(), outcome=Outcome(None, None, Termination.ABORTED, detail=detail),
                seed=None if seed is None else int(seed), id=game_id,
                seed_commitment=commitment))
        return [row[0] for row in running]

    async def ladder_pairings(self, since: float,
                              ladder: str | None = None) -> list[tuple[float, str, str]]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT MIN(started), MIN(players) FROM games WHERE started >= $1"
            " AND ladder_name IS NOT NULL AND pair IS NOT NULL"
            " AND ($2::TEXT IS NULL OR ladder_name = $2)"
            " GROUP BY pair", since, ladder))
        return pairings(tuple(row) for row in rows)

    async def log_bytes(self, bot: str, day: int) -> int:
        size = await self._run(lambda db: db.fetchval(
            "SELECT bytes FROM log_bytes WHERE bot = $1 AND day = $2", bot, day))
        return int(size or 0)

    async def drop_old_notes(self, before: float, limit: int = 100) -> int:
        async def work(db: Connection) -> int:
            rows = await db.fetch(
                "SELECT id, log FROM games WHERE notes_bytes IS DISTINCT FROM 0"
                " AND finished < $1 ORDER BY finished LIMIT $2 FOR UPDATE", before, limit)
            for game_id, log in rows:
                kept = without_notes(log) if log else log
                await db.execute("UPDATE games SET log = $1, notes_bytes = 0 WHERE id = $2",
                                 kept, game_id)
            await db.execute("DELETE FROM log_bytes WHERE day < $1", utc_day(before))
            return len(rows)

        return await self._tx(work)

    async def games(self, *, bot: str | None = None, game: str | None = None,
                    status: str | None = None, limit: int = 50,
                    before: float | None = None, ladder: str | None = None) -> list[GameRow]:
        where: list[str] = []
        args: list[Any] = []
        for condition, value in (
                ("id IN (SELECT game_id FROM game_players WHERE bot = ${})", bot),
                ("game = ${}", game), ("status = ${}", status), ("started < ${}", before),
                ("ladder_name = ${}", ladder)):
            if value is not None:
                args.append(value)
                where.append(condition.format(len(args)))
        sql = f"SELECT {_GAMES} FROM games"
        if where:
            sql += " WHERE " + " AND ".join(where)
        args.append(limit)
        sql += f" ORDER BY started DESC, seq DESC LIMIT ${len(args)}"
        rows = await self._run(lambda db: db.fetch(sql, *args))
        return [game_row(tuple(row)) for row in rows]

    async def game(self, game_id: str) -> StoredGame | None:
        row = await self._run(lambda db: db.fetchrow(
            f"SELECT {_GAMES}, settings, log FROM games WHERE id = $1", game_id))
        return None if row is None else stored_game(tuple(row))

    # -- ratings ---------------------------------------------------------------------

    async def rating(self, bot: str, ladder: str) -> RatingRow | None:
        row = await self._run(lambda db: db.fetchrow(
            f"SELECT {_RATING} FROM ratings WHERE bot = $1 AND ladder = $2", bot, ladder))
        return None if row is None else RatingRow(*row)

    async def leaderboard(self, ladder: str | None = None) -> list[RatingRow]:
        if ladder is None:
            rows = await self._run(lambda db: db.fetch(f"SELECT {_RATING} FROM ratings"))
        else:
            rows = await self._run(lambda db: db.fetch(
                f"SELECT {_RATING} FROM ratings WHERE ladder = $1", ladder))
        return sorted((RatingRow(*row) for row in rows), key=lambda r: (-r.conservative, r.bot))

    async def rating_history(self, ladder: str | None = None) -> dict[str, list[list[float]]]:
        sql = ("SELECT u.bot, g.finished, u.mu_after, u.sigma_after FROM rating_updates u"
               " JOIN games g ON g.id = u.game_id")
        args: tuple[Any, ...] = ()
        if ladder is not None:
            sql += " WHERE COALESCE(g.ladder_name, g.game) = $1"
            args = (ladder,)
        sql += " ORDER BY g.finished, g.seq"
        history: dict[str, list[list[float]]] = {}
        for bot, finished, mu, sigma in await self._run(lambda db: db.fetch(sql, *args)):
            history.setdefault(bot, []).append([finished, round(mu - 3 * sigma, 3)])
        return history

    # -- settings presets ------------------------------------------------------------

    async def freeze_season(self, name: str, ladder: str, standings: Sequence[Standing],
                            at: float, settings: Mapping[str, Any] | None = None) -> bool:
        async def work(db: Connection) -> bool:
            status = await db.execute(
                "INSERT INTO seasons(name, ladder, settings, frozen) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (name) DO NOTHING", name, ladder,
                None if settings is None else json.dumps(settings), at)
            if not _affected(status):
                return False
            await db.executemany(
                f"INSERT INTO season_standings(season, {STANDING_COLUMNS})"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                [standing_values(name, row) for row in standings])
            return True

        return await self._tx(work)

    async def seasons(self) -> list[SeasonRecord]:
        rows = await self._run(lambda db: db.fetch(
            f"SELECT {SEASON_COLUMNS} FROM seasons ORDER BY frozen DESC, name"))
        return [season_record(tuple(row)) for row in rows]

    async def season(self, name: str) -> SeasonRecord | None:
        row = await self._run(lambda db: db.fetchrow(
            f"SELECT {SEASON_COLUMNS} FROM seasons WHERE name = $1", name))
        return None if row is None else season_record(tuple(row))

    async def season_standings(self, name: str) -> list[Standing]:
        rows = await self._run(lambda db: db.fetch(
            f"SELECT {STANDING_COLUMNS} FROM season_standings WHERE season = $1"
            f"{STANDING_ORDER}", name))
        return [standing(tuple(row)) for row in rows]

    async def claim_season_final(self, name: str, at: float, stale_before: float) -> bool:
        status = await self._run(lambda db: db.execute(
            "UPDATE seasons SET final_status = 'running', final_report = NULL,"
            " final_updated = $1 WHERE name = $2 AND (final_status IS NULL OR"
            " (final_status = 'running' AND final_updated < $3))", at, name, stale_before))
        return _affected(status) > 0

    async def set_season_final(self, name: str, status: str,
                               report: Mapping[str, Any] | None, at: float) -> None:
        changed = await self._run(lambda db: db.execute(
            "UPDATE seasons SET final_status = $1, final_report = $2, final_updated = $3"
            " WHERE name = $4", status, None if report is None else json.dumps(report), at,
            name))
        if not _affected(changed):
            raise ValueError(f"no season {name!r} is stored")

    async def pending_ends(self, bots: Collection[str], *, before: float | None = None,
                           limit: int = 1000) -> list[tuple[str, GameRow]]:
        rows = await self._run(lambda db: db.fetch(
            f"SELECT p.bot, {_GAMES} FROM pending_ends p JOIN games ON games.id = p.game_id"
            " WHERE p.bot = ANY($1::text[]) AND p.created < $2"
            " ORDER BY p.created, p.bot, p.game_id LIMIT $3",
            list(bots), float("inf") if before is None else before, limit))
        return [(row[0], game_row(tuple(row)[1:])) for row in rows]

    async def drop_pending_ends(self, ends: Collection[tuple[str, str]]) -> None:
        if ends:
            await self._run(lambda db: db.execute(
                "DELETE FROM pending_ends WHERE (bot, game_id) IN"
                " (SELECT * FROM unnest($1::text[], $2::text[]))",
                [bot for bot, _ in ends], [game_id for _, game_id in ends]))

    async def put_challenge(self, challenge: PendingChallenge) -> None:
        await self._run(lambda db: db.execute(
            "INSERT INTO pending_challenges(id, challenger, opponent, rated, ladder, expires,"
            " games, seat, request_id, asked, keeper)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
            " ON CONFLICT (id) DO UPDATE SET asked = excluded.asked,"
            " expires = excluded.expires WHERE pending_challenges.keeper = excluded.keeper"
            " AND pending_challenges.ended IS NULL",
            challenge.id, challenge.challenger, challenge.opponent, challenge.rated,
            challenge.ladder, challenge.expires, challenge.games, challenge.seat,
            challenge.request_id, challenge.asked, challenge.keeper))

    async def end_challenge(self, challenge_id: str, keeper: str, fields: Mapping[str, Any],
                            at: float) -> bool:
        status = await self._run(lambda db: db.execute(
            "UPDATE pending_challenges SET ended = $1, ended_at = $2"
            " WHERE id = $3 AND keeper = $4 AND ended IS NULL",
            json.dumps(dict(fields)), at, challenge_id, keeper))
        return _affected(status) > 0

    async def take_challenges(self, keeper: str) -> list[PendingChallenge]:
        rows = await self._run(lambda db: db.fetch(
            "UPDATE pending_challenges SET keeper = $1 WHERE ended IS NULL"
            f" RETURNING {CHALLENGE_COLUMNS}", keeper))
        return sorted((challenge_row(row) for row in rows), key=lambda c: (c.expires, c.id))

    async def pending_challenges(self) -> list[PendingChallenge]:
        rows = await self._run(lambda db: db.fetch(
            f"SELECT {CHALLENGE_COLUMNS} FROM pending_challenges WHERE ended IS NULL"
            " ORDER BY expires, id"))
        return [challenge_row(row) for row in rows]

    async def challenge(self, challenge_id: str) -> PendingChallenge | None:
        row = await self._run(lambda db: db.fetchrow(
            f"SELECT {CHALLENGE_COLUMNS} FROM pending_challenges WHERE id = $1",
            challenge_id))
        return None if row is None else challenge_row(row)

    async def charge_challenge(self, account: str, at: float) -> None:
        await self._run(lambda db: db.execute(
            "INSERT INTO challenges_sent(account, sent) VALUES ($1, $2)", account, at))

    async def challenges_charged(self, since: float) -> list[tuple[str, float]]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT account, sent FROM challenges_sent WHERE sent >= $1 ORDER BY sent",
            since))
        return [(row[0], float(row[1])) for row in rows]

    async def forget_challenges(self, before: float) -> None:
        async def forget(db: Connection) -> None:
            await db.execute("DELETE FROM pending_challenges WHERE ended_at < $1", before)
            await db.execute("DELETE FROM challenges_sent WHERE sent < $1", before)
        await self._run(forget)

    async def save_preset(self, game: str, name: str, text: str) -> None:
        await self._run(lambda db: db.execute(
            "INSERT INTO presets(game, name, text, created) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (game, name) DO UPDATE SET text = excluded.text,"
            " created = excluded.created", game, name, text, time.time()))

    async def presets(self, game: str) -> list[tuple[str, str]]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT name, text FROM presets WHERE game = $1 ORDER BY name", game))
        return [(row[0], row[1]) for row in rows]

    async def preset_count(self) -> int:
        return int(await self._run(lambda db: db.fetchval("SELECT COUNT(*) FROM presets")))

    async def preset(self, game: str, name: str) -> str | None:
        text = await self._run(lambda db: db.fetchval(
            "SELECT text FROM presets WHERE game = $1 AND name = $2", game, name))
        return None if text is None else str(text)

    async def delete_preset(self, game: str, name: str) -> bool:
        status = await self._run(lambda db: db.execute(
            "DELETE FROM presets WHERE game = $1 AND name = $2", game, name))
        return _affected(status) > 0

    # -- hosted bots' builds -----------------------------------------------------------

    async def save_build(self, build: BuildRow) -> None:
        placeholders = ", ".join(f"${n}" for n in range(1, len(BUILD_COLUMNS) + 1))
        updates = ", ".join(f"{column} = excluded.{column}" for column in BUILD_COLUMNS[1:])
        await self._run(lambda db: db.execute(
            f"INSERT INTO bot_builds({', '.join(BUILD_COLUMNS)}) VALUES ({placeholders})"
            f" ON CONFLICT (id) DO UPDATE SET {updates}", *build_values(build)))

    async def build(self, build_id: str) -> BuildRow | None:
        row = await self._run(lambda db: db.fetchrow(
            f"SELECT {', '.join(BUILD_COLUMNS)} FROM bot_builds WHERE id = $1", build_id))
        return None if row is None else build_row(row)

    async def builds(self, bot: str | None = None, *, status: str | None = None,
                     limit: int = 50) -> list[BuildRow]:
        rows = await self._run(lambda db: db.fetch(
            f"SELECT {', '.join(BUILD_COLUMNS[:-1])} FROM bot_builds"
            " WHERE ($1::text IS NULL OR bot = $1) AND ($2::text IS NULL OR status = $2)"
            " ORDER BY created DESC, id DESC LIMIT $3", bot, status, limit))
        return [build_row(row) for row in rows]

    async def save_stderr(self, game_id: str, bot: str, text: str) -> None:
        await self._run(lambda db: db.execute(
            "INSERT INTO hosted_stderr(game_id, bot, created, text) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (game_id, bot) DO UPDATE SET created = excluded.created,"
            " text = excluded.text", game_id, bot, time.time(), text))

    async def stderr(self, game_id: str, bot: str) -> str | None:
        text = await self._run(lambda db: db.fetchval(
            "SELECT text FROM hosted_stderr WHERE game_id = $1 AND bot = $2", game_id, bot))
        return None if text is None else str(text)

    async def drop_old_stderr(self, before: float) -> int:
        status = await self._run(lambda db: db.execute(
            "DELETE FROM hosted_stderr WHERE created < $1", before))
        return _affected(status)

    # -- copying ---------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Snapshot]:
        async with contextlib.AsyncExitStack() as stack:
            try:
                connection = await stack.enter_async_context(self._pool.acquire())
                await stack.enter_async_context(connection.transaction(
                    isolation="repeatable_read", readonly=True))
            except Exception as error:
                if is_storage_failure(error):
                    raise self._failed(error) from error
                raise
            yield _PostgresSnapshot(connection, self)

    async def insert_rows(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        columns = COPIED_TABLES[_table(table)]
        sql = (f"INSERT INTO {table}({', '.join(columns)}) "
               f"VALUES ({', '.join(f'${i}' for i in range(1, len(columns) + 1))})")
        await self._tx(lambda db: db.executemany(sql, rows))

    async def clear(self) -> None:
        await self._run(lambda db: db.execute(f"TRUNCATE {', '.join(COPIED_TABLES)}"))

    # -- host leases -------------------------------------------------------------------
    # One statement each, on the database's clock (`_NOW`): an UPDATE that waits for
    # another's row lock re-reads the row before it writes, so two hosts never both
    # take a game; `claim_expired` skips the rows other claims hold (SKIP LOCKED).

    async def lease_game(self, game_id: str, host: str, seconds: float) -> bool:
        status = await self._run(lambda db: db.execute(
            f"UPDATE games SET host = $2, lease_until = {_NOW} + $3 WHERE id = $1"
            f" AND status = 'running' AND (host IS NULL OR host = $2 OR lease_until <= {_NOW})",
            game_id, host, seconds))
        return _affected(status) > 0

    async def renew_leases(self, host: str, seconds: float) -> list[str]:
        rows = await self._on_leaser(lambda db: db.fetch(
            f"UPDATE games SET lease_until = {_NOW} + $2 WHERE host = $1"
            " AND status = 'running' RETURNING id", host, seconds))
        return [row[0] for row in rows]

    async def claim_expired(self, host: str, seconds: float,
                            limit: int = CLAIM_LIMIT) -> list[str]:
        rows = await self._run(lambda db: db.fetch(
            f"UPDATE games SET host = $1, lease_until = {_NOW} + $2 WHERE id IN ("
            " SELECT id FROM games WHERE status = 'running'"
            f" AND (host IS NULL OR lease_until <= {_NOW})"
            " ORDER BY started, seq LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id, started, seq",
            host, seconds, limit))
        return [row[0] for row in sorted(rows, key=lambda row: (row[1], row[2]))]

    async def release_leases(self, host: str) -> list[str]:
        rows = await self._on_leaser(lambda db: db.fetch(
            "UPDATE games SET lease_until = 0 WHERE host = $1 AND status = 'running'"
            " RETURNING id", host))
        return [row[0] for row in rows]

    async def leases(self) -> list[Lease]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT id, host, lease_until FROM games WHERE status = 'running'"
            " ORDER BY started, seq"))
        return [Lease(*row) for row in rows]


class _PostgresSnapshot(Snapshot):
    def __init__(self, connection: Connection, storage: PostgresStorage) -> None:
        self._db = connection
        self._storage = storage

    async def count(self, table: str) -> int:
        try:
            return int(await self._db.fetchval(f"SELECT COUNT(*) FROM {_table(table)}"))
        except Exception as error:
            if is_storage_failure(error, self._db):
                raise self._storage._failed(error) from error
            raise

    async def rows(self, table: str, batch: int) -> AsyncIterator[list[tuple[Any, ...]]]:
        order = " ORDER BY seq" if table == "games" else ""
        try:
            cursor = await self._db.cursor(
                f"SELECT {', '.join(COPIED_TABLES[_table(table)])} FROM {table}{order}")
            while rows := await cursor.fetch(batch):
                yield [tuple(row) for row in rows]
        except Exception as error:
            if is_storage_failure(error, self._db):
                raise self._storage._failed(error) from error
            raise


def _table(name: str) -> str:
    """`name` if it is a table of `COPIED_TABLES` (never an arbitrary text in SQL)."""
    if name not in COPIED_TABLES:
        raise ValueError(f"no table {name!r} (tables: {', '.join(COPIED_TABLES)})")
    return name




def _affected(status: str) -> int:
    """The row count of a command status (``UPDATE 1``, ``DELETE 0``)."""
    return int(status.rpartition(" ")[2] or 0)


async def _version(db: Connection) -> int:
    version = await db.fetchval("SELECT version FROM schema_version")
    return int(version or 0)


async def _migrate(db: Connection, description: str) -> None:
    """Bring the schema up to date, one step of `MIGRATIONS` at a time, each in its own
    transaction with its new version number, under an advisory lock on the schema.

    Raises:
        StorageVersionError: the database is of a later version than this code.
        StorageFailure: the connection has no schema to make tables in.
    """
    schema = await db.fetchval("SELECT current_schema()")
    if schema is None:
        raise StorageFailure(f"{description}: no schema of its search_path exists "
                             "(CREATE SCHEMA it first)")
    await db.execute("SELECT pg_advisory_lock($1, hashtext(current_schema()))", _MIGRATION_LOCK)
    try:
        await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        version = await db.fetchval("SELECT version FROM schema_version")
        if version is None:
            await db.execute("INSERT INTO schema_version VALUES (0)")
            version = 0
        latest = len(MIGRATIONS)
        if version > latest:
            raise StorageVersionError(
                f"{description} (schema {schema}) has schema version {version}; this arena "
                f"reads up to {latest} (it was written by a newer arena)")
        for step in range(version, latest):
            async with db.transaction():
                await db.execute(MIGRATIONS[step])
                await db.execute("UPDATE schema_version SET version = $1", step + 1)
    finally:
        await db.execute("SELECT pg_advisory_unlock($1, hashtext(current_schema()))",
                         _MIGRATION_LOCK)
