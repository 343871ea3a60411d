"""The HTTP JSON endpoints, answered on the WebSocket port (`process_request`).

    GET /healthz                   liveness and a few counters
    GET /api/games                 recent games, newest first; filters: bot, game,
                                   status (running, finished, aborted), limit (<= 500)
    GET /api/games/{id}            one game: result, settings, the JSON Lines log, and
                                   the live state while it is played (no seed before the end)
    GET /api/leaderboard           ratings by conservative rating; filter: game
    GET /api/bots                  accounts, connected bots, house bots

The web interface's files and endpoints (`arena.web.api`) are answered first.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from arena.web import api as web_api

if TYPE_CHECKING:
    from arena.server.app import ArenaServer

__all__ = ["respond"]


def _json(connection: ServerConnection, status: int, data: Any) -> Response:
    response = connection.respond(status, json.dumps(data, ensure_ascii=False) + "\n")
    del response.headers["Content-Type"]
    response.headers["Content-Type"] = "application/json; charset=utf-8"
    return response


async def respond(server: ArenaServer, connection: ServerConnection, request: Request) -> Response:
    url = urlsplit(request.path)
    query = {key: values[-1] for key, values in parse_qs(url.query).items()}
    path = url.path.rstrip("/") or "/"
    assert server.storage is not None
    storage, call = server.storage.storage, server.storage.call
    web = await web_api.respond(server, connection, path, query)
    if web is not None:
        return web
    if path == "/healthz":
        health = server.health()
        return _json(connection, 200 if health["status"] == "ok" else 503, health)
    if path == "/api/games":
        try:
            limit = max(1, min(500, int(query.get("limit", "50"))))
        except ValueError:
            return _json(connection, 400, {"error": "limit must be an integer"})
        games = await call(storage.games, bot=query.get("bot"), game=query.get("game"),
                           status=query.get("status"), limit=limit)
        return _json(connection, 200, {"games": games})
    if path.startswith("/api/games/"):
        game_id = path[len("/api/games/"):]
        data = await call(storage.game, game_id)
        if data is None:
            return _json(connection, 404, {"error": f"no game {game_id!r}"})
        live = server.live.get(game_id)
        if live is not None:
            data["live"] = live.state_message()
        return _json(connection, 200, data)
    if path == "/api/leaderboard":
        game = query.get("game") or (server.config.ladder.game if server.config.ladder else None)
        rows = await call(storage.leaderboard, game)
        board = [{"rank": rank, **row.to_json()} for rank, row in enumerate(rows, start=1)]
        return _json(connection, 200, {"game": game, "leaderboard": board})
    if path == "/api/bots":
        accounts = await call(storage.bots)
        bots = [
            {"name": a.name, "operator": a.operator, "revoked": a.revoked,
             "connected": a.name in server.sessions,
             "games_in_flight": len(server.bot_games.get(a.name, ()))}
            for a in accounts
        ]
        house = list(server.config.ladder.house) if server.config.ladder else []
        return _json(connection, 200, {"bots": bots, "house": ["house:" + h for h in house]})
    return _json(connection, 404, {"error": f"no endpoint {url.path!r}",
                                   "endpoints": ["/healthz", "/api/games", "/api/games/{id}",
                                                 "/api/leaderboard", "/api/bots",
                                                 *web_api.ROUTES]})
