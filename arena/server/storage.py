"""SQLite storage: bot accounts, games with their logs, ratings.

Durability is the point: `finish_game` writes the result, the log and the rating
updates in one transaction (``synchronous=FULL`` in WAL mode) and returns only after
the commit, so whatever the server announces afterwards survives a ``kill -9``. A game
row is written when the game starts (status ``running``); `recover` marks the rows a
crash left running as aborted, with a log, when the server starts again.

The class is synchronous and not thread-safe; the server calls it from one worker
thread (`AsyncStorage`) so the event loop never waits on the disk.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from arena.game import Outcome
from arena.record import MatchRecord, to_jsonl

__all__ = ["AsyncStorage", "BotAccount", "RatingRow", "Storage", "hash_token"]

T = TypeVar("T")

_SCHEMA = """
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
    """The arena database (one SQLite file)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        self.db.close()

    def _tx(self, work: Callable[[sqlite3.Connection], T]) -> T:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            result = work(self.db)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        return result

    # -- accounts --------------------------------------------------------------------

    def add_bot(self, name: str, *, operator: bool = False, replace: bool = False) -> str:
        """Create an account, or give an existing one a new token (the old token stops
        working; with `replace` False that is an error); return the token once."""
        token = secrets.token_urlsafe(32)

        def work(db: sqlite3.Connection) -> None:
            row = db.execute("SELECT revoked FROM bots WHERE name = ?", (name,)).fetchone()
            if row is not None and row[0] is None and not replace:
                raise ValueError(f"bot {name!r} exists")
            db.execute(
                "INSERT OR REPLACE INTO bots(name, token_hash, created, revoked, operator) "
                "VALUES (?, ?, ?, NULL, ?)",
                (name, hash_token(token), time.time(), int(operator)),
            )

        self._tx(work)
        return token

    def revoke_bot(self, name: str) -> bool:
        cursor = self.db.execute(
            "UPDATE bots SET revoked = ?, token_hash = NULL WHERE name = ? AND revoked IS NULL",
            (time.time(), name),
        )
        return cursor.rowcount > 0

    def token_hashes(self, names: Iterable[str]) -> dict[str, str]:
        """The current token hash of each named account that is not revoked."""
        wanted = sorted(set(names))
        found: dict[str, str] = {}
        for start in range(0, len(wanted), 500):  # SQLite caps the number of parameters
            chunk = wanted[start:start + 500]
            rows = self.db.execute(
                f"SELECT name, token_hash FROM bots WHERE revoked IS NULL AND name IN "
                f"({', '.join('?' * len(chunk))})", chunk).fetchall()
            found.update((row[0], row[1]) for row in rows)
        return found

    def authenticate(self, token: str) -> BotAccount | None:
        row = self.db.execute(
            "SELECT name, operator, created FROM bots WHERE token_hash = ? AND revoked IS NULL",
            (hash_token(token),),
        ).fetchone()
        return None if row is None else BotAccount(row[0], bool(row[1]), False, row[2])

    def bots(self) -> list[BotAccount]:
        rows = self.db.execute(
            "SELECT name, operator, revoked, created FROM bots ORDER BY name"
        ).fetchall()
        return [BotAccount(r[0], bool(r[1]), r[2] is not None, r[3]) for r in rows]

    # -- games -----------------------------------------------------------------------

    def start_game(self, record: MatchRecord, *, ladder: bool, pair: str | None) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO games(id, game, settings, players, seed, ladder, pair, status, started)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?)",
                (record.id, record.game, json.dumps(record.settings), json.dumps(record.players),
                 record.seed, int(ladder), pair, time.time()),
            )
            db.executemany(
                "INSERT INTO game_players(game_id, seat, bot) VALUES (?, ?, ?)",
                [(record.id, seat, name) for seat, name in enumerate(record.players)],
            )

        self._tx(work)

    def finish_game(self, record: MatchRecord, *, rated: bool = False,
                    log: str | None = None) -> list[RatingRow]:
        """Store the result, the log and (if `rated`) the rating changes in one transaction.

        `log` is the record as JSON Lines, if the caller has it already. The ratings
        before the game are read inside the transaction, so games that end at the same
        time are rated one after the other. Returns the new ratings.
        """
        from arena.server.ratings import initial_rating, rate

        outcome = record.outcome
        assert outcome is not None
        if log is None:
            log = to_jsonl(record)

        def work(db: sqlite3.Connection) -> list[RatingRow]:
            db.execute(
                "UPDATE games SET status = ?, result = ?, winner = ?, scores = ?, termination = ?,"
                " reason = ?, turns = ?, finished = ?, log = ? WHERE id = ?",
                ("aborted" if outcome.result == "aborted" else "finished", outcome.result,
                 outcome.winner, json.dumps(list(outcome.scores)) if outcome.scores else None,
                 outcome.termination.value, outcome.detail, len(record.turns), time.time(),
                 log, record.id),
            )
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
            "SELECT id, game, settings, players, seed FROM games WHERE status = 'running'"
        ).fetchall()
        from arena.game import Termination

        for game_id, game, settings, players, seed in rows:
            record = MatchRecord(
                game=game, settings=json.loads(settings), players=tuple(json.loads(players)),
                turns=(), outcome=Outcome(None, None, Termination.ABORTED, detail=detail),
                seed=seed, id=game_id,
            )
            self.finish_game(record)
        return [row[0] for row in rows]

    def next_game_number(self) -> int:
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
        sql = ("SELECT id, game, players, seed, ladder, pair, status, result, winner, scores,"
               " termination, reason, turns, started, finished FROM games")
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY started DESC, rowid DESC LIMIT ?"
        args.append(limit)
        return [_game_row(row) for row in self.db.execute(sql, args).fetchall()]

    def game(self, game_id: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT id, game, players, seed, ladder, pair, status, result, winner, scores,"
            " termination, reason, turns, started, finished, settings, log FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        data = _game_row(row[:15])
        data["settings"] = json.loads(row[15])
        data["log"] = row[16]
        if data["status"] == "running":
            data["seed"] = None  # never revealed before the end
        return data

    # -- ratings ---------------------------------------------------------------------

    def rating(self, bot: str, game: str) -> RatingRow | None:
        row = self.db.execute(
            "SELECT bot, game, mu, sigma, games, wins, losses, draws FROM ratings"
            " WHERE bot = ? AND game = ?",
            (bot, game),
        ).fetchone()
        return None if row is None else RatingRow(*row)

    def leaderboard(self, game: str | None = None) -> list[RatingRow]:
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

    # -- grammar presets (saved from the web interface) ---------------------------------

    def save_grammar(self, name: str, text: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO grammars(name, text, created) VALUES (?, ?, ?)",
            (name, text, time.time()),
        )

    def grammars(self) -> list[tuple[str, str]]:
        rows = self.db.execute("SELECT name, text FROM grammars ORDER BY name").fetchall()
        return [(str(r[0]), str(r[1])) for r in rows]

    def grammar(self, name: str) -> str | None:
        row = self.db.execute("SELECT text FROM grammars WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def delete_grammar(self, name: str) -> bool:
        """Forget a saved preset; False if there was none of that name."""
        return self.db.execute("DELETE FROM grammars WHERE name = ?", (name,)).rowcount > 0


def _game_row(row: Sequence[Any]) -> dict[str, Any]:
    (game_id, game, players, seed, ladder, pair, status, result, winner, scores,
     termination, reason, turns, started, finished) = row
    return {
        "id": game_id, "game": game, "players": json.loads(players),
        "seed": seed if status != "running" else None, "ladder": bool(ladder), "pair": pair,
        "status": status, "result": result, "winner": winner,
        "scores": json.loads(scores) if scores else None, "termination": termination,
        "reason": reason, "turns": turns, "started": started, "finished": finished,
    }


class AsyncStorage:
    """`Storage` behind one worker thread: every call is awaited, in order."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="arena-db")

    async def call(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: method(*args, **kwargs))

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        self.storage.close()
