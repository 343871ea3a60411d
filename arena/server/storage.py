"""SQLite storage: bot accounts, games with their logs, ratings.

Durability is the point: `finish_game` writes the result, the log and the rating
updates in one transaction (``synchronous=FULL`` in WAL mode) and returns only after
the commit, so whatever the server announces afterwards survives a ``kill -9``. A game
row is written when the game starts (status ``running``); `recover` marks the rows a
crash left running as aborted, with a log, when the server starts again.

The class is synchronous and not thread-safe; the server calls it from one worker
thread (`AsyncStorage`) so the event loop never waits on the disk. `AsyncStorage` also
keeps the database's health: a failure of the database itself (a full or read-only
disk, an I/O error) makes it unhealthy until a test write succeeds again
(`Storage.check_writable`), and the server starts no game meanwhile.

Seeds are kept as decimal text (``seed_text``): a 128-bit seed fits no SQLite INTEGER.
The ``seed`` column holds the integer seeds of databases written before that.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from arena.bot_logs import note_size, utc_day
from arena.errors import ArenaError
from arena.game import Outcome
from arena.record import MatchRecord, to_jsonl, without_notes
from arena.seeds import parse_seed, seed_to_text
from arena.server.names import GUEST_PREFIX, check_account_name

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "AsyncStorage", "BotAccount", "RatingRow", "Storage",
           "StorageFailure", "StorageVersionError", "hash_token"]

log = logging.getLogger("arena.server")

T = TypeVar("T")

_BASELINE = """
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    token_hash TEXT UNIQUE,
    created REAL NOT NULL,
    revoked REAL,
    operator INTEGER NOT NULL DEFAULT 0,
    house TEXT
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    players TEXT NOT NULL,
    seed INTEGER,
    ladder INTEGER NOT NULL DEFAULT 0,
    pair TEXT,
    status TEXT NOT NULL,
    result TEXT,
    winner INTEGER,
    scores TEXT,
    termination TEXT,
    reason TEXT,
    turns INTEGER,
    started REAL NOT NULL,
    finished REAL,
    log TEXT
);
CREATE INDEX IF NOT EXISTS games_started ON games(started);
CREATE TABLE IF NOT EXISTS game_players (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_players_bot ON game_players(bot);
CREATE TABLE IF NOT EXISTS ratings (
    bot TEXT NOT NULL,
    game TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL,
    PRIMARY KEY (bot, game)
);
CREATE TABLE IF NOT EXISTS rating_updates (
    game_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    PRIMARY KEY (game_id, bot)
);
CREATE TABLE IF NOT EXISTS grammars (
    name TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    created REAL NOT NULL
);
"""
"""Version 1: the schema of every database made before schema versions were kept (its
``user_version`` is 0); ``IF NOT EXISTS`` makes it a no-op on those."""

_PRESETS = """
CREATE TABLE presets (
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game, name)
);
INSERT INTO presets(game, name, text, created)
    SELECT 'substitution', name, text, created FROM grammars;
DROP TABLE grammars;
"""
"""Version 2: settings presets saved from the web belong to a game (any game's plugin
may offer them, `arena.hookspecs.arena_web_settings`); the grammar presets saved
before were the substitution game's."""

_SEEDS_AND_EXPIRY = """
ALTER TABLE bots ADD COLUMN expires REAL;
ALTER TABLE games ADD COLUMN seed_text TEXT;
ALTER TABLE games ADD COLUMN seed_commitment TEXT;
CREATE TABLE probe (
    data BLOB
);
"""
"""Version 3: guests expire (``bots.expires``); a game's seed is 128 bits, kept as
decimal text, with the commitment published before its first move (`arena.seeds`);
``probe`` is where `Storage.check_writable` tries a write."""

