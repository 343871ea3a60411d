"""Which browser pages may act on the arena: the server's own origin and configured ones.

A browser tells where a request comes from (``Origin``, ``Sec-Fetch-Site``); bots and
scripts send neither and are not affected. Two checks use this:

* `cross_site_guard` (aiohttp middleware): a state-changing request (POST, PUT, PATCH,
  DELETE) from a foreign page is refused with 403, so a page elsewhere cannot create
  guests, save grammars or start games with the visitor's cookie;
* `websocket_origin_problem`: the WebSocket handshake of a foreign page is refused
  with 403 (issue 11, finding 10), so it cannot play or spectate as the visitor.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Middleware

from arena.web.http import ApiError, Handler

__all__ = ["cross_site_guard", "origin_allowed", "websocket_origin_problem"]

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
