"""Games, ratings and accounts: what the arena has played and who plays."""

from __future__ import annotations

from aiohttp import web

from arena.web.http import ApiError, json_response
from arena.web.routes import Endpoint, Param, service_of

__all__ = ["ENDPOINTS"]

STATUSES = ("running", "finished", "aborted")


def _int(request: web.Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query.get(name)
    if text is None:
        return default
    try:
        return max(low, min(high, int(text)))
    except ValueError:
        raise ApiError(400, f"{name} must be an integer, not {text!r}") from None


def _ladder_game(request: web.Request) -> str | None:
    service = service_of(request)
    return request.query.get("game") or (service.config.ladder.game if service.config.ladder
                                         else None)


async def games(request: web.Request) -> web.Response:
    service = service_of(request)
    status = request.query.get("status")
    if status is not None and status not in STATUSES:
        raise ApiError(400, f"status must be one of {', '.join(STATUSES)}, not {status!r}")
    limit = _int(request, "limit", 50, 1, 500)
    rows = await service.records.games(bot=request.query.get("bot"),
                                      game=request.query.get("game"), status=status, limit=limit)
    return json_response({"games": [row.to_json() for row in rows]})


async def game(request: web.Request) -> web.Response:
    service = service_of(request)
    game_id = request.match_info["id"]
    stored = await service.records.game(game_id)
    if stored is None:
        raise ApiError(404, f"no game {game_id!r}", code="unknown-game")
    data = stored.to_json()
    live = await service.live_game(game_id)
    if live is not None:
        data["live"] = live.state_message()
    return json_response(data)


async def leaderboard(request: web.Request) -> web.Response:
    service = service_of(request)
    name = _ladder_game(request)
    rows = await service.records.leaderboard(name)
    board = [{"rank": rank, **row.to_json()} for rank, row in enumerate(rows, start=1)]
    return json_response({"game": name, "leaderboard": board})


async def rating_history(request: web.Request) -> web.Response:
    service = service_of(request)
    name = _ladder_game(request)
    history = await service.records.rating_history(name)
    return json_response({"game": name, "history": history})


async def bots(request: web.Request) -> web.Response:
    service = service_of(request)
    accounts = await service.records.bots()
    rows = [{"name": a.name, "operator": a.operator, "revoked": a.revoked,
             "connected": service.connected(a.name),
             "games_in_flight": len(service.live_games_of(a.name))} for a in accounts]
    house = list(service.config.ladder.house) if service.config.ladder else []
    return json_response({"bots": rows, "house": ["house:" + h for h in house]})


_GAME = Param("game", "a game name; by default the ladder's game")

ENDPOINTS = (
    Endpoint("GET", "/api/games", games, "Recent games, newest first", "games", params=(
        Param("bot", "only games this bot played"), Param("game", "only games of this game"),
        Param("status", "running, finished or aborted"),
        Param("limit", "at most this many (1-500, default 50)", "integer")),
        answers={200: "id, game, players, seed (once finished), ladder, pair, status, result, "
                      "winner, scores, termination, reason, turns, times", 400: "a bad filter"}),
    Endpoint("GET", "/api/games/{id}", game, "One game with its settings and JSON Lines log",
             "games", params=(Param("id", "the game id", required=True, where="path"),),
             answers={200: "the game; `live` holds the state of a running game (no seed)",
                      404: "no such game"}),
    Endpoint("GET", "/api/leaderboard", leaderboard, "Ratings by conservative rating", "ladder",
             params=(_GAME,), answers={200: "rank, bot, rating (mu - 3 sigma), mu, sigma, "
                                            "games, wins, losses, draws"}),
    Endpoint("GET", "/api/ratings/history", rating_history,
             "Each bot's conservative rating after each rated game", "ladder", params=(_GAME,),
             answers={200: "history: {bot: [[finished_time, rating_after], ...]}"}),
    Endpoint("GET", "/api/bots", bots, "Accounts, connected bots and house bots", "ladder",
             answers={200: "bots (name, operator, revoked, connected, games_in_flight), house"}),
)
