"""The thesis's main window in the browser: two house bots play a game, or a tournament runs.

A bot-versus-bot game is a live game like any other (the page watches it); a tournament
runs in a worker process (`arena.web.tournaments`) and the page follows its progress.
Both are bounded per client address and in all (`WebConfig`, docs/server.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from aiohttp import web

from arena.counters import Counters
from arena.errors import ArenaError
from arena.tournament import TournamentSpec
from arena.web.config import WebConfig
from arena.web.endpoints.play import GameRequest, resolve_game
from arena.web.http import ApiError, json_response, read_json
from arena.web.quota import client_key
from arena.web.routes import Endpoint, Param, service_of
from arena.web.tournaments import RunRefused, TournamentRuns

__all__ = ["ENDPOINTS", "MATCHES", "RUNS", "Matches"]

log = logging.getLogger("arena.web")

MAX_SPEC = 200
"""Characters of a bot spec."""


class MatchRequest(GameRequest, forbid_unknown_fields=True):
    """Two house bots (`bots`: two specs) play the game with its settings."""

    bots: list[str] = msgspec.field(default_factory=list)


class TournamentRequest(GameRequest, forbid_unknown_fields=True):
    """A round-robin tournament: every ordered pair of `bots` plays `games` games."""

    bots: list[str] = msgspec.field(default_factory=list)
    games: int = 10
    seed: int = 0


class Matches:
    """The bot-versus-bot games started from the web: per client address in the arena's
    counters (shared by its processes), in all per process (its own games' load).

    Args:
        config: the web's limits.
        counters: the arena's counters, asked for at each game.
    """

    SCOPE = "matches-per-client"

    def __init__(self, config: WebConfig, counters: Callable[[], Counters]) -> None:
        self.config = config
        self.by_client: defaultdict[str, set[str]] = defaultdict(set)
        self._counters = counters
        self._releases: set[asyncio.Task[None]] = set()
        self._following: set[asyncio.Task[None]] = set()
        """The games followed to their end (`follow`)."""

    async def take(self, client: str) -> None:
        """Take a place for a game of `client`'s (`add` it once started, else `give_back`).

        Raises:
            ApiError: 409 `busy`, the client's games are running already; 429, the
                process's.
        """
        limit = self.config.matches_per_client
        if not await self._counters().admit(self.SCOPE, client, limit):
            raise ApiError(409, f"you have {limit} bot games running "
                                "already: watch them to their end", code="busy")
        running = sum(len(games) for games in self.by_client.values())
        if running >= self.config.matches:
            await self.give_back(client)
            raise ApiError(429, f"{running} bot games started from the web are running; try "
                                "again in a minute", headers={"Retry-After": "30"})

    async def give_back(self, client: str) -> None:
        await self._counters().release(self.SCOPE, client)

    def add(self, client: str, game_id: str) -> None:
        self.by_client[client].add(game_id)

    def follow(self, client: str, game_id: str, over: Awaitable[object]) -> None:
        """Give `client`'s place for `game_id` back once `over` (the game's end) is done,
        however it ends."""
        async def wait() -> None:
            try:
                await over
            except ArenaError as error:  # ended all the same (not stored, say)
                log.info("bot game %s ended with %r", game_id, error)
            finally:
                self.done(client, game_id)

        task = asyncio.get_running_loop().create_task(wait(), name=f"bot game {game_id}")
        self._following.add(task)
        task.add_done_callback(self._following.discard)

    def close(self) -> None:
        """Stop following the games (the server stops)."""
        for task in self._following:
            task.cancel()

    def done(self, client: str, game_id: str) -> None:
        """A game of `client`'s ended (a callback: its place is given back in a task)."""
        games = self.by_client.get(client)
        if games is None or game_id not in games:
            return
        games.discard(game_id)
        if not games:
            del self.by_client[client]
        task = asyncio.get_running_loop().create_task(self.give_back(client))
        self._releases.add(task)
        task.add_done_callback(self._releases.discard)


MATCHES: web.AppKey[Matches] = web.AppKey("arena.matches")
RUNS: web.AppKey[TournamentRuns] = web.AppKey("arena.tournament-runs")


