"""The web interface's endpoints: static files, grammars, guests, legal steps, replays."""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
import urllib.error
import urllib.parse
import urllib.request
import zlib
from pathlib import Path
from typing import Any

from arena.games.substitution import Settings
from arena.record import to_jsonl
from arena.registry import default_registry
from arena.server import ServerConfig
from tests.server.conftest import SUBST, Arena


def _get(port: int, path: str, **params: Any) -> tuple[int, Any, str]:
    url = f"http://127.0.0.1:{port}{path}"
    if params:
        url += "?" + urllib.parse.urlencode(params)
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            body = response.read()
            kind = response.headers["Content-Type"]
            status = response.status
    except urllib.error.HTTPError as error:
        body, kind, status = error.read(), error.headers["Content-Type"], error.code
    data = json.loads(body) if kind.startswith("application/json") else body.decode()
    return status, data, kind


async def get(arena: Arena, path: str, **params: Any) -> tuple[int, Any]:
    status, data, _ = await asyncio.to_thread(_get, arena.server.port, path, **params)
    return status, data


async def test_static_files_are_served_on_the_same_port(arena: Arena) -> None:
    status, page, kind = await asyncio.to_thread(_get, arena.server.port, "/")
    assert status == 200 and kind.startswith("text/html") and "app.js" in page
    status, _script, kind = await asyncio.to_thread(_get, arena.server.port, "/static/app.js")
    assert status == 200 and kind.startswith("text/javascript")
    status, _, _ = await asyncio.to_thread(_get, arena.server.port, "/static/../__init__.py")
    assert status == 404
    status, _, _ = await asyncio.to_thread(_get, arena.server.port, "/static/nothing.js")
    assert status == 404


async def test_options_list_presets_and_bots_with_parameters(arena: Arena) -> None:
    status, options = await get(arena, "/api/web/options")
    assert status == 200
    names = [p["name"] for p in options["presets"]]
    assert "medium" in names and "classic" in names
    bots = {b["name"]: b for b in options["bots"]}
    assert "random" in bots
    assert all("params" in b for b in bots.values())


async def test_grammar_check_names_the_line_and_save_offers_it(arena: Arena) -> None:
    status, check = await get(arena, "/api/grammars/check", text="S->AB\nA->a\nB=>b\n")
    assert status == 200 and check["ok"] is False and check["line"] == 3
    assert check["reason"]
    status, check = await get(arena, "/api/grammars/check", text="S->AB\nA->a\nB->b\n")
    assert check == {"ok": True, "groups": ["S->AB", "A->a", "B->b"], "weights": [1, 1, 1]}
    status, saved = await get(arena, "/api/grammars/save", name="tiny", text="S->AB\nA->a\nB->b\n")
    assert status == 200 and saved == {"saved": "tiny"}
    status, error = await get(arena, "/api/grammars/save", name="medium", text="S->a\n")
    assert status == 400 and "built-in" in error["error"]
    status, error = await get(arena, "/api/grammars/save", name="bad", text="S->a\nweights: 0\n")
    assert status == 400 and error["line"] == 2
    status, options = await get(arena, "/api/web/options")
    assert {"name": "tiny", "description": "saved", "builtin": False,
            "text": "S->AB\nA->a\nB->b\n"} in options["presets"]


async def test_a_guest_plays_a_house_bot_with_legal_steps_from_the_server(arena: Arena) -> None:
    status, guest = await get(arena, "/api/guest")
    assert status == 200 and guest["name"].startswith("guest-")
    status, _ = await get(arena, "/api/play", token=guest["token"], bot="random")
    assert status == 409  # not connected yet
    raw = await arena.raw()
    welcome = await raw.hello(guest["token"], games=["substitution"])
    assert welcome["type"] == "welcome"
    status, started = await get(arena, "/api/play", token=guest["token"], bot="random", seat=0,
                                moves=2, grammar="medium")
    assert status == 200, started
    game_id = started["game_id"]
    start = await raw.expect("game_start")
    assert start["game_id"] == game_id and start["seat"] == 0
    assert start["time_control"]["move_ms"] == 600_000
    moves = 0
    while True:
        message = await raw.recv(10)
        if message["type"] == "game_over":
            break
        if message["type"] != "your_turn":
            continue
        status, legal = await get(arena, "/api/legal", game_id=game_id)
        assert status == 200 and legal["roll"] == message["chance"]
        steps: list[str] = []
        while not legal["can_end"]:  # always take the first legal step
            assert legal["steps"], legal
            steps.append(" ".join(map(str, legal["steps"][0])))
            status, legal = await get(arena, "/api/legal", game_id=game_id, steps=", ".join(steps))
            assert status == 200
        await raw.send("move", game_id=game_id, turn=message["turn"], move=", ".join(steps))
        moves += 1
    assert moves == 2 and message["termination"] == "normal"
    status, replay = await get(arena, "/api/replay", id=game_id)
    assert status == 200 and len(replay["frames"]) == 5
    assert replay["frames"][-1]["state"]["scores"] == message["scores"]
    status, _error = await get(arena, "/api/legal", game_id=game_id)
    assert status == 404


