"""People and their bots on SQLite (`arena.storage.people`): `SQLitePeople` is the
synchronous part of `arena.storage.sqlite.SQLiteDatabase`, `SQLitePeopleStorage` its
async part of `arena.storage.sqlite.SQLiteStorage` (each call in the database thread)."""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from arena.names import check_account_name
from arena.storage.interface import hash_token
from arena.storage.people import (
    DAY,
    AccountLimit,
    BotVersion,
    OwnedBot,
    PeopleStorage,
    Person,
    version_of,
)
from arena.storage.ratings import INITIAL_SIGMA, VERSION_SIGMA_STEP

__all__ = ["SQLitePeople", "SQLitePeopleStorage"]

T = TypeVar("T")

_VERSION_OF = "(SELECT MAX(version) FROM bot_versions WHERE bot = ?)"
"""A bot's current version (NULL for a bot of nobody's): what `start_game` records."""


class SQLitePeople:
    """The people's methods of `SQLiteDatabase` (which provides `db` and `_tx`)."""

    @property
    def db(self) -> sqlite3.Connection:
        raise NotImplementedError  # SQLiteDatabase's

    _tx: Callable[..., Any]

    def add_person(self, name: str, password_hash: str, *, invite: str | None = None,
                   operator: bool = False) -> None:
        check_account_name(name)

        def work(db: sqlite3.Connection) -> None:
            if db.execute("SELECT 1 FROM people WHERE name = ?", (name,)).fetchone():
                raise ValueError(f"the name {name!r} is taken")
            if invite is not None and db.execute(
                    "UPDATE invites SET used_by = ? WHERE code_hash = ? AND used_by IS NULL"
                    " AND expires > ?", (name, hash_token(invite), time.time())).rowcount != 1:
                raise ValueError("unknown, used or expired invite code")
            db.execute("INSERT INTO people(name, password_hash, created, operator)"
                       " VALUES (?, ?, ?, ?)", (name, password_hash, time.time(), int(operator)))

        self._tx(work)

    def password_hash(self, name: str) -> str | None:
        row = self.db.execute("SELECT password_hash FROM people WHERE name = ?",
                              (name,)).fetchone()
        return None if row is None else str(row[0])

    def set_password_hash(self, name: str, password_hash: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            if db.execute("UPDATE people SET password_hash = ? WHERE name = ?",
                          (password_hash, name)).rowcount == 0:
                return False
            db.execute("DELETE FROM person_sessions WHERE person = ?", (name,))
            return True

        return bool(self._tx(work))

    def people(self) -> list[Person]:
        rows = self.db.execute(
            "SELECT p.name, p.created, (SELECT COUNT(*) FROM bots b WHERE b.owner = p.name"
            " AND b.revoked IS NULL), p.operator FROM people p ORDER BY p.name").fetchall()
        return [Person(str(r[0]), float(r[1]), int(r[2]), bool(r[3])) for r in rows]

    def set_operator(self, name: str, operator: bool) -> bool:
        return bool(self._tx(lambda db: db.execute(
            "UPDATE people SET operator = ? WHERE name = ?", (int(operator), name)).rowcount))

    def is_operator(self, name: str) -> bool:
        row = self.db.execute("SELECT operator FROM people WHERE name = ?", (name,)).fetchone()
        return row is not None and bool(row[0])

    def remove_person(self, name: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            if db.execute("DELETE FROM people WHERE name = ?", (name,)).rowcount == 0:
                return False
            db.execute("DELETE FROM person_sessions WHERE person = ?", (name,))
            db.execute("UPDATE bots SET revoked = COALESCE(revoked, ?), token_hash = NULL,"
                       " owner = NULL WHERE owner = ?", (time.time(), name))
            return True

        return bool(self._tx(work))

    def add_invite(self, lifetime: float) -> str:
        code = secrets.token_urlsafe(16)
        now = time.time()
        self.db.execute("INSERT INTO invites(code_hash, created, expires) VALUES (?, ?, ?)",
                        (hash_token(code), now, now + lifetime))
        return code

    def open_session(self, person: str, lifetime: float, *, keep: int = 10) -> str:
        token = secrets.token_urlsafe(32)
        now = time.time()

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO person_sessions(token_hash, person, created, expires)"
                       " VALUES (?, ?, ?, ?)", (hash_token(token), person, now, now + lifetime))
            db.execute("DELETE FROM person_sessions WHERE person = ? AND token_hash NOT IN"
                       " (SELECT token_hash FROM person_sessions WHERE person = ?"
                       " ORDER BY created DESC, rowid DESC LIMIT ?)", (person, person, keep))

        self._tx(work)
        return token

    def session_person(self, token: str) -> str | None:
        row = self.db.execute(
            "SELECT s.person FROM person_sessions s JOIN people p ON p.name = s.person"
            " WHERE s.token_hash = ? AND s.expires > ?", (hash_token(token), time.time())
        ).fetchone()
        return None if row is None else str(row[0])

    def close_session(self, token: str) -> None:
        self.db.execute("DELETE FROM person_sessions WHERE token_hash = ?", (hash_token(token),))

    def purge_people(self, now: float) -> None:
        """Delete the expired sessions and invite codes (`purge_expired`)."""
        self.db.execute("DELETE FROM person_sessions WHERE expires <= ?", (now,))
        self.db.execute("DELETE FROM invites WHERE expires <= ?", (now,))

    def add_owned_bot(self, owner: str, name: str, *, max_bots: int) -> str:
        check_account_name(name)
        token = secrets.token_urlsafe(32)

        def work(db: sqlite3.Connection) -> None:
            if not db.execute("SELECT 1 FROM people WHERE name = ?", (owner,)).fetchone():
                raise ValueError(f"no person named {owner!r}")
            if db.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone():
                raise ValueError(f"a bot named {name!r} exists")
            (count,) = db.execute("SELECT COUNT(*) FROM bots WHERE owner = ? AND revoked IS NULL",
                                  (owner,)).fetchone()
            if count >= max_bots:
                raise AccountLimit(f"a person has at most {max_bots} bots ({owner} has {count})",
                                   "bots-limit", most=max_bots)
            now = time.time()
            db.execute("INSERT INTO bots(name, token_hash, created, operator, owner)"
                       " VALUES (?, ?, ?, 0, ?)", (name, hash_token(token), now, owner))
            db.execute("INSERT INTO bot_versions(bot, version, note, created) VALUES (?, 1, '', ?)",
                       (name, now))

        self._tx(work)
        return token

    def owned_bots(self, owner: str) -> list[OwnedBot]:
        rows = self.db.execute(
            f"SELECT b.name, b.created, b.revoked, {_VERSION_OF.replace('?', 'b.name')}"
            " FROM bots b WHERE b.owner = ? ORDER BY b.name", (owner,)).fetchall()
        return [OwnedBot(str(r[0]), float(r[1]), r[2] is not None, int(r[3] or 1)) for r in rows]

    def _owned(self, db: sqlite3.Connection, owner: str, bot: str) -> None:
        row = db.execute("SELECT revoked FROM bots WHERE name = ? AND owner = ?",
                         (bot, owner)).fetchone()
        if row is None:
            raise ValueError(f"{owner} has no bot named {bot!r}")
        if row[0] is not None:
            raise ValueError(f"the bot {bot!r} is revoked")

    def rotate_token(self, owner: str, bot: str) -> str:
        token = secrets.token_urlsafe(32)

        def work(db: sqlite3.Connection) -> None:
            self._owned(db, owner, bot)
            db.execute("UPDATE bots SET token_hash = ? WHERE name = ?", (hash_token(token), bot))

        self._tx(work)
        return token

    def add_version(self, owner: str, bot: str, note: str, *, per_day: int) -> BotVersion:
        def work(db: sqlite3.Connection) -> BotVersion:
            self._owned(db, owner, bot)
            now = time.time()
            (recent,) = db.execute(
                "SELECT COUNT(*) FROM bot_versions v JOIN bots b ON b.name = v.bot"
                " WHERE b.owner = ? AND v.version > 1 AND v.created > ?",
                (owner, now - DAY)).fetchone()
            if recent >= per_day:
                raise AccountLimit(f"a person registers at most {per_day} versions a day "
                                   f"(of all their bots; {owner} registered {recent} in the "
                                   "last 24 hours)", "versions-limit", most=per_day)
            (last,) = db.execute(f"SELECT {_VERSION_OF}", (bot,)).fetchone()
            version = int(last or 0) + 1
            db.execute("INSERT INTO bot_versions(bot, version, note, created) VALUES (?, ?, ?, ?)",
                       (bot, version, note, now))
            db.execute("UPDATE ratings SET sigma = MIN(?, sigma + ?) WHERE bot = ?",
                       (INITIAL_SIGMA, VERSION_SIGMA_STEP, bot))
            return BotVersion(bot, version, note, now, 0, None, 0)

        result: BotVersion = self._tx(work)
        return result

    def bot_versions(self, bot: str) -> list[BotVersion]:
        versions = self.db.execute(
            "SELECT version, note, created FROM bot_versions WHERE bot = ? ORDER BY version",
            (bot,)).fetchall()
        played = dict(self.db.execute(
            "SELECT version, COUNT(*) FROM game_players WHERE bot = ? AND version IS NOT NULL"
            " GROUP BY version", (bot,)).fetchall())
        history: dict[int, list[tuple[float, float]]] = {}
        for version, finished, mu, sigma in self.db.execute(
                "SELECT p.version, g.finished, u.mu_after, u.sigma_after FROM rating_updates u"
                " JOIN game_players p ON p.game_id = u.game_id AND p.bot = u.bot"
                " JOIN games g ON g.id = u.game_id WHERE u.bot = ? AND p.version IS NOT NULL"
                " ORDER BY g.finished, g.rowid", (bot,)):
            history.setdefault(int(version), []).append((float(finished), mu - 3 * sigma))
        return [version_of(bot, int(v), str(note), float(created), int(played.get(v, 0)),
                           history.get(int(v), [])) for v, note, created in versions]

    def versions_played(self, bot: str, game_ids: Iterable[str]) -> dict[str, int]:
        wanted = sorted(set(game_ids))
        found: dict[str, int] = {}
        for start in range(0, len(wanted), 500):  # SQLite caps the number of parameters
            chunk = wanted[start:start + 500]
            found.update((str(r[0]), int(r[1])) for r in self.db.execute(
                f"SELECT game_id, version FROM game_players WHERE bot = ? AND version IS NOT"
                f" NULL AND game_id IN ({', '.join('?' * len(chunk))})", (bot, *chunk)))
        return found


class SQLitePeopleStorage(PeopleStorage):
    """The people's part of `SQLiteStorage`: each call in the database thread (`run`)."""

    database: SQLitePeople

    async def run(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        raise NotImplementedError  # SQLiteStorage's

    async def add_person(self, name: str, password_hash: str, *,
                         invite: str | None = None, operator: bool = False) -> None:
        await self.run(self.database.add_person, name, password_hash, invite=invite,
                       operator=operator)

    async def password_hash(self, name: str) -> str | None:
        return await self.run(self.database.password_hash, name)

    async def set_password_hash(self, name: str, password_hash: str) -> bool:
        return await self.run(self.database.set_password_hash, name, password_hash)

    async def people(self) -> list[Person]:
        return await self.run(self.database.people)

    async def set_operator(self, name: str, operator: bool) -> bool:
        return await self.run(self.database.set_operator, name, operator)

    async def is_operator(self, name: str) -> bool:
        return await self.run(self.database.is_operator, name)

    async def remove_person(self, name: str) -> bool:
        return await self.run(self.database.remove_person, name)

    async def add_invite(self, lifetime: float) -> str:
        return await self.run(self.database.add_invite, lifetime)

    async def open_session(self, person: str, lifetime: float, *, keep: int = 10) -> str:
        return await self.run(self.database.open_session, person, lifetime, keep=keep)

    async def session_person(self, token: str) -> str | None:
        return await self.run(self.database.session_person, token)

    async def close_session(self, token: str) -> None:
        await self.run(self.database.close_session, token)

    async def add_owned_bot(self, owner: str, name: str, *, max_bots: int) -> str:
        return await self.run(self.database.add_owned_bot, owner, name, max_bots=max_bots)

    async def owned_bots(self, owner: str) -> list[OwnedBot]:
        return await self.run(self.database.owned_bots, owner)

    async def rotate_token(self, owner: str, bot: str) -> str:
        return await self.run(self.database.rotate_token, owner, bot)

    async def add_version(self, owner: str, bot: str, note: str, *,
                          per_day: int) -> BotVersion:
        return await self.run(self.database.add_version, owner, bot, note, per_day=per_day)

    async def bot_versions(self, bot: str) -> list[BotVersion]:
        return await self.run(self.database.bot_versions, bot)

    async def versions_played(self, bot: str, game_ids: Iterable[str]) -> dict[str, int]:
        return await self.run(self.database.versions_played, bot, list(game_ids))
