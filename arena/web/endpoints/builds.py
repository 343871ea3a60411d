"""Hosted bots' uploads and builds (`arena.uploads`): an operator uploads a bot's program,
the server builds it in the sandbox; the bot's owner (its token) and operators read
its builds and their logs, and its program's standard error in each game.

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
import re
import secrets
import shutil
from pathlib import Path
from typing import BinaryIO

from aiohttp import BodyPartReader, StreamReader, web

from arena.service import Builds
from arena.storage.interface import BotAccount
from arena.uploads import LANGS, BuildQueueFull, UploadError
from arena.web.http import ApiError, json_response
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


async def _reader(request: web.Request, name: str) -> BotAccount:
    """The account of a request reading `name`'s builds: its owner or an operator."""
    account = await _account(request)
    if account.name != name and not account.operator:
        raise ApiError(403, f"only {name} (its token) and operators read its builds",
                       code="forbidden")
    return account


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
                                "limit)", code="too-large")
        await asyncio.to_thread(handle.write, chunk)


async def upload_build(request: web.Request) -> web.Response:
    uploads = _uploads(request)
    account = await _account(request)
    if not account.operator:
        raise ApiError(403, "uploads are an operator's (an operator token: 'arena bots add "
                            "NAME --operator')", code="forbidden")
    name = request.match_info["name"]
    lang = request.query.get("lang")
    if lang is None:
        raise ApiError(400, f"say the program's language: ?lang= one of {', '.join(LANGS)}")
    limit = uploads.upload_limits.archive_bytes
    multipart = request.content_type == "multipart/form-data"
    declared = request.content_length
    if declared is not None and declared > limit + (MULTIPART_SLACK if multipart else 0):
        raise ApiError(413, f"the body is {declared} bytes; at most {limit} are accepted "
                            "(the upload limit)", code="too-large")
    try:
        await uploads.check(name, lang)
    except BuildQueueFull as error:
        raise ApiError(503, str(error), code="builds-busy", headers={"Retry-After": "60"}
                       ) from None
    except UploadError as error:
        raise ApiError(400, str(error), code="bad-upload") from None
    folder = uploads.incoming / secrets.token_hex(8)
    folder.mkdir(mode=0o755)
    try:
        path = await _store_body(request, folder, lang, limit, multipart)
        try:
            row = await uploads.start(name, path, lang, remove_source=True)
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
                               code="bad-upload")
        else:
            await _receive(request.content, handle, limit)
    finally:
        await asyncio.to_thread(handle.close)
    head = await asyncio.to_thread(_head, temporary)
    if not head:
        raise ApiError(400, "the upload is empty", code="bad-upload")
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
_BUILD = ("id, bot, lang, status (building, ok, failed), created, finished, sha256 (of the "
          "sources), detail (why it failed)")
_READERS = {401: "no token, or an unknown one", 403: "neither the bot's token nor an operator's",
            404: "this server hosts no bots (code not-hosting)"}

ENDPOINTS = (
    Endpoint("POST", "/api/bots/{name}/builds", upload_build,
             "Upload a bot's program to be built and hosted (operators)", "hosted",
             params=(_NAME, Param("lang", f"the language: {', '.join(LANGS)}", required=True)),
             upload="application/octet-stream, multipart/form-data",
             answers={202: f"the build, being built ({_BUILD}); Location: where to read it",
                      400: "no or an unknown language, no such bot account, an empty body "
                           "or a form without a 'file' part (code bad-upload)",
                      401: "no token, or an unknown one", 403: "not an operator's token",
                      404: "this server hosts no bots (code not-hosting)",
                      413: "a program over the upload limit (16 MiB; code too-large)",
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
