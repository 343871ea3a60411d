"""Which browser pages may act on the arena: the server's own origin and configured ones.

A browser tells where a request comes from (``Origin``, ``Sec-Fetch-Site``); bots and
scripts send neither and are not affected. Three checks use this:

* `host_guard` (aiohttp middleware): a request whose ``Host`` is not one of the
  server's names (`ServerNames`) is refused with 421 before anything else. A page of
  ``evil.example`` whose name the attacker rebinds to the server's address (DNS
  rebinding) sends ``Host`` and ``Origin`` both ``evil.example``, which the origin
  check alone takes for the server's own page (issue 22, finding 6);

* `cross_site_guard` (aiohttp middleware): a state-changing request (POST, PUT, PATCH,
  DELETE) from a foreign page is refused with 403, so a page elsewhere cannot create
  guests, save grammars or start games with the visitor's cookie;
* `websocket_origin_problem`: the WebSocket handshake of a foreign page is refused
  with 403 (issue 11, finding 10), so it cannot play or spectate as the visitor.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Middleware

from arena.web.http import ApiError, Handler

__all__ = ["ServerNames", "cross_site_guard", "host_guard", "origin_allowed",
           "websocket_origin_problem"]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _address(scheme: str, netloc: str) -> tuple[str, int] | None:
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if host is None:
        return None
    return host, port if port is not None else _DEFAULT_PORTS.get(scheme, 0)


def origin_allowed(origin: str, host: str | None, extra: Iterable[str]) -> bool:
    """Whether a page of `origin` may act here: the origin of the `host` the request
    came to (either scheme: a TLS proxy may stand in front), or one of `extra`."""
    origin = origin.strip()
    if origin in {o.rstrip("/") for o in extra}:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or host is None or parts.path not in ("", "/"):
        return False
    mine = _address(parts.scheme, host)
    return mine is not None and _address(parts.scheme, parts.netloc) == mine


@dataclass(frozen=True)
class ServerNames:
    """The names a request's ``Host`` may give: `names` (``--server-name``, the address
    the server is bound to, ``localhost``), and any IP address.

    An IP address or ``localhost`` cannot be a rebound name: a browser sends the name
    of the page's own URL, so a foreign page's requests to an IP address carry that
    page's origin, which `origin_allowed` refuses."""

    names: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> ServerNames:
        return cls(frozenset(_bare(name) for name in (*names, "localhost") if _bare(name)))

    def problem(self, hosts: list[str]) -> str | None:
        """Why a request with these ``Host`` values is refused, or None. No Host (an
        HTTP/1.0 script) is fine: browsers always send one."""
        if not hosts:
            return None
        if len(hosts) > 1:
            return "more than one Host header"
        try:
            name = urlsplit(f"//{hosts[0].strip()}").hostname
        except ValueError:
            name = None
        if name is None:
            return f"Host {hosts[0][:80]!r} names no host"
        if _bare(name) in self.names or _is_address(name):
            return None
        return (f"this server does not answer to the name {name[:80]!r} (its names: "
                f"{', '.join(sorted(self.names))}, or any IP address; more with "
                "--server-name)")


def _bare(name: str) -> str:
    return name.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_guard(names: ServerNames) -> Middleware:
    """Middleware: refuse (421) a request to a name that is not the server's."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        problem = names.problem(request.headers.getall("Host", []))
        if problem is not None:
            raise ApiError(421, problem, code="misdirected-request")
        return await handler(request)

    return guard


def cross_site_guard(extra: tuple[str, ...]) -> Middleware:
    """Middleware: refuse state-changing requests that a foreign page sent."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method not in SAFE_METHODS:
            origin = request.headers.get("Origin")
            site = request.headers.get("Sec-Fetch-Site")
            if origin is not None and origin_allowed(origin, request.host, extra):
                pass
            elif site is not None and site not in ("same-origin", "none"):
                raise ApiError(403, f"a {request.method} from another site ({site}"
                                    f"{', ' + origin if origin else ''}) is refused",
                               code="cross-site")
            elif origin is not None:
                raise ApiError(403, f"a {request.method} from the page of {origin} is refused",
                               code="cross-site")
        return await handler(request)

    return guard


def websocket_origin_problem(origins: list[str], host: str | None,
                             extra: Iterable[str]) -> str | None:
    """Why a WebSocket handshake with these ``Origin`` values is refused, or None.
    No Origin (a bot, a script) is fine."""
    if not origins:
        return None
    if len(origins) > 1:
        return "more than one Origin header"
    if not origin_allowed(origins[0], host, extra):
        return (f"pages of {origins[0]} may not open the arena's WebSocket "
                "(allowed: this server's own origin and its --origin list)")
    return None
