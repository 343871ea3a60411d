"""The HTTP side of the arena: an aiohttp application in the server's own process and loop.

`WebFront` is the server's `arena.service.HttpFront`, made by the composition root
(`arena.app`) with the server as its `arena.service.ArenaService`, the one interface the
web uses (it imports nothing of `arena.server`). Its lifecycle, in aiohttp's order: `start` sets the application up
(``AppRunner.setup``), `protocol` makes the request handler the port's dispatcher
hands plain HTTP connections to (`arena.server.dispatch`), `close` closes idle
keep-alive connections, waits for requests in progress and stops the replay workers
(``AppRunner.cleanup``). There is no site of aiohttp's own: the port is websockets',
with the dispatcher the composition root starts (`arena.server.dispatch.OnePort`).

The application: the endpoints of `arena.web.endpoints` (its OpenAPI document at
``/api/openapi.json``), JSON errors (`arena.web.http.errors`), refusal of requests to
names that are not the server's (`arena.web.origins.host_guard`), of compressed
bodies (`arena.web.http.refuse_encoded_bodies`) and of state-changing requests from
foreign pages (`arena.web.origins.cross_site_guard`),
gzip for text, and `WebFront.check_handshake`, the check of the WebSocket handshake
(host, origin, guest cookie) that the composition root gives the server's WebSocket
side (`ArenaServer.websocket_side`), run in websockets' ``process_request``.
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
from websockets.http11 import Request

from arena.service import Handshake, HttpFront
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
from arena.web.routes import SERVICE
from arena.web.seasons import SEASONS, SeasonKeeper
from arena.web.tournaments import TournamentRuns

if TYPE_CHECKING:
    from arena.counters import Counters
    from arena.service import ArenaService

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


def make_app(service: ArenaService) -> web.Application:
    """The aiohttp application serving `service`'s HTTP side."""
    config = service.config.web
    app = web.Application(middlewares=[compress, errors, host_guard(server_names(service)),
                                       refuse_encoded_bodies, cross_site_guard(config.origins)],
                          client_max_size=config.max_upload)
    app[SERVICE] = service

    def counters() -> Counters:  # the server's, shared by the arena's processes
        return service.counters

    app[QUOTAS] = GuestQuotas(
        RateLimit("guests-per-client", config.guests_per_client_minute, counters),
        RateLimit("guests", service.config.guests_per_minute, counters))
    app[PRESET_CHANGES] = RateLimit("preset-changes-per-client",
                                    config.presets_per_client_minute, counters)
    app[REPLAYS] = Replays(config, service.registry)
    app[MATCHES] = Matches(config, counters)
    app[ACCOUNTS] = Accounts.of(service.config.accounts, counters)
    app[RUNS] = TournamentRuns(config, Path(service.config.tournaments)
                               if service.config.tournaments else None)
    app[SEASONS] = SeasonKeeper(service, app[RUNS])
    served = endpoints(service.registry)
    app[OPENAPI] = openapi_document(served, version=_version())
    for endpoint in served:
        if endpoint.method == "GET":  # and HEAD
            app.router.add_get(endpoint.path, endpoint.handler, name=endpoint.operation_id)
        else:
            app.router.add_route(endpoint.method, endpoint.path, endpoint.handler,
                                 name=endpoint.operation_id)

    async def start_seasons(app: web.Application) -> None:
        app[SEASONS].start()

    async def stop_replays(app: web.Application) -> None:
        await app[SEASONS].close()  # first: a final stopped now is played again at a restart
        app[RUNS].close()
        app[MATCHES].close()
        app[REPLAYS].close()
        app[ACCOUNTS].passwords.close()

    app.on_startup.append(start_seasons)
    app.on_cleanup.append(stop_replays)
    return app


def server_names(service: ArenaService) -> ServerNames:
    """The names requests may come to: ``--server-name``s and the bound address."""
    return ServerNames.of((*service.config.web.server_names, service.config.host or ""))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arena")
    except PackageNotFoundError:
        return "0"


class WebFront(HttpFront):
    """The HTTP side's lifecycle (module docstring), an `HttpFront`."""

    def __init__(self, service: ArenaService) -> None:
        self.service = service
        self.app = make_app(service)
        config = service.config.web
        self._runner = web.AppRunner(
            self.app, handle_signals=False, access_log=None, shutdown_timeout=5.0,
            keepalive_timeout=config.keepalive_timeout, max_line_size=config.max_head,
            max_field_size=config.max_head,
            # nothing is inflated: compressed bodies are refused unread (refuse_encoded_bodies)
            auto_decompress=False)
        self._names = server_names(service)
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

    async def check_handshake(self, connection: ServerConnection,
                              request: Request) -> Handshake:
        """The check of a WebSocket handshake (in websockets' ``process_request``):
        refuse a foreign page's (403) or a browser's to a name that is not the server's
        (421), and read the guest cookie a browser's carries (its ``hello`` may then
        omit the token). A bot sends no ``Origin``: it may come by any name."""
        hosts = request.headers.get_all("Host")
        if request.headers.get_all("Origin"):
            misdirected = self._names.problem(hosts)
            if misdirected is not None:
                return Handshake(connection.respond(HTTPStatus.MISDIRECTED_REQUEST,
                                                    misdirected + "\n"))
        problem = websocket_origin_problem(request.headers.get_all("Origin"),
                                           hosts[0] if len(hosts) == 1 else None,
                                           self.service.config.web.origins)
        if problem is not None:
            return Handshake(connection.respond(HTTPStatus.FORBIDDEN, problem + "\n"))
        token = None
        for header in request.headers.get_all("Cookie"):
            try:
                morsel = SimpleCookie(header).get(GUEST_COOKIE)
            except CookieError:
                continue
            if morsel is not None and morsel.value:
                token = morsel.value
        return Handshake(guest_token=token)
