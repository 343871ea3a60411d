"""Seasons: their phases, standings (JSON or CSV) and finals (`arena.seasons`)."""

from __future__ import annotations

from datetime import UTC, datetime

from aiohttp import web

from arena.seasons import rank_standings, standings_csv
from arena.web.http import ApiError, json_response
from arena.web.routes import Endpoint, Param, service_of
from arena.web.seasons import SEASONS, ladder_of, season_view

__all__ = ["ENDPOINTS"]

FORMATS = ("json", "csv")


async def seasons(request: web.Request) -> web.Response:
    service = service_of(request)
    keeper = request.app[SEASONS]
    now = keeper.clock()
    stored = {s.name: s for s in await service.records.seasons()}
    listed = [season_view(s, stored.get(s.name), now, keeper.finals.get(s.name))
              for s in service.config.seasons]
    configured = {s.name for s in service.config.seasons}
    listed += [season_view(None, s, now, None) for s in stored.values()
               if s.name not in configured]  # past seasons, kept
    return json_response({"seasons": listed})


async def season(request: web.Request) -> web.StreamResponse:
    service = service_of(request)
    keeper = request.app[SEASONS]
    name = request.match_info["name"]
    form = request.query.get("format", "json")
    if form not in FORMATS:
        raise ApiError(400, f"format must be json or csv, not {form!r}")
    config = next((s for s in service.config.seasons if s.name == name), None)
    stored = await service.records.season(name)
    if config is None and stored is None:
        raise ApiError(404, f"no season {name!r}", code="unknown-season")
    if stored is not None:
        standings = await service.records.season_standings(name)
    else:  # not ended: the ladder's ratings now, ranked by the entry rules
        assert config is not None
        game, _ = ladder_of(service, config)
        standings = rank_standings(config, await service.records.leaderboard(game))
    if form == "csv":
        return web.Response(text=standings_csv(standings), content_type="text/csv",
                            charset="utf-8", headers={
                                "Content-Disposition": f'attachment; filename="season-{name}.csv"',
                                "Cache-Control": "no-store"})
    data = season_view(config, stored, keeper.clock() if config else datetime.now(UTC),
                       keeper.finals.get(name))
    data["standings"] = [row.to_json() for row in standings]
    data["live"] = stored is None
    response = json_response(data)
    if "format" in request.query:  # an export: saved as a file
        response.headers["Content-Disposition"] = f'attachment; filename="season-{name}.json"'
    return response


ENDPOINTS = (
    Endpoint("GET", "/api/seasons", seasons, "The seasons, with their phases", "seasons",
             answers={200: "seasons: name, ladder, start, end (ISO 8601, UTC), min_games, "
                           "min_rating, final (format, top, games, rounds), phase (upcoming, "
                           "running, final, over), frozen (when the standings froze), "
                           "final_state (status: running, finished or failed; report; "
                           "progress while it runs); configured seasons first, then past ones"}),
    Endpoint("GET", "/api/seasons/{name}", season, "A season's standings and final", "seasons",
             params=(Param("name", "the season", required=True, where="path"),
                     Param("format", "json or csv (the standings only): an export, saved as "
                                     "a file (Content-Disposition); without it, JSON to read")),
             answers={200: "the season as listed, with standings (rank: 0 for a bot outside "
                           "the entry rules, bot, rating, mu, sigma, games, wins, losses, "
                           "draws, entered) and live (true: the ladder's ratings now, not "
                           "frozen yet); as CSV with ?format=csv",
                      400: "a format other than json or csv", 404: "no such season"}),
)
