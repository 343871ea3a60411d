"""Hosted bots' uploads and builds (`arena.uploads`): an operator (a token) or the bot's
owner (signed in: the person's session cookie of `arena.web.endpoints.accounts`, with
its same-site and origin protections) uploads a bot's program, the server builds it in
the sandbox; the bot's owner (its token, or the signed-in person it belongs to) and
operators read its builds and their logs, and its program's standard error in each game.
A person uploads at most `AccountsConfig.builds_per_day` programs a day, of all their
bots (429 ``build-budget``), and a successful build is a version of the bot, within
their versions a day (409 ``limit-reached`` before the build).

The body of an upload is the program itself -- a single source file or an archive (zip,
tar, tar.gz, tar.bz2, tar.xz, recognised by their first bytes) -- either raw or as the
``file`` part of a ``multipart/form-data`` form. Its size is checked against
`UploadLimits.archive_bytes` before a byte is read (a declared ``Content-Length``) and
while it is written to the hosted directory (chunked): beyond it, 413. The build runs
after the answer (202, with the build's id): ``GET /api/bots/{name}/builds/{id}`` says
when it is done, with its log.
"""

from __future__ import annotations

import asyncio
import math
import re
import secrets
import shutil
import time
from pathlib import Path
from typing import BinaryIO

from aiohttp import BodyPartReader, StreamReader, web

from arena.service import Builds
from arena.storage.interface import BotAccount
from arena.storage.people import DAY
from arena.uploads import LANGS, BuildQueueFull, UploadError, VersionBudget
from arena.web.endpoints.accounts import person_of
from arena.web.http import ApiError, json_response, reason_fields
from arena.web.routes import Endpoint, Param, service_of

__all__ = ["ENDPOINTS"]

MULTIPART_SLACK = 64 * 1024
"""Bytes a multipart body may have beyond its file (boundaries, headers, other fields)."""

DEFAULT_NAMES = {"python": "bot.py", "c": "bot.c", "cpp": "bot.cpp", "js": "bot.js",
                 "go": "bot.go", "java": "Bot.java", "binary": "bot"}
"""The name a raw single-file upload is given, per language (its entry)."""

_MAGIC = ((b"PK\x03\x04", "bot.zip"), (b"\x1f\x8b", "bot.tar.gz"), (b"BZh", "bot.tar.bz2"),
          (b"\xfd7zXZ\x00", "bot.tar.xz"))
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def _bearer(request: web.Request) -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "send a token as 'Authorization: Bearer TOKEN'",
                       code="unauthorized", headers={"WWW-Authenticate": "Bearer"})
    return token.strip()


async def _account(request: web.Request) -> BotAccount:
    account = await service_of(request).records.authenticate(_bearer(request))
    if account is None:
        raise ApiError(401, "unknown or revoked token", code="unauthorized",
                       headers={"WWW-Authenticate": "Bearer"})
    return account


async def _owner(request: web.Request, name: str) -> str | None:
    """The signed-in person of a request without a token, if `name` is a bot of theirs
    (None: the request carries a token instead).

    Raises:
        ApiError: 401 with neither a token nor a session; 403 for another's bot.
    """
    if "Authorization" in request.headers:
        return None
    person = await person_of(request)
    if person is None:
        raise ApiError(401, "send a token as 'Authorization: Bearer TOKEN', or sign in "
                            "(POST /api/account/signin)", code="unauthorized",
                       headers={"WWW-Authenticate": "Bearer"})
    if not any(bot.name == name and not bot.revoked
               for bot in await service_of(request).records.owned_bots(person)):
        raise ApiError(403, f"{name} is no bot of yours", code="forbidden")
    return person


async def _reader(request: web.Request, name: str) -> None:
    """Let a request read `name`'s builds: its token, its owner signed in, or an
    operator's token."""
    if await _owner(request, name) is not None:
        return
    account = await _account(request)
    if account.name != name and not account.operator:
        raise ApiError(403, f"only {name} (its token or its owner) and operators read its "
                            "builds", code="forbidden")


async def _within_builds_a_day(request: web.Request, person: str) -> None:
    """Refuse (429) a person's upload beyond their builds a day, of all their bots."""
    service = service_of(request)
    per_day = service.config.accounts.builds_per_day
    now = time.time()
    created: list[float] = []
    for bot in await service.records.owned_bots(person):
        created += [row.created for row in await service.records.builds(bot.name, limit=per_day)
                    if row.created > now - DAY]
    if len(created) >= per_day:
        wait = max(1, math.ceil(sorted(created, reverse=True)[per_day - 1] + DAY - now))
        raise ApiError(429, f"a person uploads at most {per_day} programs a day, of all "
                            f"their bots; the next one in {math.ceil(wait / 3600)} h",
                       code="build-budget", headers={"Retry-After": str(wait)})


