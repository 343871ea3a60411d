"""The server's health and the API's own description."""

from __future__ import annotations

from aiohttp import web

from arena.web.endpoints.replays import REPLAYS
from arena.web.http import json_response
from arena.web.routes import Endpoint, server_of

__all__ = ["ENDPOINTS", "OPENAPI"]

OPENAPI: web.AppKey[dict[str, object]] = web.AppKey("arena.openapi")


async def healthz(request: web.Request) -> web.Response:
    return json_response({**server_of(request).health(),
                          "replays_in_flight": request.app[REPLAYS].in_flight})


async def openapi(request: web.Request) -> web.Response:
    return json_response(request.app[OPENAPI])


ENDPOINTS = (
    Endpoint("GET", "/healthz", healthz, "Liveness and a few counters", "status", answers={
        200: "status (ok or closing), protocol, games in flight and finished, connected bots, "
             "games recovered at start, replays in flight"}),
    Endpoint("GET", "/api/openapi.json", openapi, "This document", "status"),
)
