"""People and their bots on PostgreSQL (`arena.storage.people`): `PostgresPeople`, the
people's part of `arena.storage.postgres.PostgresStorage`.

A limit is checked and kept in one transaction that first locks the person's row
(``FOR UPDATE``): two requests of one person at once are counted one after the other."""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import asyncpg

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

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    Connection: TypeAlias = PoolConnectionProxy[asyncpg.Record]

__all__ = ["PostgresPeople"]

T = TypeVar("T")


def _affected(status: str) -> int:
    return int(status.rpartition(" ")[2] or 0)


class PostgresPeople(PeopleStorage):
    """The people's methods of `PostgresStorage` (which provides `_run` and `_tx`)."""

    async def _run(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        raise NotImplementedError  # PostgresStorage's

    async def _tx(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        raise NotImplementedError  # PostgresStorage's

    async def add_person(self, name: str, password_hash: str, *,
                         invite: str | None = None, operator: bool = False) -> None:
        check_account_name(name)

        async def work(db: Connection) -> None:
            if invite is not None and _affected(await db.execute(
                    "UPDATE invites SET used_by = $1 WHERE code_hash = $2 AND used_by IS NULL"
                    " AND expires > $3", name, hash_token(invite), time.time())) != 1:
                raise ValueError("unknown, used or expired invite code")
            try:
                await db.execute("INSERT INTO people(name, password_hash, created, operator)"
                                 " VALUES ($1, $2, $3, $4)", name, password_hash, time.time(),
                                 operator)
            except asyncpg.UniqueViolationError:
                raise ValueError(f"the name {name!r} is taken") from None

        await self._tx(work)

    async def password_hash(self, name: str) -> str | None:
        found = await self._run(lambda db: db.fetchval(
            "SELECT password_hash FROM people WHERE name = $1", name))
        return None if found is None else str(found)

    async def set_password_hash(self, name: str, password_hash: str) -> bool:
        async def work(db: Connection) -> bool:
            if _affected(await db.execute("UPDATE people SET password_hash = $1 WHERE name = $2",
                                          password_hash, name)) == 0:
                return False
            await db.execute("DELETE FROM person_sessions WHERE person = $1", name)
            return True

        return await self._tx(work)

    async def people(self) -> list[Person]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT p.name, p.created, (SELECT COUNT(*) FROM bots b WHERE b.owner = p.name"
            " AND b.revoked IS NULL), p.operator FROM people p ORDER BY p.name"))
        return [Person(r[0], r[1], int(r[2]), bool(r[3])) for r in rows]

    async def set_operator(self, name: str, operator: bool) -> bool:
        return _affected(await self._run(lambda db: db.execute(
            "UPDATE people SET operator = $1 WHERE name = $2", operator, name))) > 0

    async def is_operator(self, name: str) -> bool:
        return bool(await self._run(lambda db: db.fetchval(
            "SELECT operator FROM people WHERE name = $1", name)))

    async def remove_person(self, name: str) -> bool:
        async def work(db: Connection) -> bool:
            if _affected(await db.execute("DELETE FROM people WHERE name = $1", name)) == 0:
                return False
            await db.execute("DELETE FROM person_sessions WHERE person = $1", name)
            await db.execute("UPDATE bots SET revoked = COALESCE(revoked, $1), token_hash = NULL,"
                             " owner = NULL WHERE owner = $2", time.time(), name)
            return True

        return await self._tx(work)

    async def add_invite(self, lifetime: float) -> str:
        code = secrets.token_urlsafe(16)
        now = time.time()
        await self._run(lambda db: db.execute(
            "INSERT INTO invites(code_hash, created, expires) VALUES ($1, $2, $3)",
            hash_token(code), now, now + lifetime))
        return code

    async def open_session(self, person: str, lifetime: float, *, keep: int = 10) -> str:
        token = secrets.token_urlsafe(32)
        now = time.time()

        async def work(db: Connection) -> None:
            await db.execute(
                "INSERT INTO person_sessions(token_hash, person, created, expires)"
                " VALUES ($1, $2, $3, $4)", hash_token(token), person, now, now + lifetime)
            await db.execute(
                "DELETE FROM person_sessions WHERE person = $1 AND token_hash NOT IN"
                " (SELECT token_hash FROM person_sessions WHERE person = $1"
                " ORDER BY created DESC, token_hash = $2 DESC LIMIT $3)",
                person, hash_token(token), keep)

        await self._tx(work)
        return token

    async def session_person(self, token: str) -> str | None:
        found = await self._run(lambda db: db.fetchval(
            "SELECT s.person FROM person_sessions s JOIN people p ON p.name = s.person"
            " WHERE s.token_hash = $1 AND s.expires > $2", hash_token(token), time.time()))
        return None if found is None else str(found)

    async def close_session(self, token: str) -> None:
        await self._run(lambda db: db.execute(
            "DELETE FROM person_sessions WHERE token_hash = $1", hash_token(token)))

    async def purge_people(self, now: float) -> None:
        """Delete the expired sessions and invite codes (`purge_expired`)."""
        async def work(db: Connection) -> None:
            await db.execute("DELETE FROM person_sessions WHERE expires <= $1", now)
            await db.execute("DELETE FROM invites WHERE expires <= $1", now)

        await self._tx(work)

    @staticmethod
    async def _lock_person(db: Connection, owner: str) -> None:
        if await db.fetchval("SELECT 1 FROM people WHERE name = $1 FOR UPDATE", owner) is None:
            raise ValueError(f"no person named {owner!r}")

    async def add_owned_bot(self, owner: str, name: str, *, max_bots: int) -> str:
        check_account_name(name)
        token = secrets.token_urlsafe(32)

        async def work(db: Connection) -> None:
            await self._lock_person(db, owner)
            count = int(await db.fetchval(
                "SELECT COUNT(*) FROM bots WHERE owner = $1 AND revoked IS NULL", owner))
            if count >= max_bots:
                raise AccountLimit(f"a person has at most {max_bots} bots ({owner} has {count})",
                                   "bots-limit", most=max_bots)
            now = time.time()
            try:
                await db.execute("INSERT INTO bots(name, token_hash, created, operator, owner)"
                                 " VALUES ($1, $2, $3, FALSE, $4)",
                                 name, hash_token(token), now, owner)
            except asyncpg.UniqueViolationError:
                raise ValueError(f"a bot named {name!r} exists") from None
            await db.execute("INSERT INTO bot_versions(bot, version, note, created)"
                             " VALUES ($1, 1, '', $2)", name, now)

        await self._tx(work)
        return token

    async def owned_bots(self, owner: str) -> list[OwnedBot]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT b.name, b.created, b.revoked, (SELECT MAX(version) FROM bot_versions v"
            " WHERE v.bot = b.name) FROM bots b WHERE b.owner = $1 ORDER BY b.name", owner))
        return [OwnedBot(r[0], r[1], r[2] is not None, int(r[3] or 1)) for r in rows]

    @staticmethod
    async def _owned(db: Connection, owner: str, bot: str) -> None:
        row = await db.fetchrow("SELECT revoked FROM bots WHERE name = $1 AND owner = $2"
                                " FOR UPDATE", bot, owner)
        if row is None:
            raise ValueError(f"{owner} has no bot named {bot!r}")
        if row[0] is not None:
            raise ValueError(f"the bot {bot!r} is revoked")

    async def rotate_token(self, owner: str, bot: str) -> str:
        token = secrets.token_urlsafe(32)

        async def work(db: Connection) -> None:
            await self._owned(db, owner, bot)
            await db.execute("UPDATE bots SET token_hash = $1 WHERE name = $2",
                             hash_token(token), bot)

        await self._tx(work)
        return token

    async def add_version(self, owner: str, bot: str, note: str, *,
                          per_day: int) -> BotVersion:
        async def work(db: Connection) -> BotVersion:
            await self._lock_person(db, owner)
            await self._owned(db, owner, bot)
            now = time.time()
            recent = int(await db.fetchval(
                "SELECT COUNT(*) FROM bot_versions v JOIN bots b ON b.name = v.bot"
                " WHERE b.owner = $1 AND v.version > 1 AND v.created > $2", owner, now - DAY))
            if recent >= per_day:
                raise AccountLimit(f"a person registers at most {per_day} versions a day "
                                   f"(of all their bots; {owner} registered {recent} in the "
                                   "last 24 hours)", "versions-limit", most=per_day)
            last = await db.fetchval("SELECT MAX(version) FROM bot_versions WHERE bot = $1", bot)
            version = int(last or 0) + 1
            await db.execute("INSERT INTO bot_versions(bot, version, note, created)"
                             " VALUES ($1, $2, $3, $4)", bot, version, note, now)
            await db.execute("UPDATE ratings SET sigma = LEAST($1::float8, sigma + $2::float8)"
                             " WHERE bot = $3", INITIAL_SIGMA, VERSION_SIGMA_STEP, bot)
            return BotVersion(bot, version, note, now, 0, None, 0)

        return await self._tx(work)

    async def bot_versions(self, bot: str) -> list[BotVersion]:
        async def work(db: Connection) -> list[BotVersion]:
            versions = await db.fetch("SELECT version, note, created FROM bot_versions"
                                      " WHERE bot = $1 ORDER BY version", bot)
            played = {r[0]: int(r[1]) for r in await db.fetch(
                "SELECT version, COUNT(*) FROM game_players WHERE bot = $1 AND version IS NOT"
                " NULL GROUP BY version", bot)}
            history: dict[int, list[tuple[float, float]]] = {}
            for version, finished, mu, sigma in await db.fetch(
                    "SELECT p.version, g.finished, u.mu_after, u.sigma_after FROM rating_updates u"
                    " JOIN game_players p ON p.game_id = u.game_id AND p.bot = u.bot"
                    " JOIN games g ON g.id = u.game_id WHERE u.bot = $1 AND p.version IS NOT"
                    " NULL ORDER BY g.finished, g.seq", bot):
                history.setdefault(version, []).append((finished, mu - 3 * sigma))
            return [version_of(bot, v, note, created, played.get(v, 0), history.get(v, []))
                    for v, note, created in versions]

        async def read(db: Connection) -> list[BotVersion]:
            async with db.transaction(isolation="repeatable_read", readonly=True):
                return await work(db)

        return await self._run(read)

    async def versions_played(self, bot: str, game_ids: Iterable[str]) -> dict[str, int]:
        rows = await self._run(lambda db: db.fetch(
            "SELECT game_id, version FROM game_players WHERE bot = $1 AND version IS NOT NULL"
            " AND game_id = ANY($2::text[])", bot, sorted(set(game_ids))))
        return {r[0]: int(r[1]) for r in rows}