def _uploads(request: web.Request) -> Builds:
    uploads = service_of(request).uploads
    if uploads is None:
        raise ApiError(404, "this server hosts no bots (start it with --hosted-dir DIR)",
                       code="not-hosting")
    return uploads


def _name_for(head: bytes, given: str | None, lang: str) -> str:
    """The file name of an uploaded program: an archive's by its first bytes, else the
    name it came with (if plain), else the language's entry name."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    if len(head) >= 262 and head[257:262] == b"ustar":
        return "bot.tar"
    if given is not None:
        base = Path(given.replace("\\", "/")).name
        if _SAFE_NAME.fullmatch(base) and not base.lower().endswith(
                (".zip", ".tar", ".gz", ".tgz", ".bz2", ".tbz2", ".xz", ".txz")):
            return base
    return DEFAULT_NAMES[lang]


async def _receive(chunks: StreamReader | BodyPartReader, handle: BinaryIO,
                   limit: int) -> None:
    """Write the body (or part) to `handle`, refusing it (413) past `limit` bytes."""
    written = 0
    while True:
        if isinstance(chunks, BodyPartReader):
            chunk = await chunks.read_chunk(65536)
        else:
            chunk = await chunks.read(65536)
        if not chunk:
            return
        written += len(chunk)
        if written > limit:
            raise ApiError(413, f"the program is longer than {limit} bytes (the upload "
                                "limit)", code="too-large", reason_code="upload-too-large",
                           reason_params={"mib": f"{limit / 2**20:.3g}"})
        await asyncio.to_thread(handle.write, chunk)


async def upload_build(request: web.Request) -> web.Response:
    uploads = _uploads(request)
    name = request.match_info["name"]
    person = await _owner(request, name)
    if person is None:
        account = await _account(request)
        if not account.operator:
            raise ApiError(403, "uploads are the bot's owner's (signed in) or an operator's "
                                "(an operator token: 'arena bots add NAME --operator')",
                           code="forbidden")
    lang = request.query.get("lang")
    if lang is None:
        raise ApiError(400, f"say the program's language: ?lang= one of {', '.join(LANGS)}",
                       reason_code="upload-no-lang", reason_params={"known": ", ".join(LANGS)})
    speaks = request.query.get("speaks", "lines")
    limit = uploads.upload_limits.archive_bytes
    multipart = request.content_type == "multipart/form-data"
    declared = request.content_length
    if declared is not None and declared > limit + (MULTIPART_SLACK if multipart else 0):
        raise ApiError(413, f"the body is {declared} bytes; at most {limit} are accepted "
                            "(the upload limit)", code="too-large",
                       reason_code="upload-too-large", reason_params={"mib": f"{limit / 2**20:.3g}"})
    if person is not None:
        await _within_builds_a_day(request, person)
    try:
        await uploads.check(name, lang, speaks)
    except VersionBudget as error:
        raise ApiError(409, str(error), code="limit-reached", reason_code=error.code,
                       reason_params=error.params) from None
    except BuildQueueFull as error:
        raise ApiError(503, str(error), code="builds-busy", headers={"Retry-After": "60"}
                       ) from None
    except UploadError as error:
        raise ApiError(400, str(error), code="bad-upload", **reason_fields(error)) from None
    folder = uploads.incoming / secrets.token_hex(8)
    folder.mkdir(mode=0o755)
    try:
        path = await _store_body(request, folder, lang, limit, multipart)
        try:
            row = await uploads.start(name, path, lang, remove_source=True, speaks=speaks)
        except VersionBudget as error:
            raise ApiError(409, str(error), code="limit-reached", reason_code=error.code,
                           reason_params=error.params) from None
        except BuildQueueFull as error:
            raise ApiError(503, str(error), code="builds-busy", headers={"Retry-After": "60"}
                           ) from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return json_response(row.to_json(), status=202,
                         headers={"Location": f"/api/bots/{name}/builds/{row.id}"})


async def _store_body(request: web.Request, folder: Path, lang: str, limit: int,
                      multipart: bool) -> Path:
    """The program the request carries, written into `folder` under its file name."""
    temporary = folder / ".body"
    given: str | None = None
    handle = await asyncio.to_thread(temporary.open, "wb")
    try:
        if multipart:
            reader = await request.multipart()
            found = False
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader) or part.name != "file":
                    continue
                given = part.filename
                await _receive(part, handle, limit)
                found = True
                break
            if not found:
                raise ApiError(400, "the form has no 'file' part (the program)",
                               code="bad-upload", reason_code="upload-no-file", reason_params={})
        else:
            await _receive(request.content, handle, limit)
    finally:
        await asyncio.to_thread(handle.close)
    head = await asyncio.to_thread(_head, temporary)
    if not head:
        raise ApiError(400, "the upload is empty", code="bad-upload", reason_code="upload-empty",
                       reason_params={})
    path = folder / _name_for(head, given, lang)
    temporary.rename(path)
    return path


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(262)


async def builds(request: web.Request) -> web.Response:
    uploads = _uploads(request)
    name = request.match_info["name"]
    await _reader(request, name)
    rows = await service_of(request).records.builds(name)
    current = await uploads.current(name)
    return json_response({"bot": name, "builds": [row.to_json() for row in rows],
                          "current": None if current is None else current[0].id})


async def build(request: web.Request) -> web.Response:
    _uploads(request)  # 404 when this server hosts no bots
    name = request.match_info["name"]
    await _reader(request, name)
    row = await service_of(request).records.build(request.match_info["id"])
    if row is None or row.bot != name:
        raise ApiError(404, f"no build {request.match_info['id']!r} of {name}",
                       code="unknown-build")
    return json_response(row.to_json(with_log=True))


async def stderr(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    await _reader(request, name)
    game_id = request.match_info["id"]
    text = await service_of(request).records.stderr(game_id, name)
    if text is None:
        raise ApiError(404, f"no standard error of {name} kept for game {game_id!r}",
                       code="unknown-game")
    return json_response({"game_id": game_id, "bot": name, "stderr": text})


_NAME = Param("name", "the bot's account", required=True, where="path")
_BUILD = ("id, bot, lang, status (building, ok, failed), speaks (lines, ws), created, "
          "finished, sha256 (of the sources), detail (why it failed), detail_code and "
          "detail_params (why, by code: docs/web.md, Languages)")
_READERS = {401: "no token nor session, or an unknown token",
            403: "neither the bot's token, its owner signed in nor an operator's token",
            404: "this server hosts no bots (code not-hosting)"}

ENDPOINTS = (
    Endpoint("POST", "/api/bots/{name}/builds", upload_build,
             "Upload a bot's program to be built and hosted (its owner signed in, operators)",
             "hosted",
             params=(_NAME, Param("lang", f"the language: {', '.join(LANGS)}", required=True),
                     Param("speaks", "what the program speaks: lines (the line protocol on "
                                     "its standard streams, the default) or ws (WebSocket to "
                                     "ws://127.0.0.1:8765/ with $ARENA_TOKEN, as the "
                                     "starter kits)")),
             upload="application/octet-stream, multipart/form-data",
             answers={202: f"the build, being built ({_BUILD}); Location: where to read it",
                      400: "no or an unknown language, an unknown speaks, no such bot "
                           "account, an empty body "
                           "or a form without a 'file' part (code bad-upload; why in "
                           "reason_code and reason_params)",
                      401: "no token nor session, or an unknown token",
                      403: "neither an operator's token nor the bot's owner signed in",
                      404: "this server hosts no bots (code not-hosting)",
                      409: "a successful build would be one of the owner's versions beyond "
                           "their versions a day (code limit-reached)",
                      413: "a program over the upload limit (16 MiB; code too-large)",
                      429: "the person uploaded their builds a day (20; code build-budget, "
                           "with Retry-After)",
                      503: "too many builds running and waiting (code builds-busy, with "
                           "Retry-After)"}),
    Endpoint("GET", "/api/bots/{name}/builds", builds, "A hosted bot's builds, newest first "
             "(its owner, operators)", "hosted", params=(_NAME,),
             answers={200: f"bot, builds ([{_BUILD}]), current (the id of the build it "
                           "plays, or null)", **_READERS}),
    Endpoint("GET", "/api/bots/{name}/builds/{id}", build, "One build with its log (its "
             "owner, operators)", "hosted",
             params=(_NAME, Param("id", "the build's id", required=True, where="path")),
             answers={200: f"{_BUILD}, log (the build log: the compiler's output, bounded)",
                      **_READERS, 404: "no such build, or this server hosts no bots"}),
    Endpoint("GET", "/api/bots/{name}/games/{id}/stderr", stderr, "A hosted bot's standard "
             "error and debug lines in one game (its owner, operators)", "hosted",
             params=(_NAME, Param("id", "the game's id", required=True, where="path")),
             answers={200: "game_id, bot, stderr (its standard error and its '# ' lines, in "
                           "order: the first 64 KiB; lines cut at 1 KiB)",
                      401: _READERS[401], 403: _READERS[403],
                      404: "nothing kept for that bot in that game"}),
)