async def test_bad_play_requests_are_refused(arena: Arena) -> None:
    token = await arena.add_bot("alice")
    status, error = await get(arena, "/api/play", token=token)
    assert status == 403
    status, error = await get(arena, "/api/play")
    assert status == 400 and "token" in error["error"]


async def test_replay_of_an_uploaded_log_in_both_formats(arena: Arena) -> None:
    from arena.games.substitution.game import SubstitutionGame
    from arena.games.substitution.thesis_log import write_thesis_log
    record = _played(SubstitutionGame(Settings.preset("medium", 3)))
    for text in (to_jsonl(record), write_thesis_log(record)):
        packed = zlib.compressobj(9, zlib.DEFLATED, -15)
        z = base64.urlsafe_b64encode(packed.compress(text.encode()) + packed.flush()).decode()
        status, replay = await get(arena, "/api/replay", z=z.rstrip("="))
        assert status == 200, replay
        assert len(replay["frames"]) == 7 and replay["error"] is None
    status, _error = await get(arena, "/api/replay", z="bm90IGRlZmxhdGU")
    assert status == 400


async def test_a_long_uploaded_log_arrives_in_parts(arena: Arena) -> None:
    from arena.games.substitution.game import SubstitutionGame
    from arena.web.api import UPLOAD_PART

    record = _played(SubstitutionGame(Settings.preset("medium", 1000)))
    packed = zlib.compressobj(9, zlib.DEFLATED, -15)
    z = base64.urlsafe_b64encode(packed.compress(to_jsonl(record).encode()) + packed.flush())
    z_text = z.decode().rstrip("=")
    assert len(z_text) > 2 * UPLOAD_PART  # too long for one request line
    parts = [z_text[i:i + UPLOAD_PART] for i in range(0, len(z_text), UPLOAD_PART)]
    status, error = await get(arena, "/api/replay", upload="k-1234567")
    assert status == 400 and "incomplete" in error["error"]
    for index, chunk in enumerate(parts):
        status, answer = await get(arena, "/api/upload", key="k-1234567", part=str(index),
                                   parts=str(len(parts)), z=chunk)
        assert status == 200 and answer["received"] == index + 1
    status, replay = await get(arena, "/api/replay", upload="k-1234567")
    assert status == 200, replay
    assert len(replay["frames"]) == 2001 and replay["error"] is None
    status, error = await get(arena, "/api/replay", upload="k-1234567")  # used up
    assert status == 400
    for bad in ({"key": "short", "part": "0", "parts": "1", "z": "x"},
                {"key": "k-1234567", "part": "2", "parts": "2", "z": "x"},
                {"key": "k-1234567", "part": "0", "parts": "1", "z": "x" * (UPLOAD_PART + 1)}):
        status, _error = await get(arena, "/api/upload", **bad)
        assert status == 400


def _played(game: Any) -> Any:
    import random

    from arena.match import Match

    registry = default_registry()
    match = Match(game, ["a", "b"], seed=7, match_id="t1")
    bots = [registry.make_bot(game, "random"), registry.make_bot(game, "random")]
    rng = random.Random(1)
    match.run(bots, [rng, rng])
    return match.record()


async def test_tournament_results_and_their_games(make_arena: Any, tmp_path: Path) -> None:
    root = tmp_path / "tournaments"
    write_tournament(root / "t1")
    arena = await make_arena(tournaments=str(root))
    status, listing = await get(arena, "/api/tournaments")
    assert status == 200 and [t["name"] for t in listing["tournaments"]] == ["t1/tournament.json"]
    status, data = await get(arena, "/api/tournament", name="t1/tournament.json")
    assert status == 200 and data["table"]["random"]["greedy"]["first_wins"] == 1
    status, replay = await get(arena, "/api/tournament/game", name="t1/tournament.json", id="0-1-0")
    assert status == 200 and len(replay["frames"]) == 7
    status, _ = await get(arena, "/api/tournament/game", name="t1/tournament.json", id="0-1-5")
    assert status == 404
    status, _ = await get(arena, "/api/tournament", name="../x.json")
    assert status == 400


