"""The server's health and the API's own description, and the protocol's contract."""

from __future__ import annotations

from aiohttp import web

from arena.errors import SettingsError
from arena.schema import contract
from arena.web.endpoints.replays import REPLAYS
from arena.web.http import ApiError, json_response
from arena.web.routes import Endpoint, Param, service_of

__all__ = ["ENDPOINTS", "OPENAPI"]

OPENAPI: web.AppKey[dict[str, object]] = web.AppKey("arena.openapi")


async def healthz(request: web.Request) -> web.Response:
    """200 while the server can play; 503 (with the reason) while it cannot store games
    or is closing, so that a load balancer stops sending it players."""
    health = service_of(request).health()
    return json_response({**health, "replays_in_flight": request.app[REPLAYS].in_flight},
                         status=200 if health["status"] == "ok" else 503)


async def schema(request: web.Request) -> web.Response:
    try:
        return json_response(contract(service_of(request).registry,
                                      request.query.get("game") or None))
    except SettingsError as error:
        raise ApiError(404, str(error), code="unknown-game") from None


async def openapi(request: web.Request) -> web.Response:
    return json_response(request.app[OPENAPI])


ENDPOINTS = (
    Endpoint("GET", "/healthz", healthz, "Liveness and a few counters", "status", answers={
        200: "status ok, protocol, games in flight and finished, connected bots, "
             "games recovered at start, replays in flight",
        503: "status closing or unhealthy (the database cannot store games: reason says "
             "why, reason_code as a code: not-started, resuming-games, storage-failed), "
             "with the same counters"}),
    Endpoint("GET", "/api/openapi.json", openapi, "This document", "status"),
    Endpoint("GET", "/api/schema", schema,
             "The protocol's JSON Schema (2020-12): every message, and each game's settings, "
             "state, chance value and move syntax", "status",
             params=(Param("game", "only this game's part (default: every game)"),),
             answers={200: "the schema document", 404: "no such game"}),
)
