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


async def _ladder_of(request: web.Request) -> tuple[str | None, str | None]:
    """The ladder a ratings request is about, and its game: ``ladder=NAME`` (a ladder
    the server runs, or one with stored ratings: else 404), else ``game=GAME`` (the
    first ladder of that game, else the ladder named after it), else the first ladder;
    (None, None) on a server without ladders (every rating)."""
    service = service_of(request)
    config = service.config
    name = request.query.get("ladder")
    if name is not None:
        ladder = config.find_ladder(name)
        if ladder is not None:
            return name, ladder.game
        stored = await service.records.leaderboard(name)
        if not stored:
            known = ", ".join(ladder.name for ladder in config.all_ladders) or "none"
            raise ApiError(404, f"no ladder {name!r} (ladders: {known}; GET /api/ladders)",
                           code="unknown-ladder")
        return name, stored[0].game
    game = request.query.get("game")
    if game:
        ladder = next((ladder for ladder in config.all_ladders if ladder.game == game), None)
        return (ladder.name if ladder is not None else game), game
    if config.all_ladders:
        first = config.all_ladders[0]
        return first.name, first.game
    return None, None


async def ladders(request: web.Request) -> web.Response:
    return json_response({"ladders": [ladder.describe()
                                      for ladder in service_of(request).config.all_ladders]})


async def games(request: web.Request) -> web.Response:
    service = service_of(request)
    status = request.query.get("status")
    if status is not None and status not in STATUSES:
        raise ApiError(400, f"status must be one of {', '.join(STATUSES)}, not {status!r}")
    limit = _int(request, "limit", 50, 1, 500)
    rows = await service.records.games(bot=request.query.get("bot"),
                                       game=request.query.get("game"), status=status, limit=limit,
                                       ladder=request.query.get("ladder"))
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
    name, game = await _ladder_of(request)
    rows = await service.records.leaderboard(name)
    board = [{"rank": rank, **row.to_json()} for rank, row in enumerate(rows, start=1)]
    return json_response({"ladder": name, "game": game, "leaderboard": board})


async def rating_history(request: web.Request) -> web.Response:
    service = service_of(request)
    name, game = await _ladder_of(request)
    history = await service.records.rating_history(name)
    return json_response({"ladder": name, "game": game, "history": history})


async def bots(request: web.Request) -> web.Response:
    service = service_of(request)
    accounts = await service.records.bots()
    rows = [{"name": a.name, "operator": a.operator, "revoked": a.revoked,
             "connected": service.connected(a.name),
             "games_in_flight": len(service.live_games_of(a.name))} for a in accounts]
    house = list(dict.fromkeys(spec for ladder in service.config.all_ladders
                               for spec in ladder.house))
    return json_response({"bots": rows, "house": ["house:" + h for h in house]})


_LADDER = Param("ladder", "a ladder's name (GET /api/ladders); by default the first ladder")
_GAME = Param("game", "a game name: its first ladder (or the ladder named after it); "
                      "ignored with ladder")

ENDPOINTS = (
    Endpoint("GET", "/api/games", games, "Recent games, newest first", "games", params=(
        Param("bot", "only games this bot played"), Param("game", "only games of this game"),
        Param("ladder", "only games this ladder paired"),
        Param("status", "running, finished or aborted"),
        Param("limit", "at most this many (1-500, default 50)", "integer")),
        answers={200: "id, game, players, seed (once finished), ladder, pair, ladder_name, "
                      "status, result, winner, scores, termination, reason, turns, times",
                 400: "a bad filter"}),
    Endpoint("GET", "/api/games/{id}", game, "One game with its settings and JSON Lines log",
             "games", params=(Param("id", "the game id", required=True, where="path"),),
             answers={200: "the game; `live` holds the state of a running game (no seed)",
                      404: "no such game"}),
    Endpoint("GET", "/api/ladders", ladders, "The server's ladders", "ladder",
             answers={200: "ladders: [{name, game, settings (null: drawn for each pairing), "
                           "generator, rated, house, time_control (null: the server's)}]"}),
    Endpoint("GET", "/api/leaderboard", leaderboard, "A ladder's ratings by conservative "
             "rating", "ladder", params=(_LADDER, _GAME),
             answers={200: "ladder, game, leaderboard: rank, bot, ladder, rating (mu - 3 "
                           "sigma), mu, sigma, games, wins, losses, draws",
                      404: "no such ladder"}),
    Endpoint("GET", "/api/ratings/history", rating_history,
             "Each bot's conservative rating after each rated game of a ladder", "ladder",
             params=(_LADDER, _GAME),
             answers={200: "ladder, game, history: {bot: [[finished_time, rating_after], ...]}",
                      404: "no such ladder"}),
    Endpoint("GET", "/api/bots", bots, "Accounts, connected bots and house bots", "ladder",
             answers={200: "bots (name, operator, revoked, connected, games_in_flight), house"}),
)