def write_tournament(out: Path) -> None:
    """A tournament directory in issue 3's layout: two bots, one game per pairing."""
    from arena.games.substitution.game import SubstitutionGame

    game = SubstitutionGame(Settings.preset("medium", 3))
    record = _played(game)
    (out / "logs" / "0-1").mkdir(parents=True)
    (out / "logs" / "1-0").mkdir(parents=True)
    for folder, game_id in (("0-1", "0-1-0"), ("1-0", "1-0-0")):
        with gzip.open(out / "logs" / folder / "000000.jsonl.gz", "wt", encoding="utf-8") as f:
            f.write(json.dumps({"id": game_id, "log": to_jsonl(record)}) + "\n")
    cell = {"first_wins": 1, "second_wins": 0, "draws": 0}
    (out / "tournament.json").write_text(json.dumps({
        "bots": ["random", "greedy"], "games": 1, "game": "substitution",
        "settings": SUBST,
        "table": {"random": {"greedy": cell}, "greedy": {"random": dict(cell)}},
    }), encoding="utf-8")


async def test_rating_history(arena: Arena) -> None:
    status, data = await get(arena, "/api/ratings/history")
    assert status == 200 and data["history"] == {}
    assert ServerConfig().tournaments is None


def test_rating_history_and_saved_grammars_in_storage(tmp_path: Path) -> None:
    from arena.games.substitution.game import SubstitutionGame
    from arena.server.storage import Storage

    storage = Storage(tmp_path / "db.sqlite")
    record = _played(SubstitutionGame(Settings.preset("medium", 3)))
    storage.start_game(record, ladder=True, pair=None)
    rows = storage.finish_game(record, rated=True)
    history = storage.rating_history("substitution")
    assert sorted(history) == ["a", "b"]
    assert history["a"][0][1] == round(next(r for r in rows if r.bot == "a").conservative, 3)
    assert storage.rating_history("sim") == {}
    storage.save_grammar("g", "S->a\n")
    storage.save_grammar("g", "S->b\n")
    assert storage.grammars() == [("g", "S->b\n")] and storage.grammar("x") is None
    storage.close()


async def test_guests_never_play_on_the_ladder(make_arena: Any) -> None:
    from arena.server import LadderConfig

    arena = await make_arena(ladder=LadderConfig("substitution", SUBST, ("random",), max_games=10))
    _, guest = await get(arena, "/api/guest")
    raw = await arena.raw()
    await raw.hello(guest["token"], games=["substitution"])
    assert arena.server.ladder is not None
    assert arena.server._ladder_candidates() == []
    await arena.client("alice")
    assert sorted(arena.server._ladder_candidates()) == ["alice", "house:random"]


async def test_guest_accounts_are_rate_limited(make_arena: Any) -> None:
    arena = await make_arena(guests_per_minute=2)
    assert (await get(arena, "/api/guest"))[0] == 200
    assert (await get(arena, "/api/guest"))[0] == 200
    status, error = await get(arena, "/api/guest")
    assert status == 429 and "guest" in error["error"]


async def test_a_tournament_directory_written_by_the_tournament_runner(make_arena: Any) -> None:
    """`data/issue3-tournament` is `arena tournament --moves 6 --games 2 --bots
    random,short-words --seed 5 --out DIR` output (issue 3's runner), kept as written."""
    arena = await make_arena(tournaments=str(Path(__file__).parent / "data"))
    status, listing = await get(arena, "/api/tournaments")
    assert [t["name"] for t in listing["tournaments"]] == ["issue3-tournament/tournament.json"]
    name = "issue3-tournament/tournament.json"
    status, data = await get(arena, "/api/tournament", name=name)
    assert data["bots"] == ["random", "short-words"] and data["logs"] is True
    cell = data["table"]["random"]["short-words"]
    assert cell["first_wins"] + cell["second_wins"] + cell["draws"] == 2
    for game_id in ("0-1-0", "0-1-1", "1-0-1"):
        status, replay = await get(arena, "/api/tournament/game", name=name, id=game_id)
        assert status == 200 and replay["error"] is None and len(replay["frames"]) == 13
        assert replay["frames"][-1]["state"]["scores"] == replay["outcome"]["scores"]