def _specs(bots: list[str], low: int, high: int) -> list[str]:
    specs = [b.strip() for b in bots if b.strip()]
    if not low <= len(specs) <= high:
        raise ApiError(400, f"name {low if low == high else f'{low} to {high}'} bots, "
                            f"not {len(specs)}",
                       reason_code="bots-exactly" if low == high else "bots-between",
                       reason_params={"minimum": low, "maximum": high, "count": len(specs)})
    for spec in specs:
        if len(spec) > MAX_SPEC:
            raise ApiError(400, f"a bot spec is at most {MAX_SPEC} characters",
                           reason_code="spec-too-long", reason_params={"most": MAX_SPEC})
    return specs


async def start_match(request: web.Request) -> web.Response:
    service = service_of(request)
    body = await read_json(request, MatchRequest, service.config.web.max_body)
    specs = _specs(body.bots, 2, 2)
    matches = request.app[MATCHES]
    client = client_key(request.remote)
    await matches.take(client)
    try:
        name, game = await resolve_game(service, body)
        for spec in specs:  # a BotSpecError (400) naming the problem; never a program
            service.registry.make_bot(game, spec, allow_exec=False)
        # here, or on a gateway on a host (docs/cluster.md)
        game_id, players = await service.launch_game(name, game.settings(),
                                                     ["house:" + s for s in specs])
    except BaseException:
        await matches.give_back(client)
        raise
    matches.add(client, game_id)
    matches.follow(client, game_id, service.game_over(game_id))
    return json_response({"game_id": game_id, "game": name, "players": list(players)})


async def start_tournament(request: web.Request) -> web.Response:
    service = service_of(request)
    body = await read_json(request, TournamentRequest, service.config.web.max_body)
    config = service.config.web
    specs = _specs(body.bots, 2, config.tournament_bots)
    name, game = await resolve_game(service, body)
    for bot in specs:
        service.registry.make_bot(game, bot, allow_exec=False)
    tournament = TournamentSpec(game=name, settings=game.settings(), bots=tuple(specs),
                                games=body.games, seed=body.seed)
    try:
        run = request.app[RUNS].start(client_key(request.remote), tournament)
    except RunRefused as error:
        reason: dict[str, Any] = {"reason_code": error.reason,
                                  "reason_params": error.params} if error.reason else {}
        raise ApiError(error.status, str(error), code=error.code, **reason) from None
    return json_response({"id": run.id, "total": run.total})


async def tournament_run(request: web.Request) -> web.Response:
    run_id = request.query.get("id", "")
    found = request.app[RUNS].get(run_id)
    if found is None:
        raise ApiError(404, f"no tournament run {run_id!r} (runs are kept until the server "
                            "restarts)", code="unknown-run")
    run, ahead = found
    return json_response(run.to_json(ahead))


ENDPOINTS = (
    Endpoint("POST", "/api/match", start_match, "Two house bots play a game (to watch)",
             "launch", body=MatchRequest, answers={
                 200: '{"game_id", "game", "players"}',
                 400: "bad settings or bot specs (the message names the problem)",
                 403: "sent by a page of another site",
                 409: "the client has its bot games running already",
                 429: "too many bot games from the web are running"}),
    Endpoint("POST", "/api/tournaments/run", start_tournament,
             "Run a round-robin tournament in a worker process", "launch",
             body=TournamentRequest, answers={
                 200: '{"id", "total"}: follow it with GET /api/tournaments/progress?id=',
                 400: "bad settings or bots, too many bots or games",
                 403: "sent by a page of another site",
                 409: "the client has a tournament running, or the server keeps no results",
                 429: "the queue of tournaments is full"}),
    Endpoint("GET", "/api/tournaments/progress", tournament_run, "A tournament run's progress",
             "launch", params=(Param("id", "the run", required=True),), answers={
                 200: "id, status (queued, running, finished, failed), done, total, "
                      "eta_seconds, ahead (runs queued before it), name (in "
                      "/api/tournament, once finished), error",
                 404: "no such run"}),
)
