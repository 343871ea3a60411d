"""Games a gateway's web starts besides a guest's (docs/cluster.md, "The lobby on a
cluster"): a match between two house bots (``POST /api/match``) and a season final's
games, asked of a host over the bus (``lobby.play``, ``start``) and played there, on a
PostgreSQL schema and a NATS prefix of their own, answered as one process answers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import aiohttp

from arena.config import WebConfig
from arena.seasons import rank_standings
from arena.web.endpoints.launch import MATCHES
from tests.bus.conftest import nats_prefix, nats_url
from tests.cluster.test_lobby import finished, lobby
from tests.counters.conftest import REDIS, redis_prefix
from tests.server.conftest import Arena
from tests.server.test_challenges import LADDER
from tests.storage.conftest import postgres_schema
from tests.storage.games import ended
from tests.waiting import wait_for
from tests.web.test_connected_finals import BOTS, any_move, season
from tests.web.test_connected_finals import LADDER as SIM_LADDER

MATCH = {"game": "substitution", "settings": LADDER.settings, "bots": ["random", "random"]}


async def post(http: aiohttp.ClientSession, arena: Arena, path: str,
               body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with http.post(f"http://127.0.0.1:{arena.app.port}{path}", json=body) as answer:
        return answer.status, await answer.json()


async def test_a_match_of_house_bots_asked_of_a_gateway_is_played_on_a_host(
        make_arena: Callable[..., Any]) -> None:
    web = replace(WebConfig(), matches_per_client=1)
    async with lobby(make_arena, web=web) as (host, first, _), aiohttp.ClientSession() as http:
        status, started = await post(http, first, "/api/match", MATCH)
        assert status == 200, started
        game, = await finished(host, [started["game_id"]])  # played on the host
        assert list(game.players) == started["players"]
        assert game.termination == "normal"

        # the same answer as one process gives
        alone = await make_arena(ladder=LADDER, web=web)
        status, one = await post(http, alone, "/api/match", MATCH)
        assert status == 200, one
        assert one.keys() == started.keys() == {"game_id", "game", "players"}
        assert (one["game"], one["players"]) == (started["game"], started["players"])

        # the client's bot games are counted while the game runs, given back at its end
        async def given_back(body: dict[str, Any]) -> dict[str, Any] | None:
            status, answer = await post(http, first, "/api/match", body)
            assert status in (200, 409), answer
            return answer if status == 200 else None

        slow = {**MATCH, "settings": {**LADDER.settings, "moves": 400}}
        running = await wait_for(lambda: given_back(slow), 20, "the first game's place back")
        status, refused = await post(http, first, "/api/match", MATCH)
        assert status == 409 and refused["code"] == "busy"
        await finished(host, [running["game_id"]])
        last = await wait_for(lambda: given_back(MATCH), 20,
                              "the place given back at the game's end")

        # no host answers: refused as unavailable, and the place is not kept for it
        await finished(host, [last["game_id"]])
        await wait_for(lambda: not first.web.app[MATCHES].by_client, 20, "the place back")
        await host.close()
        for _ in range(2):
            status, refused = await post(http, first, "/api/match", MATCH)
            assert status == 503, refused
            assert "no game host answers now" in refused["message"]


async def test_a_season_final_claimed_by_a_gateway_is_played_on_a_host(
        make_arena: Callable[..., Any]) -> None:
    async with postgres_schema() as db, nats_prefix() as prefix:
        options = {"db": db, "bus": nats_url(prefix), "presence_interval": 0.2,
                   "ladder": SIM_LADDER}
        host = await make_arena(role="host", host_id="host-1", **options)
        storage = host.server.storage
        number = 0  # the three bots played each other (rated): all three enter the season
        for one in BOTS:
            for other in BOTS:
                if one != other:
                    number += 1
                    record = ended(f"g{number}", (one, other), winner=number % 2)
                    await storage.start_game(record, ladder=True, pair=None)
                    await storage.finish_game(record, rated=True)
        config = season(wait=600.0)
        assert len(rank_standings(config, await storage.leaderboard("sim"))) == 3
        gateway = await make_arena(role="gateway", host_id="gateway-1", seasons=(config,),
                                   season_interval=0.05, **options)
        try:
            for name in BOTS:
                await gateway.client(name, any_move, seek=False)

            async def over() -> Any:
                stored = await storage.season(config.name)
                done = stored is not None and stored.final_status not in (None, "running")
                return stored if done else None

            stored = await wait_for(over, 60, "the final over")
            assert stored.final_status == "finished", stored
            report = stored.final_report
            assert report["forfeits"] == {} and len(report["played"]) == 6
            assert sum(line["points"] for line in report["ranking"]) == 6
            games = await finished(host, list(report["played"].values()))
            assert all(game.termination == "normal" for game in games)
            assert all(game.pair.startswith("final:spring:") for game in games)
            assert host.server.games.finished >= 6  # the host played them
        finally:  # before the schema goes
            await gateway.close()
            await host.close()


async def test_a_guest_s_two_games_hold_across_gateways_asked_at_once(
        make_arena: Callable[..., Any]) -> None:
    async with redis_prefix() as limits, lobby(
            make_arena, shared_limits=f"{REDIS}?prefix={limits}") as (host, first, second):
        assert first.server.counters.kind == "redis"
        guest, token = await host.server.storage.add_guest(3600.0)
        raw = await first.raw()  # a guest that does not move: its games keep running
        await raw.hello(token)
        await wait_for(lambda: guest in host.server.sessions and second.server.connected(guest),
                       10, "the guest known on the host and on the other gateway")
        game = {"game": "substitution", "settings": LADDER.settings}
        headers = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession(headers=headers) as http:
            async def play(arena: Arena) -> tuple[int, dict[str, Any]]:
                return await post(http, arena, "/api/play", game)

            # six pages at once, three through each gateway: two games at most
            answers = await asyncio.gather(*(play(arena) for arena in (first, second) * 3))
            played = [answer["game_id"] for status, answer in answers if status == 200]
            assert 1 <= len(played) <= 2, answers
            assert all(answer["code"] == "too-many-games"
                       for status, answer in answers if status != 200), answers
            stored = await host.server.storage.games(bot=guest, status="running")
            assert sorted(row.id for row in stored) == sorted(played)

            # one after the other: up to the second game, not one more, on either gateway
            if len(played) < 2:
                status, answer = await play(second)
                assert status == 200, answer
            for arena in (first, second):
                status, answer = await play(arena)
                assert status == 409 and answer["code"] == "too-many-games", answer
            assert len(await host.server.storage.games(bot=guest, status="running")) == 2