_DEBUG_LINES = """
ALTER TABLE games ADD COLUMN notes_bytes INTEGER;
CREATE INDEX games_with_notes ON games(finished) WHERE notes_bytes IS NOT 0;
CREATE TABLE log_bytes (
    bot TEXT NOT NULL,
    day INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    PRIMARY KEY (bot, day)
);
"""
"""Version 4: the bots' debug lines have a budget and a retention period. A finished
game's ``notes_bytes`` is the bytes of debug lines its log holds (NULL: a game stored
before, not looked at yet; `drop_old_notes` finds the logs that hold any by the
partial index); ``log_bytes`` is each bot's bytes of debug lines stored per UTC day
(`arena.bot_logs.utc_day`), which `LogLimits.max_log_bytes_per_day` bounds."""

MIGRATIONS: tuple[str, ...] = (_BASELINE, _PRESETS, _SEEDS_AND_EXPIRY, _DEBUG_LINES)
"""The schema as the steps that made it: step ``i`` takes a database from version ``i``
to ``i + 1`` (SQLite's ``PRAGMA user_version``). A change to the schema is a new step
at the end, never an edit of an old one: a database of any earlier version is brought
up to date, step by step, when it is opened (`Storage.migrate`)."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The version of the schema this code reads and writes."""


class StorageVersionError(ArenaError):
    """A database of a later schema version than this code knows (`SCHEMA_VERSION`)."""

_SEED = "COALESCE(seed_text, seed)"
"""A game's seed: decimal text, or the integer of an older database."""

PROBE_BYTES = 256 * 1024
"""What `Storage.check_writable` writes (and removes): more than a typical game's log."""


class StorageFailure(ArenaError):
    """The database cannot be used (a full or read-only disk, an I/O error)."""


def is_storage_failure(error: BaseException) -> bool:
    """Whether `error` says the database itself fails, not the request (a constraint)."""
    if isinstance(error, sqlite3.OperationalError | OSError):
        return True
    return type(error) is sqlite3.DatabaseError  # a corrupt file, an unreadable page


def hash_token(token: str) -> str:
    """SHA-256 of the token: tokens are 256 random bits, so no slow hash is needed."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class BotAccount:
    name: str
    operator: bool
    revoked: bool
    created: float


@dataclass(frozen=True)
class RatingRow:
    bot: str
    game: str
    mu: float
    sigma: float
    games: int
    wins: int
    losses: int
    draws: int

    @property
    def conservative(self) -> float:
        """The displayed rating: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot, "game": self.game, "rating": round(self.conservative, 3),
            "mu": round(self.mu, 4), "sigma": round(self.sigma, 4), "games": self.games,
            "wins": self.wins, "losses": self.losses, "draws": self.draws,
        }


