"""The endpoints behind issue 16's web interface, against a real server: finding one's game
again, the lobby's settings check, a live game's moves and clocks, log downloads, the
referee's verdict on an edited log, a pairing's results, bot games and tournaments
started from the browser within their limits."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.record import read_jsonl, to_jsonl
from arena.registry import default_registry
from arena.web.config import WebConfig
from arena.web.endpoints.launch import RUNS
from arena.workers import WORKER_NICE
from tests.server.conftest import Arena
from tests.waiting import wait_for

from .test_api import GAMES, _get, _played, get, new_guest, post, write_tournament


async def test_a_guest_finds_its_live_game_again(arena: Arena) -> None:
    status, nobody = await get(arena, "/api/me")
    assert status == 200 and nobody == {"name": None, "connected": False, "games": []}
    guest = await new_guest(arena)
    raw = await guest.connect("sim")
    status, started = await guest.play(game="sim", settings={"vertices": 5}, bot="sim-random")
    assert status == 200, started
    status, me = await asyncio.to_thread(_get_with, arena, "/api/me", guest.cookie)
    assert me["name"] == guest.name and me["connected"] is True
    assert me["games"] == [{"game_id": started["game_id"], "game": "sim", "seat": 0,
                            "players": started["players"], "turn": 0}]
    await raw.ws.close()


def _get_with(arena: Arena, path: str, headers: dict[str, str]) -> tuple[int, Any]:
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{arena.server.port}{path}",
                                     headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


async def test_the_lobby_check_uses_the_referees_rules(arena: Arena) -> None:
    status, ok = await post(arena, "/api/settings/check",
                            {"game": "sim", "settings": {"vertices": 5}, "bot": "sim-random"})
    assert status == 200 and ok["ok"] is True and ok["settings"]["vertices"] == 5
    status, ok = await post(arena, "/api/settings/check", {"game": "substitution"})
    assert status == 200 and ok["settings"]["moves"] == 20 and ok["bot"] == "random"
    for body, words in (
            ({"game": "sim", "settings": {"vertices": 99}}, "vertices"),
            ({"game": "substitution", "text": "S->a||b", "moves": 3}, "empty alternative"),
            ({"game": "substitution", "grammar": "medium", "moves": 0}, "moves"),
            ({"game": "durak", "settings": {"cards": "01x1", "draw_rule": False, "first": 0}},
             "01x1"),
            ({"game": "sim", "bot": "sim-mc:playouts=-3"}, "playouts"),
            ({"game": "chess"}, "chess")):
        status, error = await post(arena, "/api/settings/check", body)
        assert status == 400 and words in error["message"], (body, error)


async def test_a_live_games_moves_and_clocks(arena: Arena) -> None:
    guest = await new_guest(arena)
    raw = await guest.connect("sim")
    status, started = await guest.play(game="sim", settings={"vertices": 5}, bot="sim-random",
                                       seat=1)
    game_id = started["game_id"]
    turn = await raw.expect("your_turn", 30)  # the house moved first
    status, moves = await get(arena, "/api/moves", game_id=game_id)
    assert status == 200 and moves["turn"] == 1 and len(moves["moves"]) == 1
    first = moves["moves"][0]
    assert first["turn"] == 0 and first["seat"] == 0 and first["move"]
    status, legal = await get(arena, "/api/legal", game_id=game_id)
    assert legal["players"] == started["players"] and legal["to_act"] == 1
    clocks = legal["clocks"]
    assert [c["limit_ms"] for c in clocks["seats"]] == [600_000, 600_000]  # web time control
    assert 0 < clocks["left_ms"] <= 1_200_000
    assert turn["turn"] == 1
    status, error = await get(arena, "/api/moves", game_id="nothing")
    assert status == 404 and error["code"] == "unknown-game"
    await raw.ws.close()


async def test_downloads_in_every_format_the_game_writes(arena: Arena) -> None:
    from arena.games.substitution import Settings
    from arena.games.substitution.game import SubstitutionGame
    from arena.validate import parse_log

    record = _played(SubstitutionGame(Settings.preset("medium", 3)))
    storage = arena.server.storage
    assert storage is not None
    record = replace(record, id="stored-subst")
    await storage.start_game(record, ladder=False, pair=None)
    await storage.finish_game(record, log=to_jsonl(record))
    port = arena.server.port
    status, text, kind = await asyncio.to_thread(_get, port, "/api/log", id="stored-subst")
    assert status == 200 and kind.startswith("text/plain") and text == to_jsonl(record)
    status, text, _ = await asyncio.to_thread(_get, port, "/api/log", id="stored-subst",
                                              format="thesis")
    assert status == 200 and text.startswith("<GameSettings")
    assert parse_log(text).turns == record.turns  # the thesis log of the same game
    status, error, _ = await asyncio.to_thread(_get, port, "/api/log", id="stored-subst",
                                               format="pgn")
    assert status == 400 and "jsonl, thesis" in error["message"]
    status, error, _ = await asyncio.to_thread(_get, port, "/api/log", id="nothing")
    assert status == 404
    status, options = await get(arena, "/api/web/options")
    formats = {g["name"]: g["log_formats"] for g in options["games"]}
    assert formats["substitution"] == ["thesis"] and formats["sim"] == []


async def test_an_edited_log_shows_the_claim_and_the_verdict_with_the_viewers_numbers(
        arena: Arena) -> None:
    registry = default_registry()
    game = registry.load_game("sim", GAMES["sim"][0])
    record = _played(game, bot="sim-random")
    turns = list(record.turns)
    turns[2] = turns[2]._replace(move=turns[0].move)  # colours an edge coloured already
    edited = replace(record, turns=tuple(turns))
    status, replay = await post(arena, "/api/replay", raw=to_jsonl(edited).encode())
    assert status == 200
    assert replay["outcome"] == record.outcome.to_json()  # what the log claims
    assert replay["error_turn"] == 3 and replay["error"].startswith("turn 3: a played")
    # what a page needs to say it in its own language (issue 28)
    assert (replay["error_code"], replay["error_seat"], replay["error_move"]) == (
        "edge-taken", turns[2].player, turns[0].move)
    assert len(replay["frames"]) == 3  # frames 0..2: the viewer's turns 1 and 2


async def test_a_pairings_games_with_their_results(make_arena: Any, tmp_path: Path) -> None:
    write_tournament(tmp_path / "tournaments" / "t1")
    arena = await make_arena(tournaments=str(tmp_path / "tournaments"))
    status, cell = await get(arena, "/api/tournament/cell", name="t1/tournament.json", cell="0-1")
    assert status == 200 and [g["id"] for g in cell["games"]] == ["0-1-0"]
    game = cell["games"][0]
    assert game["result"] in ("win", "draw") and "scores" in game
    status, error = await get(arena, "/api/tournament/cell", name="t1/tournament.json",
                              cell="x")
    assert status == 400 and "FIRST-SECOND" in error["message"]
    status, text, _ = await asyncio.to_thread(_get, arena.server.port, "/api/log",
                                              t="t1/tournament.json", g="0-1-0")
    assert status == 200 and read_jsonl(text.splitlines()).players == ("a", "b")


async def test_two_house_bots_play_a_game_started_from_the_web(make_arena: Any) -> None:
    arena = await make_arena(web=WebConfig(matches_per_client=1))
    body = {"game": "sim", "settings": {"vertices": 5}, "bots": ["sim-random", "sim-random"]}
    status, started = await post(arena, "/api/match", body)
    assert status == 200 and started["players"] == ["house:sim-random", "house:sim-random"]
    status, error = await post(arena, "/api/match", {**body, "bots": ["sim-random"]})
    assert status == 400 and "2 bots" in error["message"]

    async def finished() -> Any:
        _, row = await get(arena, f"/api/games/{started['game_id']}")
        return row["status"] == "finished"

    second = await post(arena, "/api/match", body)
    assert second[0] in (200, 409)  # one per client: refused unless the first one ended
    if second[0] == 409:
        assert second[1]["code"] == "busy"
    await wait_for(finished, 60)


async def test_a_tournament_from_the_web_runs_in_a_worker_to_its_table(
        make_arena: Any, tmp_path: Path) -> None:
    root = tmp_path / "tournaments"
    root.mkdir()
    arena = await make_arena(tournaments=str(root), web=WebConfig(tournament_games=40))
    body = {"game": "sim", "settings": {"vertices": 5}, "bots": ["sim-random", "sim-safe-random"],
            "games": 3}
    status, error = await post(arena, "/api/tournaments/run", {**body, "games": 11})
    assert status == 400 and "44 games" in error["message"]
    assert (error["reason_code"], error["reason_params"]) == (  # a page's words for it
        "tournament-games", {"bots": 2, "games": 11, "total": 44, "limit": 40})
    status, error = await post(arena, "/api/tournaments/run", {**body, "bots": ["sim-random"]})
    assert status == 400 and error["reason_code"] == "bots-between", error
    assert error["reason_params"] == {"minimum": 2, "maximum": 8, "count": 1}
    status, started = await post(arena, "/api/tournaments/run", body)
    assert status == 200 and started["total"] == 12
    status, error = await post(arena, "/api/tournaments/run", body)
    assert status == 409 and error["code"] == "busy"  # one at a time per client

    async def ended() -> Any:
        _, run = await get(arena, "/api/tournaments/progress", id=started["id"])
        return run if run["status"] in ("finished", "failed") else None

    run = await wait_for(ended, 60)
    assert run["status"] == "finished", run["error"]
    assert run["error"] is None and run["error_code"] is None and run["error_params"] == {}
    assert run["done"] == run["total"] == 12
    status, table = await get(arena, "/api/tournament", name=run["name"])
    assert table["bots"] == ["sim-random", "sim-safe-random"] and table["games"] == 3
    assert set(table["summary"]["sim-random"]) >= {"win_rate_ci95", "mean_score_ci95"}
    status, listing = await get(arena, "/api/tournaments")
    assert run["name"] in [t["name"] for t in listing["tournaments"]]
    status, error = await get(arena, "/api/tournaments/progress", id="nothing")
    assert status == 404


async def test_no_tournament_from_the_web_without_a_results_directory(arena: Arena) -> None:
    status, error = await post(arena, "/api/tournaments/run", {
        "game": "sim", "settings": {"vertices": 5}, "bots": ["sim-random", "sim-random"],
        "games": 1})
    assert status == 409 and "--tournaments" in error["message"]


async def test_a_tournament_from_the_web_plays_niced_like_the_house_bots(
        make_arena: Any, tmp_path: Path) -> None:
    """Issue 22, finding 8: the web tournament's worker yields the CPU to the server, as
    the house bots' and the replays' workers do."""
    root = tmp_path / "tournaments"
    root.mkdir()
    arena = await make_arena(tournaments=str(root))
    status, started = await post(arena, "/api/tournaments/run", {
        "game": "sim", "settings": {"vertices": 6}, "games": 200,
        "bots": ["sim-mc:trials=400", "sim-mc:trials=400"]})  # minutes: stopped at close
    assert status == 200, started
    assert arena.web is not None
    run = arena.web.app[RUNS].runs[started["id"]]

    def worker_niceness() -> int | None:
        process = run.process
        if process is None or process.pid is None:
            return None
        niceness = os.getpriority(os.PRIO_PROCESS, process.pid)
        return niceness if niceness != os.nice(0) else None

    assert await wait_for(worker_niceness) == os.nice(0) + WORKER_NICE
    _, progress = await get(arena, "/api/tournaments/progress", id=started["id"])
    assert progress["status"] == "running"


async def test_a_tournament_over_its_time_fails_with_a_code_a_page_can_say(
        make_arena: Any, tmp_path: Path) -> None:
    """A run the server stops (beyond `tournament_seconds`) says why in English and by
    code (`error_code`, `error_params`), which the page words in its language."""
    root = tmp_path / "tournaments"
    root.mkdir()
    arena = await make_arena(tournaments=str(root),
                             web=WebConfig(tournament_seconds=0.001, tournament_games=400))
    body = {"game": "sim", "settings": {"vertices": 6}, "bots": ["sim-perfect", "sim-perfect"],
            "games": 100}
    status, started = await post(arena, "/api/tournaments/run", body)
    assert status == 200, started

    async def ended() -> Any:
        _, run = await get(arena, "/api/tournaments/progress", id=started["id"])
        return run if run["status"] in ("finished", "failed") else None

    run = await wait_for(ended, 60)
    assert run["status"] == "failed", run
    assert run["error"] == "it took longer than 0.001 s, the limit of a tournament from the web"
    assert (run["error_code"], run["error_params"]) == ("overtime", {"seconds": "0.001"})
