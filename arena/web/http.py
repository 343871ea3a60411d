"""The HTTP API's conventions on top of aiohttp: JSON answers, JSON errors, bodies with limits.

Every error is JSON, ``{"code": CODE, "message": TEXT}`` (plus fields an endpoint
adds), with a stable `code`: handlers raise `ApiError`; aiohttp's own errors (404,
405, 413) and anything a handler did not expect (500, logged, no traceback sent) are
turned into the same shape by the `errors` middleware.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from aiohttp import web

from arena import json_bounds
from arena.errors import ArenaError
from arena.service import StorageUnavailable
from arena.storage.interface import StorageFailure
from arena.web.quota import RateLimit, client_key

__all__ = [
    "PRESET_CHANGES",
    "ApiError",
    "accepts_gzip",
    "check_preset_change",
    "compress",
    "errors",
    "json_response",
    "read_body",
    "read_json",
    "reason_fields",
    "refuse_encoded_bodies",
    "send_file",
]

log = logging.getLogger("arena.web")

T = TypeVar("T")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

CODES = {
    400: "bad-request", 403: "forbidden", 404: "not-found", 405: "method-not-allowed",
    408: "timeout", 409: "conflict", 413: "too-large", 415: "unsupported-media-type",
    421: "misdirected-request", 429: "too-many-requests", 431: "head-too-large",
    500: "internal-error", 503: "unavailable",
}
"""The default `code` of each error status."""

COMPRESSED = ("application/json", "text/javascript", "text/css", "text/html", "image/svg+xml")
"""Content types sent gzipped (or deflated) to clients that accept it."""


class ApiError(Exception):
    """An error answer: HTTP `status`, a stable `code`, a `message` naming what was wrong."""

    def __init__(self, status: int, message: str, *, code: str | None = None,
                 headers: dict[str, str] | None = None, **fields: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code or CODES.get(status, "error")
        self.message = message
        self.headers = headers or {}
        self.fields = fields

    def response(self) -> web.Response:
        return json_response({"code": self.code, "message": self.message, **self.fields},
                             status=self.status, headers=self.headers)


def reason_fields(error: ArenaError | ValueError) -> dict[str, Any]:
    """The fields an error answer adds for an `ArenaError` with a code (its
    ``reason_code`` and ``reason_params``, a page's words for it: docs/web.md,
    "Languages"); none for another."""
    code = getattr(error, "code", None)
    if not isinstance(error, ArenaError) or not isinstance(code, str) or not code:
        return {}
    return {"reason_code": code, "reason_params": dict(error.params)}


PRESET_CHANGES: web.AppKey[RateLimit] = web.AppKey("arena.preset-changes")
"""Saves and deletions of any game's presets per client address
(`WebConfig.presets_per_client_minute`)."""


async def check_preset_change(request: web.Request) -> None:
    """Count a save or deletion of a preset against the client's budget.

    Raises:
        ApiError: 429 with ``Retry-After`` when the client's address is over its budget.
    """
    limit = request.app[PRESET_CHANGES]
    wait = await limit.wait(client_key(request.remote))
    if wait > 0:
        raise ApiError(429, f"at most {limit.per_minute} presets saved or deleted a minute "
                            f"from your address; try again in {math.ceil(wait)} s",
                       headers={"Retry-After": str(max(1, math.ceil(wait)))})


def json_response(data: Any, *, status: int = 200,
                  headers: dict[str, str] | None = None) -> web.Response:
    """A JSON answer (UTF-8, never cached: the API's data changes all the time)."""
    response = web.json_response(
        data, status=status, headers=headers,
        dumps=lambda value: json.dumps(value, ensure_ascii=False, default=str))
    response.headers["Cache-Control"] = "no-store"
    return response


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every error as JSON with a code (module docstring)."""
    try:
        return await handler(request)
    except ApiError as error:
        return error.response()
    except web.HTTPException as error:
        if error.status < 400:
            raise
        headers = {"Allow": error.headers["Allow"]} if "Allow" in error.headers else None
        message = error.text if error.text and error.text != f"{error.status}: {error.reason}" \
            else error.reason
        if error.status == 404:
            message = f"no endpoint {request.method} {request.path} (see /api/openapi.json)"
        elif error.status == 405:
            message = (f"{request.method} is not allowed on {request.path}; "
                       f"allowed: {error.headers.get('Allow', '')}")
        # aiohttp's own 413: a body beyond the application's client_max_size
        fields: dict[str, Any] = {"reason_code": "body-too-large", "reason_params": {
            "most": request.client_max_size}} if error.status == 413 else {}
        return ApiError(error.status, message, headers=headers, **fields).response()
    except (ArenaError, ValueError) as error:
        if isinstance(error, StorageFailure | StorageUnavailable):  # the server's fault
            return ApiError(503, f"the server cannot store anything now ({error}); try "
                                 "again later", code="storage-unavailable",
                            headers={"Retry-After": "30"}).response()
        # bad input the game or registry refused; its code, if any, for a page's words
        return ApiError(400, str(error), **reason_fields(error)).response()
    except Exception:
        log.exception("%s %s failed", request.method, request.path)
        return ApiError(500, "internal server error (the server logged it)").response()


@web.middleware
async def compress(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Gzip JSON, JavaScript, CSS, HTML and SVG for clients that accept it (aiohttp
    compresses large bodies in a thread). Not for a conditional request of a file,
    which is mostly answered 304 without a body (aiohttp would add a gzip trailer)."""
    response = await handler(request)
    conditional = isinstance(response, web.FileResponse) and (
        "If-None-Match" in request.headers or "If-Modified-Since" in request.headers)
    if (response.content_type in COMPRESSED and "Content-Encoding" not in response.headers
            and not response.prepared and not conditional and accepts_gzip(request)):
        response.enable_compression(web.ContentCoding.gzip)
    return response


def accepts_gzip(request: web.Request) -> bool:
    """Whether the answer to `request` may be gzipped (it takes gzip; not a HEAD)."""
    return request.method != "HEAD" and "gzip" in request.headers.get("Accept-Encoding",
                                                                     "").lower()


ANSWER_CHUNK = 256 * 1024
"""Bytes of a file answer read (and sent) at a time (`send_file`)."""


async def send_file(request: web.Request, path: Path, *, seconds: float, gzipped: bool = False,
                    content_type: str = "application/json") -> web.StreamResponse:
    """Answer with the file at `path` (already gzipped if `gzipped`: the server
    compresses nothing), a chunk at a time, each read in a thread and sent before the
    next is read, so the server holds a chunk of it, whatever its size. A client that
    has not read the answer within `seconds` is cut off: its answer ends short of its
    ``Content-Length``, never in a whole-looking one."""
    stream = await asyncio.to_thread(path.open, "rb")
    try:
        response = web.StreamResponse(headers={"Cache-Control": "no-store",
                                               "Vary": "Accept-Encoding"})
        response.content_type = content_type
        response.charset = "utf-8"
        if gzipped:
            response.headers["Content-Encoding"] = "gzip"
        response.content_length = os.fstat(stream.fileno()).st_size
        await response.prepare(request)
        try:
            async with asyncio.timeout(seconds):
                while chunk := await asyncio.to_thread(stream.read, ANSWER_CHUNK):
                    await response.write(chunk)
        except (TimeoutError, ConnectionError):
            if request.transport is not None:  # the client left, or is too slow
                request.transport.abort()
            return response
        await response.write_eof()
        return response
    finally:
        stream.close()


@web.middleware
async def refuse_encoded_bodies(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse a request whose body is compressed (``Content-Encoding``: 415), before a
    byte of it is read.

    Browsers never compress what they send, and no endpoint takes a compressed body: a
    gzip bomb (256 MiB of newlines in 260 KB) cost the event loop a second of
    inflation before the body's limit could see it (issue 22, finding 1). aiohttp
    inflates nothing here either (`arena.web.app.WebFront` turns its
    ``auto_decompress`` off), so an unread body costs only its compressed bytes."""
    codings = [c.strip().lower() for value in request.headers.getall("Content-Encoding", ())
               for c in value.split(",") if c.strip()]
    if any(coding != "identity" for coding in codings):
        raise ApiError(415, f"request bodies are not accepted compressed (Content-Encoding: "
                            f"{', '.join(codings)[:60]}); send the body as it is",
                       code="compressed-body")
    return await handler(request)


async def read_body(request: web.Request, limit: int) -> bytes:
    """The request's body, refused with 413 beyond `limit` bytes before it is read
    (a declared ``Content-Length``) or as soon as it passes the limit (chunked)."""
    if request.content_length is not None and request.content_length > limit:
        raise ApiError(413, f"the body is {request.content_length} bytes; at most {limit} "
                            "are accepted here", reason_code="body-too-large",
                       reason_params={"most": limit})
    body = bytearray()
    async for chunk in request.content.iter_any():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"the body is longer than {limit} bytes",
                           reason_code="body-too-large", reason_params={"most": limit})
    return bytes(body)


async def read_json(request: web.Request, kind: type[T], limit: int) -> T:
    """The request's JSON body, decoded, held to the bounds of a stranger's JSON
    (`arena.json_bounds`: nesting, numbers) and checked as `kind` (a msgspec Struct)."""
    if request.content_type != "application/json":
        raise ApiError(415, f"send the body as application/json, not {request.content_type!r}")
    body = await read_body(request, limit)
    try:
        value = msgspec.json.decode(body or b"{}")
        json_bounds.check(value, "the body")
        return msgspec.convert(value, type=kind)
    except msgspec.ValidationError as error:
        raise ApiError(400, f"bad request body: {error}") from None
    except msgspec.DecodeError as error:
        raise ApiError(400, f"the body is not JSON: {error}") from None
    except RecursionError:
        raise ApiError(400, f"the body nests deeper than {json_bounds.MAX_DEPTH} levels") \
            from None
    except json_bounds.JsonBoundsError as error:
        raise ApiError(400, str(error)) from None