class Storage:
    """The arena database (one SQLite file): accounts, games and their logs, ratings,
    presets saved from the web.

    Opening it brings its schema up to date (`migrate`). Every write that must survive
    together runs in one transaction (`finish_game`: result, log and ratings).

    Args:
        path: the database file (made if missing).

    Raises:
        StorageVersionError: the file was written by a newer arena (`SCHEMA_VERSION`).
        sqlite3.Error: the file cannot be opened or brought up to date (the database
            is then left at the last version it reached).

    Example:
        >>> storage = Storage(":memory:")
        >>> token = storage.add_bot("alice")
        >>> storage.authenticate(token).name, storage.authenticate("wrong")
        ('alice', None)
        >>> storage.version == SCHEMA_VERSION
        True
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA busy_timeout=5000")
        try:
            self.migrate()
        except BaseException:
            self.db.close()
            raise

    @property
    def version(self) -> int:
        """The schema version of the database (``PRAGMA user_version``)."""
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        """Bring the database up to `SCHEMA_VERSION`, one step of `MIGRATIONS` at a time,
        each in its own transaction (with its new version number: a crash leaves the
        database at the step before or after, never between).

        Raises:
            StorageVersionError: the database is of a later version than this code.
        """
        version = self.version
        if version > SCHEMA_VERSION:
            raise StorageVersionError(
                f"{self.path} has schema version {version}; this arena reads up to "
                f"{SCHEMA_VERSION} (it was written by a newer arena)")
        for step in range(version, SCHEMA_VERSION):
            # executescript commits what is pending first; the step is its own transaction
            try:
                self.db.executescript(f"BEGIN IMMEDIATE;\n{MIGRATIONS[step]}\n"
                                      f"PRAGMA user_version = {step + 1};\nCOMMIT;")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Close the database connection (the `Storage` is unusable afterwards)."""
        self.db.close()

    def _tx(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` in one transaction: committed, or rolled back if anything fails
        (the commit itself included, on a full disk)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            result = work(self.db)
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:  # SQLite may have rolled back by itself
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            raise
        return result

    # -- accounts --------------------------------------------------------------------

    def check_writable(self) -> None:
        """Write and remove `PROBE_BYTES` in a committed transaction; raise if the
        database cannot take it (full or read-only disk)."""

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO probe(data) VALUES (zeroblob(?))", (PROBE_BYTES,))
            db.execute("DELETE FROM probe")

        self._tx(work)

    def add_bot(self, name: str, *, operator: bool = False, replace: bool = False) -> str:
        """Create an account, or give an existing one a new token (the old token stops
        working; with `replace` False that is an error); return the token once.

        Raises:
            InvalidName: the name is outside the character set or under a reserved
                prefix (`arena.server.names`).
            ValueError: the account exists, `replace` is False and it is not revoked.
        """
        check_account_name(name)
        return self._add_account(name, operator=operator, replace=replace)

    def add_guest(self, lifetime: float) -> tuple[str, str]:
        """A new guest account that expires after `lifetime` seconds: (name, token)."""
        name = GUEST_PREFIX + secrets.token_hex(4)
        return name, self._add_account(name, expires=time.time() + lifetime)

    def _add_account(self, name: str, *, operator: bool = False, replace: bool = False,
                     expires: float | None = None) -> str:
        token = secrets.token_urlsafe(32)

        def work(db: sqlite3.Connection) -> None:
            row = db.execute("SELECT revoked FROM bots WHERE name = ?", (name,)).fetchone()
            if row is not None and row[0] is None and not replace:
                raise ValueError(f"bot {name!r} exists")
            db.execute(
                "INSERT OR REPLACE INTO bots(name, token_hash, created, revoked, operator, expires)"
                " VALUES (?, ?, ?, NULL, ?, ?)",
                (name, hash_token(token), time.time(), int(operator), expires),
            )

        self._tx(work)
        return token

    def revoke_bot(self, name: str) -> bool:
        """Revoke `name`'s token (a running server drops the bot within
        ``revocation_interval``; `add_bot` may give the account a new token).

        Returns:
            False if there is no such account or it is revoked already.
        """
        cursor = self.db.execute(
            "UPDATE bots SET revoked = ?, token_hash = NULL WHERE name = ? AND revoked IS NULL",
            (time.time(), name),
        )
        return cursor.rowcount > 0

    def token_hashes(self, names: Iterable[str]) -> dict[str, str]:
        """The current token hash of each named account that is not revoked or expired."""
        wanted = sorted(set(names))
        found: dict[str, str] = {}
        now = time.time()
        for start in range(0, len(wanted), 500):  # SQLite caps the number of parameters
            chunk = wanted[start:start + 500]
            rows = self.db.execute(
                f"SELECT name, token_hash FROM bots WHERE revoked IS NULL"
                f" AND (expires IS NULL OR expires > ?) AND name IN "
                f"({', '.join('?' * len(chunk))})", (now, *chunk)).fetchall()
            found.update((row[0], row[1]) for row in rows)
        return found

    def authenticate(self, token: str) -> BotAccount | None:
        """The account holding `token`, unless it is revoked or expired."""
        row = self.db.execute(
            "SELECT name, operator, created FROM bots WHERE token_hash = ? AND revoked IS NULL"
            " AND (expires IS NULL OR expires > ?)",
            (hash_token(token), time.time()),
        ).fetchone()
        return None if row is None else BotAccount(row[0], bool(row[1]), False, row[2])

    def purge_expired(self) -> int:
        """Delete the expired (guest) accounts; return how many. Their games stay."""
        cursor = self.db.execute("DELETE FROM bots WHERE expires IS NOT NULL AND expires <= ?",
                                 (time.time(),))
        return cursor.rowcount

    def bots(self) -> list[BotAccount]:
        """Every account (revoked ones included), by name."""
        rows = self.db.execute(
            "SELECT name, operator, revoked, created FROM bots ORDER BY name"
        ).fetchall()
        return [BotAccount(r[0], bool(r[1]), r[2] is not None, r[3]) for r in rows]

    # -- games -----------------------------------------------------------------------

    def start_game(self, record: MatchRecord, *, ladder: bool, pair: str | None) -> None:
        """Store a game as running before its first move (its seed kept secret until
        `finish_game`; a crash leaves it for `recover`).

        Args:
            record: the game as it starts (id, game, settings, players, seed, commitment).
            ladder: whether the ladder paired it (rated when it ends).
            pair: the id shared by a ladder pairing's two games, if any.

        Raises:
            sqlite3.IntegrityError: a game of that id is stored already.
            sqlite3.OperationalError: the database cannot be written (`is_storage_failure`).
        """
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO games(id, game, settings, players, seed_text, seed_commitment, ladder,"
                " pair, status, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)",
                (record.id, record.game, json.dumps(record.settings), json.dumps(record.players),
                 None if record.seed is None else seed_to_text(record.seed),
                 record.seed_commitment, int(ladder), pair, time.time()),
            )
            db.executemany(
                "INSERT INTO game_players(game_id, seat, bot) VALUES (?, ?, ?)",
                [(record.id, seat, name) for seat, name in enumerate(record.players)],
            )

        self._tx(work)

    def finish_game(self, record: MatchRecord, *, rated: bool = False,
                    log: str | None = None) -> list[RatingRow]:
        """Store the result, the log and (if `rated`) the rating changes in one transaction.

        `log` is the record as JSON Lines, if the caller has it already. The bytes of
        each bot's debug lines (`MatchRecord.notes`) are added to its total of the day
        (`log_bytes`). The ratings before the game are read inside the transaction, so
        games that end at the same time are rated one after the other. Returns the new
        ratings.
        """
        from arena.server.ratings import initial_rating, rate

        outcome = record.outcome
        assert outcome is not None
        if log is None:
            log = to_jsonl(record)
        log_bytes: Counter[str] = Counter()
        for note in record.notes:
            if 0 <= note.player < len(record.players):
                log_bytes[record.players[note.player]] += note_size(note.text)

        def work(db: sqlite3.Connection) -> list[RatingRow]:
            now = time.time()
            db.execute(
                "UPDATE games SET status = ?, result = ?, winner = ?, scores = ?, termination = ?,"
                " reason = ?, turns = ?, finished = ?, log = ?, notes_bytes = ? WHERE id = ?",
                ("aborted" if outcome.result == "aborted" else "finished", outcome.result,
                 outcome.winner, json.dumps(list(outcome.scores)) if outcome.scores else None,
                 outcome.termination.value, outcome.detail, len(record.turns), now,
                 log, sum(log_bytes.values()), record.id),
            )
            db.executemany(
                "INSERT INTO log_bytes(bot, day, bytes) VALUES (?, ?, ?) ON CONFLICT(bot, day)"
                " DO UPDATE SET bytes = bytes + excluded.bytes",
                [(bot, utc_day(now), size) for bot, size in log_bytes.items()])
            if not rated or outcome.result == "aborted":
                return []
            before = [self.rating(bot, record.game) or initial_rating(bot, record.game)
                      for bot in record.players]
            after = rate(before, outcome)
            for old, new in zip(before, after, strict=True):
                db.execute(
                    "INSERT OR REPLACE INTO ratings(bot, game, mu, sigma, games, wins, losses,"
                    " draws, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (new.bot, new.game, new.mu, new.sigma, new.games, new.wins, new.losses,
                     new.draws, time.time()),
                )
                db.execute(
                    "INSERT INTO rating_updates VALUES (?, ?, ?, ?, ?, ?)",
                    (record.id, new.bot, old.mu, old.sigma, new.mu, new.sigma),
                )
            return after

        return self._tx(work)

    def recover(self, detail: str = "server stopped while the game was in flight") -> list[str]:
        """Mark games left running by a crash as aborted (with a log); return their ids."""
        rows = self.db.execute(
            f"SELECT id, game, settings, players, {_SEED}, seed_commitment FROM games"
            " WHERE status = 'running'"
        ).fetchall()
        from arena.game import Termination

        for game_id, game, settings, players, seed, commitment in rows:
            record = MatchRecord(
                game=game, settings=json.loads(settings), players=tuple(json.loads(players)),
                turns=(), outcome=Outcome(None, None, Termination.ABORTED, detail=detail),
                seed=parse_seed(seed), id=game_id, seed_commitment=commitment,
            )
            self.finish_game(record)
        return [row[0] for row in rows]

    def log_bytes(self, bot: str, day: int) -> int:
        """The bytes of `bot`'s debug lines stored on `day` (UTC days since the epoch:
        `arena.bot_logs.utc_day`), in the games that ended that day."""
        row = self.db.execute("SELECT bytes FROM log_bytes WHERE bot = ? AND day = ?",
                              (bot, day)).fetchone()
        return 0 if row is None else int(row[0])

    def drop_old_notes(self, before: float, limit: int = 100) -> int:
        """Drop the debug lines from the logs of up to `limit` games that ended before
        `before` (seconds since the epoch), oldest first, in one transaction; return how
        many logs were looked at (fewer than `limit`: none is left). Moves, result and
        the rest of each log stay as they were (`arena.record.without_notes`). Also
        forgets the daily debug-line totals of the days before `before`'s."""

        def work(db: sqlite3.Connection) -> int:
            rows = db.execute(
                "SELECT id, log FROM games WHERE notes_bytes IS NOT 0 AND finished < ?"
                " ORDER BY finished LIMIT ?", (before, limit)).fetchall()
            for game_id, log in rows:
                kept = without_notes(log) if log else log
                if kept != log:
                    db.execute("UPDATE games SET log = ?, notes_bytes = 0 WHERE id = ?",
                               (kept, game_id))
                else:
                    db.execute("UPDATE games SET notes_bytes = 0 WHERE id = ?", (game_id,))
            db.execute("DELETE FROM log_bytes WHERE day < ?", (utc_day(before),))
            return len(rows)

        return self._tx(work)

    def ladder_pairings(self, since: float) -> list[tuple[float, str, str]]:
        """The ladder's pairings started at `since` or later (seconds since the epoch), as
        ``(started, a, b)``: each pair of games once, when its first game started."""
        rows = self.db.execute(
            "SELECT MIN(started), players FROM games WHERE started >= ? AND ladder = 1"
            " AND pair IS NOT NULL GROUP BY pair", (since,)).fetchall()
        pairings = []
        for started, players in rows:
            names = json.loads(players)
            if len(names) == 2:
                pairings.append((float(started), str(names[0]), str(names[1])))
        return pairings

    def next_game_number(self) -> int:
        """One more than the number of games stored (a readable part of new game ids)."""
        row = self.db.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(row[0]) + 1

    def games(
        self,
        *,
        bot: str | None = None,
        game: str | None = None,
        status: str | None = None,
        limit: int = 50,
        before: float | None = None,
    ) -> list[dict[str, Any]]:
        """Stored games, newest first, without their logs (``/api/games``).

        Args:
            bot: only games this account played.
            game: only games of this game.
            status: only ``running``, ``finished`` or ``aborted`` games.
            limit: at most this many.
            before: only games started before this time (seconds since the epoch), for
                paging.

        Returns:
            One dict per game (id, game, players, result, scores, ...); a running game's
            seed is None.
        """
        where: list[str] = []
        args: list[Any] = []
        if bot is not None:
            where.append("id IN (SELECT game_id FROM game_players WHERE bot = ?)")
            args.append(bot)
        if game is not None:
            where.append("game = ?")
            args.append(game)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if before is not None:
            where.append("started < ?")
            args.append(before)
        sql = (f"SELECT id, game, players, {_SEED}, ladder, pair, status, result, winner, scores,"
               " termination, reason, turns, started, finished, seed_commitment FROM games")
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY started DESC, rowid DESC LIMIT ?"
        args.append(limit)
        return [_game_row(row) for row in self.db.execute(sql, args).fetchall()]

    def game(self, game_id: str) -> dict[str, Any] | None:
        """One stored game with its settings and JSON Lines log (``log``; None while it
        runs); None if there is no such game. A running game's seed is not revealed."""
        row = self.db.execute(
            f"SELECT id, game, players, {_SEED}, ladder, pair, status, result, winner, scores,"
            " termination, reason, turns, started, finished, seed_commitment, settings, log"
            " FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        data = _game_row(row[:16])
        data["settings"] = json.loads(row[16])
        data["log"] = row[17]
        if data["status"] == "running":
            data["seed"] = None  # never revealed before the end
        return data

    # -- ratings ---------------------------------------------------------------------

    def rating(self, bot: str, game: str) -> RatingRow | None:
        """`bot`'s rating in `game`; None before its first rated game of it."""
        row = self.db.execute(
            "SELECT bot, game, mu, sigma, games, wins, losses, draws FROM ratings"
            " WHERE bot = ? AND game = ?",
            (bot, game),
        ).fetchone()
        return None if row is None else RatingRow(*row)

    def leaderboard(self, game: str | None = None) -> list[RatingRow]:
        """The ratings (of `game`, or of every game), best conservative rating first."""
        sql = "SELECT bot, game, mu, sigma, games, wins, losses, draws FROM ratings"
        args: tuple[Any, ...] = ()
        if game is not None:
            sql += " WHERE game = ?"
            args = (game,)
        rows = [RatingRow(*row) for row in self.db.execute(sql, args).fetchall()]
        return sorted(rows, key=lambda r: (-r.conservative, r.bot))

    def rating_history(self, game: str | None = None) -> dict[str, list[list[float]]]:
        """Per bot, ``[finished, conservative rating after]`` for each rated game, in order."""
        sql = ("SELECT u.bot, g.finished, u.mu_after, u.sigma_after FROM rating_updates u"
               " JOIN games g ON g.id = u.game_id")
        args: tuple[Any, ...] = ()
        if game is not None:
            sql += " WHERE g.game = ?"
            args = (game,)
        sql += " ORDER BY g.finished, g.rowid"
        history: dict[str, list[list[float]]] = {}
        for bot, finished, mu, sigma in self.db.execute(sql, args).fetchall():
            history.setdefault(bot, []).append([finished, round(mu - 3 * sigma, 3)])
        return history

    # -- settings presets (saved from the web interface, per game) ------------------------

    def save_preset(self, game: str, name: str, text: str) -> None:
        """Save (or replace) preset `name` of `game`: a text its plugin reads (the
        substitution game: a grammar)."""
        self.db.execute(
            "INSERT OR REPLACE INTO presets(game, name, text, created) VALUES (?, ?, ?, ?)",
            (game, name, text, time.time()),
        )

    def presets(self, game: str) -> list[tuple[str, str]]:
        """The saved presets of `game`, as (name, text), by name."""
        rows = self.db.execute("SELECT name, text FROM presets WHERE game = ? ORDER BY name",
                               (game,)).fetchall()
        return [(str(r[0]), str(r[1])) for r in rows]

    def preset_count(self) -> int:
        """How many presets are saved, of every game (the web's budget counts them all)."""
        return int(self.db.execute("SELECT COUNT(*) FROM presets").fetchone()[0])

    def preset(self, game: str, name: str) -> str | None:
        """The text of preset `name` of `game`; None if none is saved."""
        row = self.db.execute("SELECT text FROM presets WHERE game = ? AND name = ?",
                              (game, name)).fetchone()
        return None if row is None else str(row[0])

    def delete_preset(self, game: str, name: str) -> bool:
        """Forget a saved preset; False if there was none of that name."""
        return self.db.execute("DELETE FROM presets WHERE game = ? AND name = ?",
                               (game, name)).rowcount > 0


def _game_row(row: Sequence[Any]) -> dict[str, Any]:
    """A game as the API shows it; the seed (decimal text) only once the game is over."""
    (game_id, game, players, seed, ladder, pair, status, result, winner, scores,
     termination, reason, turns, started, finished, commitment) = row
    return {
        "id": game_id, "game": game, "players": json.loads(players),
        "seed": None if seed is None or status == "running" else str(seed),
        "seed_commitment": commitment, "ladder": bool(ladder), "pair": pair,
        "status": status, "result": result, "winner": winner,
        "scores": json.loads(scores) if scores else None, "termination": termination,
        "reason": reason, "turns": turns, "started": started, "finished": finished,
    }


class AsyncStorage:
    """`Storage` behind one worker thread: every call is awaited, in order.

    It also keeps the database's health. A call that fails because of the database
    itself (`is_storage_failure`) raises `StorageFailure` and makes the storage
    unhealthy (`failure` says why); `watch` then tries a test write every few seconds
    and makes it healthy again when one succeeds. `on_change` hears of both.
    """

    def __init__(self, storage: Storage,
                 on_change: Callable[[str | None], None] | None = None) -> None:
        self.storage = storage
        self.on_change = on_change
        self.failure: str | None = None
        """Why the database cannot be used, or None while it is healthy."""
        self._healthy = asyncio.Event()
        self._healthy.set()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="arena-db")

    async def call(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``method(*args, **kwargs)`` in the database thread.

        Raises:
            StorageFailure: the database itself failed (the storage is now unhealthy).
        """
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, lambda: method(*args, **kwargs))
        except Exception as error:
            if not is_storage_failure(error):
                raise
            self.fail(f"{type(error).__name__}: {error}")
            raise StorageFailure(f"the database cannot be used ({self.failure})") from error

    def fail(self, reason: str) -> None:
        """Mark the storage unhealthy (a no-op if it already is)."""
        if self.failure is not None:
            return
        self.failure = reason
        self._healthy.clear()
        log.error("storage failure: %s; no new games start until it is fixed", reason)
        if self.on_change is not None:
            self.on_change(reason)

    async def wait_healthy(self) -> None:
        """Return once the storage works (at once unless a failure was seen)."""
        await self._healthy.wait()

    async def probe(self) -> bool:
        """Try a test write; on success the storage is healthy again. Whether it is."""
        try:
            await self.call(self.storage.check_writable)
        except StorageFailure:
            return False
        if self.failure is not None:
            log.warning("storage works again (it failed with: %s)", self.failure)
            self.failure = None
            self._healthy.set()
            if self.on_change is not None:
                self.on_change(None)
        return True

    async def watch(self, interval: float) -> None:
        """Probe every `interval` seconds while unhealthy (run as a task; cancel to stop)."""
        while True:
            await asyncio.sleep(interval)
            if self.failure is not None:
                with contextlib.suppress(StorageFailure):
                    await self.probe()

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        self.storage.close()
