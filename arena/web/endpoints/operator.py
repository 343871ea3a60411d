"""The operators' view: people, bots, running games and the storage's health, for a
signed-in person who is an operator (docs/server.md, "The operators' page").

An operator is a person with the operator flag (`arena users add NAME --operator`,
`arena users operator NAME`): they sign in like anybody (the session cookie, with its
protections, `arena.web.endpoints.accounts`), and the flag is read from the storage at
every request, so taking it away takes effect at once. Everybody else, signed in or not,
gets 403 ``not-operator``. The endpoints only read; each list is capped
(`OPERATOR_LISTED`), and a request reads at most one stored row list per person
(their bots' versions).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from aiohttp import web

from arena.names import is_guest
from arena.web.endpoints.accounts import person_of
from arena.web.endpoints.replays import REPLAYS
from arena.web.http import ApiError, json_response
from arena.web.routes import Endpoint, service_of

__all__ = ["ENDPOINTS", "OPERATOR_LISTED", "operator_of"]

OPERATOR_LISTED = 1000
"""People, bots and running games one answer lists at most (``truncated`` says more
exist)."""


async def operator_of(request: web.Request) -> str:
    """The signed-in operator of a request; 403 ``not-operator`` for anybody else."""
    person = await person_of(request)
    if person is None:
        raise ApiError(403, "the operators' page is for operators: sign in as a person "
                            "who is one (arena users add NAME --operator)", code="not-operator")
    if not await service_of(request).records.is_operator(person):
        raise ApiError(403, f"{person} is not an operator (an operator of the server runs "
                            f"'arena users operator {person}' to make them one)",
                       code="not-operator")
    return person


def _capped(rows: list[Any]) -> tuple[list[Any], bool]:
    return rows[:OPERATOR_LISTED], len(rows) > OPERATOR_LISTED


async def operator_people(request: web.Request) -> web.Response:
    service = service_of(request)
    name = await operator_of(request)
    people, truncated = _capped(await service.records.people())
    return json_response({"operator": name, "truncated": truncated, "people": [
        {"name": p.name, "created": p.created, "bots": p.bots, "operator": p.operator}
        for p in people]})


async def operator_bots(request: web.Request) -> web.Response:
    service = service_of(request)
    name = await operator_of(request)
    every = await service.records.bots()
    bots, truncated = _capped([bot for bot in every if not is_guest(bot.name)])
    versions: dict[str, int] = {}
    for owner in sorted({bot.owner for bot in bots if bot.owner is not None}):
        versions.update((owned.name, owned.version)
                        for owned in await service.records.owned_bots(owner))
    return json_response({"operator": name, "truncated": truncated,
                          "guests": sum(1 for bot in every if is_guest(bot.name)), "bots": [
        {"name": bot.name, "owner": bot.owner, "operator": bot.operator,
         "revoked": bot.revoked, "created": bot.created, "version": versions.get(bot.name),
         "connected": service.connected(bot.name),
         "games_in_flight": len(service.live_games_of(bot.name))}
        for bot in bots]})


async def operator_games(request: web.Request) -> web.Response:
    service = service_of(request)
    name = await operator_of(request)
    rows = await service.records.games(status="running", limit=OPERATOR_LISTED + 1)
    listed, truncated = _capped(rows)
    plays = service.config.role != "gateway"  # a gateway's bots play on the hosts
    return json_response({"operator": name, "truncated": truncated, "games": [
        {**row.to_json(), "here": plays and any(row.id in service.live_games_of(player)
                                                for player in row.players)} for row in listed]})


def _sqlite_file(db: str) -> str | None:
    """The SQLite file of a ``--db`` (`arena.storage.urls`'s forms), None for PostgreSQL
    (or an in-memory database)."""
    if "://" in db and not db.startswith("sqlite:///"):
        return None
    path = db.removeprefix("sqlite:///")
    return None if path in ("", ":memory:") else path


def _disk(db: str) -> dict[str, Any] | None:
    """The free and total bytes of the SQLite database's disk (None for PostgreSQL, whose
    disk is the database server's)."""
    path = _sqlite_file(db)
    if path is None:
        return None
    folder = Path(path).resolve().parent
    usage = shutil.disk_usage(folder)
    return {"path": str(folder), "free": usage.free, "total": usage.total}


async def operator_health(request: web.Request) -> web.Response:
    service = service_of(request)
    name = await operator_of(request)
    health = service.health()
    db = service.config.db
    try:
        disk = await asyncio.to_thread(_disk, db)
    except OSError:
        disk = None
    return json_response({"operator": name, **health,
                          "replays_in_flight": request.app[REPLAYS].in_flight,
                          "storage": _sqlite_file(db) or "postgresql", "disk": disk})


_TAG = "operator"
_NOT_OPERATOR = {403: "nobody is signed in, or the person is not an operator"}
_SESSION = ("session",)

ENDPOINTS = (
    Endpoint("GET", "/api/operator/people", operator_people, "Every person (operators only)",
             _TAG, security=_SESSION,
             answers={200: '{"operator", "truncated", "people": [{"name", "created", "bots", '
                           '"operator"}]}', **_NOT_OPERATOR}),
    Endpoint("GET", "/api/operator/bots", operator_bots,
             "Every bot account but the guests': owner, connected or not, version "
             "(operators only)", _TAG,
             security=_SESSION,
             answers={200: '{"operator", "truncated", "guests" (how many guest accounts the '
                           'web issued: not listed), "bots": [{"name", "owner" (null: the '
                           'operator\'s), "operator", "revoked", "created", "version" (null: '
                           'nobody\'s bot), "connected", "games_in_flight"}]}',
                      **_NOT_OPERATOR}),
    Endpoint("GET", "/api/operator/games", operator_games,
             "The running games (of every server on the database; operators only)", _TAG,
             security=_SESSION,
             answers={200: '{"operator", "truncated", "games": [a game as /api/games lists it, '
                           'with "here": played by this process]}', **_NOT_OPERATOR}),
    Endpoint("GET", "/api/operator/health", operator_health,
             "The server's and the storage's health (operators only)", _TAG,
             security=_SESSION,
             answers={200: '{"operator", the /healthz report ("status", "reason", '
                           '"reason_code" (not-started, resuming-games, storage-failed), '
                           '"games_in_flight", "connected_bots", "resumed_games", '
                           '"recovered_games", ...), "storage" (the SQLite file, or '
                           '"postgresql"), "disk": {"path", "free", "total"} (null for '
                           'PostgreSQL)}', **_NOT_OPERATOR}),
)
