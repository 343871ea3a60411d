"""One port for the bots' WebSocket and the web: the first protocol of every connection.

websockets' `serve()` listens on the port and calls its ``create_connection`` factory
for each accepted connection. `dispatching` makes that factory return a `Dispatcher`
instead of a websockets connection: it buffers the first request head (at most
`WebConfig.max_head` bytes, within `WebConfig.head_timeout` seconds), then hands the
transport over with ``transport.set_protocol``:

* a WebSocket upgrade goes to the real websockets connection (`ArenaConnection`),
  which from then on talks to the transport directly: the bots' fast path is exactly
  what it was, and the head is parsed and checked again by websockets itself;
* anything else goes to aiohttp's request handler (``AppRunner.server()``), which
  parses the head again, strictly, and serves the rest of the connection (keep-alive
  requests included). A connection handed to aiohttp never becomes a websockets
  connection (websockets' handler task starts in ``connection_made``, never called).

A head that is too long is answered 431, a malformed one 400 (JSON, like every error
of the HTTP API), and the connection is closed: neither library sees it.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

__all__ = ["Dispatcher", "Head", "HeadError", "dispatching", "no_http", "parse_head"]

_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_REQUEST_LINE = re.compile(rb"(" + _TOKEN + rb") ([\x21-\x7e]+) HTTP/1\.[01]")
_VCHARS = rb"[\x21-\x7e\x80-\xff]+"
_FIELD = re.compile(rb"(" + _TOKEN + rb"):[ \t]*((?:" + _VCHARS + rb"(?:[ \t]+" + _VCHARS
                    + rb")*)?)[ \t]*")


@dataclass(frozen=True)
class Head:
    """What the dispatcher needs of a request head."""

    method: str
    target: str
    websocket: bool
    """True for a WebSocket upgrade (an ``Upgrade`` header naming ``websocket``)."""


class HeadError(Exception):
    """A request head the port refuses: `status` (400 or 431) and what was wrong."""

    def __init__(self, status: HTTPStatus, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def parse_head(data: bytes, max_head: int) -> Head | None:
    """The request head at the start of `data`; None while it is incomplete.

    Raises:
        HeadError: the head is longer than `max_head` bytes (431), or is not an
            HTTP/1.x request line with header fields (400, naming the line).
    """
    end = data.find(b"\r\n\r\n", 0, max_head + 4)
    if end < 0:
        if len(data) >= max_head + 4:
            raise HeadError(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "head-too-large",
                            f"the request line and headers exceed {max_head} bytes")
        return None
    lines = data[:end].split(b"\r\n")
    request = _REQUEST_LINE.fullmatch(lines[0])
    if request is None:
        raise HeadError(HTTPStatus.BAD_REQUEST, "bad-request-line",
                        f"malformed request line {_quote(lines[0])}")
    upgrades = []
    for number, line in enumerate(lines[1:], start=2):
        field = _FIELD.fullmatch(line)
        if field is None:
            raise HeadError(HTTPStatus.BAD_REQUEST, "bad-header",
                            f"malformed header line {number}: {_quote(line)}")
        if field[1].lower() == b"upgrade":
            upgrades.append(field[2].lower())
    if len(upgrades) > 1:
        raise HeadError(HTTPStatus.BAD_REQUEST, "bad-header",
                        f"{len(upgrades)} Upgrade headers: send one")
    websocket = bool(upgrades) and b"websocket" in re.split(rb"[ \t]*,[ \t]*", upgrades[0])
    return Head(request[1].decode("ascii"), request[2].decode("ascii"), websocket)


def _quote(line: bytes) -> str:
    text = repr(line[:80])[2:-1]
    return f"'{text}…'" if len(line) > 80 else f"'{text}'"


def error_response(status: HTTPStatus, code: str, message: str) -> bytes:
    """A complete HTTP/1.1 JSON error response that closes the connection."""
    body = (json.dumps({"code": code, "message": message}) + "\n").encode()
    return (f"HTTP/1.1 {status.value} {status.phrase}\r\n"
            "Content-Type: application/json; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


ProtocolFactory = Callable[[], asyncio.Protocol]


class _NoHttp(asyncio.Protocol):
    """A plain HTTP connection to a server that has no HTTP side: 404, closed."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(error_response(
            HTTPStatus.NOT_FOUND, "not-found",
            "this server has no HTTP side: only its WebSocket protocol (docs/protocol.md)"))
        transport.close()


def no_http() -> asyncio.Protocol:
    """The HTTP handler of a server without a web (`ArenaServer` without a ``front``)."""
    return _NoHttp()


class Dispatcher(asyncio.Protocol):
    """A new connection until its first request head is read (module docstring)."""

    def __init__(self, websocket: ProtocolFactory, http: ProtocolFactory, *, max_head: int,
                 head_timeout: float, pending: set[Dispatcher]) -> None:
        self._websocket = websocket
        self._http = http
        self._max_head = max_head
        self._head_timeout = head_timeout
        self._pending = pending
        self._buffer = b""
        self._transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._pending.add(self)
        self._timer = asyncio.get_running_loop().call_later(self._head_timeout, self._too_slow)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        try:
            head = parse_head(self._buffer, self._max_head)
        except HeadError as error:
            self._refuse(error.status, error.code, error.message)
            return
        if head is not None:
            self._hand_over(self._websocket() if head.websocket else self._http())

    def eof_received(self) -> bool:
        self.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._done()

    def close(self) -> None:
        """Drop the connection (the server is shutting down, or the peer left)."""
        self._done()
        if self._transport is not None:
            self._transport.close()

    def _hand_over(self, protocol: asyncio.Protocol) -> None:
        self._done()
        transport = self._transport
        assert transport is not None
        data, self._buffer = self._buffer, b""
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        if not transport.is_closing():
            protocol.data_received(data)

    def _too_slow(self) -> None:
        self._timer = None
        self._refuse(HTTPStatus.REQUEST_TIMEOUT, "head-timeout",
                     f"no complete request head within {self._head_timeout:g} s")

    def _refuse(self, status: HTTPStatus, code: str, message: str) -> None:
        transport = self._transport
        self._done()
        if transport is not None and not transport.is_closing():
            transport.write(error_response(status, code, message))
            transport.close()

    def _done(self) -> None:
        self._pending.discard(self)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def dispatching(websocket: Callable[..., asyncio.Protocol], http: ProtocolFactory, *,
                max_head: int, head_timeout: float,
                pending: set[Dispatcher]) -> Callable[..., Dispatcher]:
    """A ``create_connection`` factory for websockets' `serve()`: called with websockets'
    sans-I/O protocol, its server and the connection's options, it returns a
    `Dispatcher` that makes the real ``websocket(protocol, server, **options)`` only
    for a WebSocket upgrade. `pending` holds the connections still being dispatched."""

    def create_connection(protocol: Any, server: Any, **options: Any) -> Dispatcher:
        return Dispatcher(lambda: websocket(protocol, server, **options), http,
                          max_head=max_head, head_timeout=head_timeout, pending=pending)

    return create_connection
