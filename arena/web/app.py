"""The HTTP side of the arena: an aiohttp application in the server's own process and loop.

`WebFront` is its lifecycle, in aiohttp's order: `start` sets the application up
(``AppRunner.setup``), `protocol` makes the request handler the port's dispatcher
hands plain HTTP connections to (`arena.server.dispatch`), `close` closes idle
keep-alive connections, waits for requests in progress and stops the replay workers
(``AppRunner.cleanup``). There is no site of aiohttp's own: the port is websockets'.

The application: the endpoints of `arena.web.endpoints` (its OpenAPI document at
``/api/openapi.json``), JSON errors (`arena.web.http.errors`), refusal of requests to
names that are not the server's (`arena.web.origins.host_guard`), of compressed
bodies (`arena.web.http.refuse_encoded_bodies`) and of state-changing requests from
foreign pages (`arena.web.origins.cross_site_guard`),
gzip for text, and `WebFront.websocket_request`, the check of the WebSocket handshake
(host, origin, guest cookie) that runs in websockets' ``process_request``.
"""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from arena.server.connection import ArenaConnection
from arena.web import GUEST_COOKIE
from arena.web.endpoints import endpoints
from arena.web.endpoints.accounts import ACCOUNTS, Accounts
from arena.web.endpoints.launch import MATCHES, RUNS, Matches
from arena.web.endpoints.play import QUOTAS, GuestQuotas
from arena.web.endpoints.replays import REPLAYS, Replays
from arena.web.endpoints.status import OPENAPI
from arena.web.http import PRESET_CHANGES, compress, errors, refuse_encoded_bodies
from arena.web.openapi import openapi_document
from arena.web.origins import ServerNames, cross_site_guard, host_guard, websocket_origin_problem
from arena.web.quota import RateLimit
from arena.web.routes import SERVER
from arena.web.tournaments import TournamentRuns

if TYPE_CHECKING:
    from arena.server.app import ArenaServer

__all__ = ["WebFront", "make_app"]


class _BadRequestsAreNotErrors(logging.Filter):
    """aiohttp logs a malformed request as an error with a traceback; it is the
    client's fault, answered 400: one line at INFO."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = f"{record.msg}: %s"
            record.args = (*(record.args or ()), str(error.message).splitlines()[0])
            record.exc_info = record.exc_text = None
        return True


_QUIET = _BadRequestsAreNotErrors()
logging.getLogger("aiohttp.server").addFilter(_QUIET)


def make_app(server: ArenaServer) -> web.Application:
    """The aiohttp application serving `server`'s HTTP side."""
    config = server.config.web
    app = web.Application(middlewares=[compress, errors, host_guard(server_names(server)),
                                       refuse_encoded_bodies, cross_site_guard(config.origins)],
                          client_max_size=config.max_upload)
    app[SERVER] = server
    app[QUOTAS] = GuestQuotas(RateLimit(config.guests_per_client_minute),
                              RateLimit(server.config.guests_per_minute))
    app[PRESET_CHANGES] = RateLimit(config.presets_per_client_minute)
    app[REPLAYS] = Replays(config, server.registry)
    app[MATCHES] = Matches(config)
    app[ACCOUNTS] = Accounts.of(server.config.accounts)
    app[RUNS] = TournamentRuns(config, Path(server.config.tournaments)
                               if server.config.tournaments else None)
    served = endpoints(server.registry)
    app[OPENAPI] = openapi_document(served, version=_version())
    for endpoint in served:
        if endpoint.method == "GET":  # and HEAD
            app.router.add_get(endpoint.path, endpoint.handler, name=endpoint.operation_id)
        else:
            app.router.add_route(endpoint.method, endpoint.path, endpoint.handler,
                                 name=endpoint.operation_id)

    async def stop_replays(app: web.Application) -> None:
        app[RUNS].close()
        app[REPLAYS].close()
        app[ACCOUNTS].passwords.close()

    app.on_cleanup.append(stop_replays)
    return app


def server_names(server: ArenaServer) -> ServerNames:
    """The names requests may come to: ``--server-name``s and the bound address."""
    return ServerNames.of((*server.config.web.server_names, server.config.host or ""))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arena")
    except PackageNotFoundError:
        return "0"


class WebFront:
    """The HTTP side's lifecycle (module docstring)."""

    def __init__(self, server: ArenaServer) -> None:
        self.server = server
        self.app = make_app(server)
        config = server.config.web
        self._runner = web.AppRunner(
            self.app, handle_signals=False, access_log=None, shutdown_timeout=5.0,
            keepalive_timeout=config.keepalive_timeout, max_line_size=config.max_head,
            max_field_size=config.max_head,
            # nothing is inflated: compressed bodies are refused unread (refuse_encoded_bodies)
            auto_decompress=False)
        self._names = server_names(server)
        self._closed = False

    async def start(self) -> None:
        await self._runner.setup()

    def protocol(self) -> asyncio.Protocol:
        """A request handler for one plain HTTP connection (aiohttp's)."""
        server = self._runner.server
        if server is None or self._closed:
            raise RuntimeError("the web front is not running")
        return server()

    async def close(self) -> None:
        """Close keep-alive connections, finish requests in progress, stop the replay
        workers. Safe to call twice."""
        if not self._closed:
            self._closed = True
            await self._runner.cleanup()

    async def websocket_request(self, connection: ServerConnection,
                                request: Request) -> Response | None:
        """websockets' ``process_request``: refuse a foreign page's handshake (403) or a
        browser's to a name that is not the server's (421), and note the guest cookie a
        browser's handshake carries (`ArenaConnection`). A bot sends no ``Origin``:
        it may come by any name."""
        hosts = request.headers.get_all("Host")
        if request.headers.get_all("Origin"):
            misdirected = self._names.problem(hosts)
            if misdirected is not None:
                return connection.respond(HTTPStatus.MISDIRECTED_REQUEST, misdirected + "\n")
        problem = websocket_origin_problem(request.headers.get_all("Origin"),
                                           hosts[0] if len(hosts) == 1 else None,
                                           self.server.config.web.origins)
        if problem is not None:
            return connection.respond(HTTPStatus.FORBIDDEN, problem + "\n")
        for header in request.headers.get_all("Cookie"):
            try:
                morsel = SimpleCookie(header).get(GUEST_COOKIE)
            except CookieError:
                continue
            if morsel is not None and morsel.value and isinstance(connection, ArenaConnection):
                connection.cookie_token = morsel.value
        return None
