"""The web interface's endpoints: static files, grammars, guests, legal steps, replays."""

from __future__ import annotations

import asyncio
import gzip
import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.games.substitution import Settings
from arena.record import to_jsonl
from arena.registry import default_registry
from arena.server import ServerConfig
from arena.web import GUEST_COOKIE
from tests.server.conftest import SUBST, Arena, RawClient


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


def _post(port: int, path: str, body: Any = None, *, raw: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    """POST `body` as JSON (or `raw` bytes as text/plain); status, JSON answer, headers."""
    data = raw if raw is not None else json.dumps(body if body is not None else {}).encode()
    kind = "text/plain" if raw is not None else "application/json"
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                     method="POST", headers={"Content-Type": kind,
                                                             **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer, status, got = response.read(), response.status, response.headers
    except urllib.error.HTTPError as error:
        answer, status, got = error.read(), error.code, error.headers
    return status, json.loads(answer), dict(got)


async def post(arena: Arena, path: str, body: Any = None, **options: Any) -> tuple[int, Any]:
    status, data, _ = await asyncio.to_thread(_post, arena.server.port, path, body, **options)
    return status, data


class Guest:
    """A guest account as a browser holds it: the token only in the cookie."""

    def __init__(self, arena: Arena, name: str, token: str) -> None:
        self.arena, self.name, self.token = arena, name, token
        self.cookie = {"Cookie": f"{GUEST_COOKIE}={token}"}

    async def play(self, **body: Any) -> tuple[int, Any]:
        return await post(self.arena, "/api/play", body, headers=self.cookie)

    async def connect(self, *games: str) -> RawClient:
        """The browser's WebSocket: the handshake carries the cookie, hello no token."""
        raw = await self.arena.raw(additional_headers=self.cookie)
        welcome = await raw.hello(None, games=list(games))
        assert welcome["type"] == "welcome" and welcome["bot"] == self.name, welcome
        return raw


async def new_guest(arena: Arena) -> Guest:
    status, data, headers = await asyncio.to_thread(_post, arena.server.port, "/api/guest")
    assert status == 200, data
    cookie = headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    token = cookie.split(";")[0].removeprefix(f"{GUEST_COOKIE}=")
    assert set(data) == {"name"} and data["name"].startswith("guest-")  # no token in the body
    return Guest(arena, data["name"], token)


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


async def test_grammar_check_gives_each_reason_and_warning_a_code(arena: Arena) -> None:
    """A page says the checker's reason and warnings in its language from their codes and
    params; the English texts stay as they were (issue 28)."""
    status, check = await post(arena, "/api/grammars/check", {"text": "S->a\nweights: 1 x\n"})
    assert status == 200 and check["ok"] is False and check["line"] == 2
    assert check["reason"] == "weight 'x' is not a positive integer"
    assert check["reason_code"] == "weight-not-positive" and check["reason_params"] == {"weight": "x"}
    status, check = await post(arena, "/api/grammars/check", {"text": "S->a\nweights: 1 2\n"})
    assert (check["reason_code"], check["reason_params"]) == ("weights-count",
                                                              {"weights": 2, "groups": 1})
    status, check = await post(arena, "/api/grammars/check", {"text": "S->a" * 5000})
    assert check["reason_code"] == "text-too-long" and check["reason_params"] == {"most": 16384}
    status, check = await post(arena, "/api/grammars/check", {"text": "A->aB\n"})
    assert check["ok"] is True and check["warning_codes"] == ["no-start-group"]
    assert check["warnings"] == ["no group starts from S: no derivation can begin"]
    status, check = await post(arena, "/api/grammars/check", {"text": "S->aA\nA->bA\n"})
    assert check["warning_codes"] == ["never-finished"] and len(check["warnings"]) == 1
    status, error = await post(arena, "/api/grammars", {"name": "bad", "text": "S->a||b\n"})
    assert status == 400 and error["code"] == "bad-grammar" and error["line"] == 1
    assert error["reason_code"] == "empty-between-bars"
    assert error["reason_params"] == {"text": "S->a||b"} and "between two '|'" in error["reason"]


async def test_grammar_check_names_the_line_and_save_offers_it(arena: Arena) -> None:
    status, check = await post(arena, "/api/grammars/check", {"text": "S->AB\nA->a\nB=>b\n"})
    assert status == 200 and check["ok"] is False and check["line"] == 3
    assert check["reason"]
    status, check = await post(arena, "/api/grammars/check", {"text": "S->AB\nA->a\nB->b\n"})
    assert check == {"ok": True, "groups": ["S->AB", "A->a", "B->b"], "weights": [1, 1, 1],
                     "warnings": [], "warning_codes": []}
    for text, line, reason in (("S->a\nB->->c\n", 2, "a second '->'"),
                               ("S->a||b\n", 1, "empty alternative between two '|'")):
        status, check = await post(arena, "/api/grammars/check", {"text": text})
        assert check["ok"] is False and check["line"] == line and reason in check["reason"], check
    status, check = await post(arena, "/api/grammars/check", {"text": "S->aA\nA->bA\n"})
    assert check["ok"] is True and check["warnings"] == [(
        "no word can ever be finished: every derivation from S keeps a nonterminal that no "
        "group turns into terminals")]
    status, check = await post(arena, "/api/grammars/check", {"text": "A->a\n"})
    assert check["warnings"] == ["no group starts from S: no derivation can begin"]
    status, saved = await post(arena, "/api/grammars", {"name": "tiny",
                                                         "text": "S->AB\nA->a\nB->b\n"})
    assert status == 200 and saved == {"saved": "tiny"}
    status, error = await post(arena, "/api/grammars", {"name": "tiny", "text": "S->a\n"})
    assert status == 409 and error["code"] == "exists"  # not overwritten unasked
    status, error = await post(arena, "/api/grammars/delete", {"name": "medium"})
    assert status == 400 and "built-in" in error["message"]
    assert (error["reason_code"], error["reason_params"]) == ("preset-builtin", {"name": "medium"})
    status, error = await post(arena, "/api/grammars/delete", {"name": "nothing"})
    assert status == 404 and error["code"] == "unknown-grammar"
    assert (error["reason_code"], error["reason_params"]) == ("preset-missing", {"name": "nothing"})
    status, error = await post(arena, "/api/grammars", {"name": "no name!", "text": "S->a\n"})
    assert status == 400 and error["reason_code"] == "preset-name", error
    status, saved = await post(arena, "/api/grammars", {"name": "gone", "text": "S->a\n"})
    status, deleted = await post(arena, "/api/grammars/delete", {"name": "gone"})
    assert status == 200 and deleted == {"deleted": "gone"}
    status, error = await post(arena, "/api/grammars", {"name": "medium", "text": "S->a\n"})
    assert status == 400 and "built-in" in error["message"] and error["code"] == "bad-request"
    status, error = await post(arena, "/api/grammars", {"name": "bad",
                                                         "text": "S->a\nweights: 0\n"})
    assert status == 400 and error["line"] == 2 and error["code"] == "bad-grammar"
    status, error = await post(arena, "/api/grammars", {"name": "x"})
    assert status == 400 and "text" in error["message"]
    status, options = await get(arena, "/api/web/options")
    assert {"name": "tiny", "description": "saved", "builtin": False,
            "text": "S->AB\nA->a\nB->b\n"} in options["presets"]
    assert "gone" not in [p["name"] for p in options["presets"]]
    status, saved = await post(arena, "/api/grammars", {"name": "tiny", "text": "S->a\n",
                                                         "overwrite": True})
    assert status == 200
    status, options = await get(arena, "/api/web/options")
    assert {"name": "tiny", "description": "saved", "builtin": False,
            "text": "S->a\n"} in options["presets"]


async def test_a_guest_plays_a_house_bot_with_legal_steps_from_the_server(arena: Arena) -> None:
    guest = await new_guest(arena)
    status, error = await guest.play(bot="random")
    assert status == 409 and error["code"] == "not-connected"
    raw = await guest.connect("substitution")
    status, started = await guest.play(bot="random", seat=0, moves=2, grammar="medium")
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
        # why the turn cannot end yet, by its code too (the page says it in its language)
        assert legal["problem_code"] == (None if legal["can_end"] else "rolled-group-unapplied")
        status, refused = await get(arena, "/api/legal", game_id=game_id, steps="-1 99 0")
        assert status == 400 and refused["params"] == {"step": 0}, refused
        assert refused["code"] in {"group-out-of-range", "not-rolled-group"}, refused
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
    # a page that asks just after the end is told the game is over (no 404 in its console)
    status, ended = await get(arena, "/api/legal", game_id=game_id)
    assert status == 200 and ended["over"] is True and ended["to_act"] == -2
    assert ended["render"] is None and ended["moves"] == [] and ended["turn"] == 4
    status, moves = await get(arena, "/api/moves", game_id=game_id)  # from the stored log
    assert status == 200 and moves["over"] is True and moves["turn"] == 4
    assert [m["move"] for m in moves["moves"]] == [t["move"] for t in replay["frames"][1:]]
    for gone in ("/api/legal", "/api/moves"):
        status, error = await get(arena, gone, game_id="g-nothing")
        assert status == 404 and error["code"] == "unknown-game"


async def test_bad_play_requests_are_refused(arena: Arena) -> None:
    token = await arena.add_bot("alice")  # a bot's token is no guest's
    status, error = await post(arena, "/api/play", {}, headers={"Cookie": f"{GUEST_COOKIE}={token}"})
    assert status == 403 and error["code"] == "not-a-guest"
    status, error = await post(arena, "/api/play", {}, headers={"Authorization": f"Bearer {token}"})
    assert status == 403
    status, error = await post(arena, "/api/play", {})
    assert status == 403 and "POST /api/guest" in error["message"]


async def test_the_lobby_s_check_gives_each_refusal_a_reason_code(arena: Arena) -> None:
    """POST /api/settings/check's refusals (the game's rules, the bot's parameters, the
    registry) carry `reason_code` and `reason_params` beside the unchanged English
    message, for the lobby to say them in its language (issue 28)."""
    cases = [
        ({"game": "sim", "settings": {"vertices": 99}}, "vertices-range",
         {"value": 99, "minimum": 3, "maximum": 8}, "'vertices' must be between"),
        ({"game": "sim", "settings": {"vertices": 5, "edges": [[0, 1], [1, 0]]}}, "edge-twice",
         {"edge": "0-1"}, "edge 0-1 is listed twice"),
        ({"game": "durak", "settings": {"cards": "0000"}}, "deal-one-each", {"deal": "0000"},
         "each player needs at least one card"),
        ({"game": "durak", "settings": {"cards": "0101", "weights": "1,x"}},
         "weights-not-integers", {"text": "1,x"}, "expected comma-separated integers"),
        ({"game": "sim", "bot": "sim-mc:trials=0"}, "param-below-minimum",
         {"param": "trials", "value": "0", "minimum": "1"}, "is below the minimum"),
        ({"game": "sim", "bot": "sim-mc:trials=many"}, "param-not-integer",
         {"param": "trials", "value": "many"}, "is not an integer"),
        ({"game": "sim", "bot": "sim-mc:depth=2"}, "unknown-param", None, "has no parameter"),
        ({"game": "sim", "bot": "nobody"}, "unknown-house-bot", None, "unknown sim bot 'nobody'"),
        ({"game": "tiles", "settings": {"tiles": 0}}, "setting-range",
         {"name": "tiles", "value": "0", "minimum": 1, "maximum": 12}, "expected an integer"),
        # hand-written settings: a key the game does not know, heaps rules as JSON
        ({"game": "sim", "settings": {"x": 1, "size": 2}}, "unknown-settings",
         {"keys": "size, x", "known": "vertices, edges"}, "unknown settings ['size', 'x']"),
        ({"game": "heaps", "settings": {"rules": {"moves": {"any": ["+1"]}, "end": {
            "at_least": 9}, "heap": 1}, "start": [1]}}, "rules-unknown-keys", {"keys": "heap"},
         "unknown rule keys ['heap']"),
        ({"game": "heaps", "settings": {"rules": {"moves": {"any": ["^2"]}, "end": {
            "at_least": 9}}, "start": [1]}}, "op-unreadable", {"op": "^2"},
         "cannot read the operation '^2'"),
        ({"game": "heaps", "settings": {"rules": {"heaps": 2, "moves": {"bigger": ["+1"]},
                                                  "end": {"at_least": 9}}, "start": [1, 1]}},
         "rules-move-kinds", {"kinds": "bigger", "known": "any, larger, smaller, equal"},
         "unknown move kinds ['bigger']"),
    ]
    for body, code, params, english in cases:
        status, error = await post(arena, "/api/settings/check", body)
        assert status == 400 and error["code"] == "bad-request", (body, error)
        assert english in error["message"], (body, error)
        assert error["reason_code"] == code, (body, error)
        if params is not None:
            assert error["reason_params"] == params, (body, error)
    status, error = await post(arena, "/api/settings/check", {"game": "sim", "bot": "sim-mc:depth=2"})
    assert error["reason_params"]["param"] == "depth" and "trials" in error["reason_params"]["known"]
    # an error the server says in English only: no reason fields
    status, error = await post(arena, "/api/settings/check", {"game": "sim", "settings": {
        "vertices": 5, "edges": "0-1"}})
    assert status == 400 and "reason_code" not in error, error


async def test_a_client_that_is_not_a_browser_may_send_the_guest_token_as_a_bearer(
        arena: Arena) -> None:
    guest = await new_guest(arena)
    raw = await arena.raw()
    assert (await raw.hello(guest.token, games=["sim"]))["type"] == "welcome"
    status, started = await post(arena, "/api/play", {"game": "sim"},
                                 headers={"Authorization": f"Bearer {guest.token}"})
    assert status == 200 and started["players"][0] == guest.name


async def test_a_bot_token_in_the_cookie_does_not_log_a_bot_in(arena: Arena) -> None:
    token = await arena.add_bot("alice")
    raw = await arena.raw(additional_headers={"Cookie": f"{GUEST_COOKIE}={token}"})
    refused = await raw.hello(None)
    assert refused["type"] == "error" and refused["code"] == "unauthorized"


async def test_replay_of_an_uploaded_log_in_both_formats(arena: Arena) -> None:
    from arena.games.substitution.game import SubstitutionGame
    from arena.games.substitution.thesis_log import write_thesis_log
    record = _played(SubstitutionGame(Settings.preset("medium", 3)))
    for text in (to_jsonl(record), write_thesis_log(record)):
        status, replay = await post(arena, "/api/replay", raw=text.encode())
        assert status == 200, replay
        assert len(replay["frames"]) == 7 and replay["error"] is None
        # render() is the JSON state here: the frames do not carry it twice
        assert all("render" not in frame for frame in replay["frames"])
    status, error = await post(arena, "/api/replay", raw=b"not a log")
    assert status == 400 and error["code"] == "bad-log"
    status, error = await post(arena, "/api/replay", raw=b"\xff\xfe")
    assert status == 400 and "UTF-8" in error["message"]



async def test_a_thesis_log_s_defect_has_a_reason_code(arena: Arena) -> None:
    """The thesis's XML settings and text log, uploaded: a defect is answered with its
    `reason_code`, the values it names, its line and the game whose words say it (issue
    28), beside the unchanged English message."""
    from arena.games.substitution.game import SubstitutionGame
    from arena.games.substitution.thesis_log import write_thesis_log
    text = write_thesis_log(_played(SubstitutionGame(Settings.preset("medium", 3))))
    lines = text.splitlines()
    cases = [
        (text.replace("TotalPossibility=\"", "TotalPossibility=\"1"), "xml-total", "not TotalPossibility"),
        (text.replace("<Possibilities>", "<Possibilities><Oops/>", 1), "xml-unexpected-element",
         "<Oops> inside <Possibilities>"),
        (text.replace('NumberOfMoves="3"', 'NumberOfMoves="x"'), "xml-not-integer",
         "NumberOfMoves attribute 'x' is not an integer"),
        ("\n".join(lines[:lines.index("</GameSettings>") + 1] + ["Игрок 1: a", "Player 2: b"]),
         "thesis-expected", "expected 'Игрок 2: NAME', found 'Player 2: b'"),
    ]
    for log, code, english in cases:
        status, error = await post(arena, "/api/replay", raw=log.encode())
        assert status == 400 and error["code"] == "bad-log", error
        assert english in error["message"], error
        assert error["reason_code"] == code and error["reason_params"]["game"] == "substitution"
        assert error["reason_params"]["line"] >= 1, error
    status, error = await post(arena, "/api/replay", raw=cases[2][0].encode())
    assert error["reason_params"] == {"what": "NumberOfMoves", "value": "x", "line": 1,
                                      "game": "substitution"}


async def test_a_1000_turn_log_replays_as_one_body(arena: Arena) -> None:
    from arena.games.substitution.game import SubstitutionGame

    record = _played(SubstitutionGame(Settings.preset("medium", 1000)))
    status, replay = await post(arena, "/api/replay", raw=to_jsonl(record).encode())
    assert status == 200, replay
    assert len(replay["frames"]) == 2001 and replay["error"] is None
    status, _error = await get(arena, "/api/upload")  # the chunked GET upload is gone
    assert status == 404


def _played(game: Any, bot: str = "random", seed: int = 7) -> Any:
    import random

    from arena.match import Match

    registry = default_registry()
    match = Match(game, ["a", "b"], seed=seed, match_id="t1")
    bots = [registry.make_bot(game, bot), registry.make_bot(game, bot)]
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
    status, error = await get(arena, "/api/tournament", name="../x.json")
    assert status == 404 and error["code"] == "unknown-tournament"


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


async def test_guests_never_play_on_the_ladder(make_arena: Any) -> None:
    from arena.server import LadderConfig

    arena = await make_arena(ladder=LadderConfig("substitution", SUBST, ("random",), max_games=10))
    guest = await new_guest(arena)
    await guest.connect("substitution")
    assert arena.server.ladder is not None
    assert arena.server._ladder_candidates() == []
    await arena.client("alice")
    assert sorted(arena.server._ladder_candidates()) == ["alice", "house:random"]


async def test_guest_accounts_are_rate_limited_in_all(make_arena: Any) -> None:
    from arena.web.config import WebConfig

    arena = await make_arena(guests_per_minute=2, web=WebConfig(guests_per_client_minute=10))
    assert (await post(arena, "/api/guest"))[0] == 200
    assert (await post(arena, "/api/guest"))[0] == 200
    status, error, headers = await asyncio.to_thread(_post, arena.server.port, "/api/guest")
    assert status == 429 and "in all" in error["message"] and int(headers["Retry-After"]) >= 1


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


# -- every game: renderers, lobby, play by hand, replays ---------------------------------------

GAMES: dict[str, tuple[dict[str, Any], str]] = {
    "sim": ({"vertices": 5}, "sim-random"),
    "heaps": ({"example": "49932", "target": 384, "start": [7, 10]}, "heaps-random"),
    "durak": ({"cards": "01101001", "draw_rule": False, "first": 0}, "durak-greedy"),
    "tiles": ({"tiles": 6, "players": 2, "voluntary_skip": True}, "tiles-random"),
}
"""Settings and a house bot for a short game of every game but the substitution game."""


async def test_options_list_every_game_with_its_renderer(arena: Arena) -> None:
    status, options = await get(arena, "/api/web/options")
    assert status == 200 and options["game"] == "substitution"
    games = {g["name"]: g for g in options["games"]}
    assert sorted(games) == ["durak", "heaps", "sim", "substitution", "tiles"]
    registry = default_registry()
    for name, game in games.items():
        assert game["renderer"] == f"/static/games/{name}.js"
        assert game["bots"] and all(b["name"] for b in game["bots"])
        assert game["title"] == registry.game_class(name).type.title
        status, script, kind = await asyncio.to_thread(_get, arena.server.port, game["renderer"])
        assert status == 200 and kind.startswith("text/javascript")
        assert "export function board(" in script
        if name != "substitution":  # its lobby settings start a two-player game
            loaded = registry.load_game(name, game["lobby"]["settings"])
            assert loaded.num_players() == 2
    assert "49932" in games["heaps"]["lobby"]["examples"]
    assert games["sim"]["lobby"]["vertices"] == [3, 8]
    status, sim = await get(arena, "/api/web/options", game="sim")
    assert status == 200 and {b["name"] for b in sim["bots"]} == {
        b["name"] for b in games["sim"]["bots"]} and "sim-random" in {b["name"] for b in sim["bots"]}
    status, error = await get(arena, "/api/web/options", game="chess")
    assert status == 400 and "chess" in error["message"] and "sim" in error["message"]
    for path in ("/static/games/chess.js", "/static/games/sim", "/static/games/../app.js"):
        status, _, _ = await asyncio.to_thread(_get, arena.server.port, path)
        assert status == 404, path


def test_a_game_without_a_renderer_has_none() -> None:
    from arena.game import Game

    class Bare(Game[Any, Any]):  # a plugin that ships no web.js
        pass

    assert Bare.web_renderer() is None and Bare.web_lobby() == {}
    registry = default_registry()
    for name in GAMES:
        path = registry.game_class(name).web_renderer()
        assert path is not None and path.name == "web.js" and path.parent.name == name


async def _guest_connected(arena: Arena, *games: str) -> tuple[Guest, RawClient]:
    guest = await new_guest(arena)
    return guest, await guest.connect(*games)


@pytest.mark.parametrize("name", sorted(GAMES))
async def test_a_guest_plays_every_game_with_legal_moves_from_the_server(
        arena: Arena, name: str) -> None:
    settings, bot = GAMES[name]
    guest, raw = await _guest_connected(arena, name)
    status, started = await guest.play(game=name, settings=settings, bot=bot, seat=1)
    assert status == 200, started
    assert started["game"] == name and started["players"][0] == f"house:{bot}"
    game_id = started["game_id"]
    start = await raw.expect("game_start")
    assert start["game"] == name and start["seat"] == 1
    turns = 0
    while True:
        message = await raw.recv(10)
        if message["type"] == "game_over":
            break
        if message["type"] != "your_turn":
            continue
        status, legal = await get(arena, "/api/legal", game_id=game_id)
        assert status == 200 and legal["to_act"] == 1 and legal["turn"] == message["turn"]
        assert legal["moves"] and legal["complete"] is True
        view = legal["render"]
        # render() labels exactly the legal moves, so the page can offer them as they are
        assert [o["move"] for o in view["options"]] == legal["moves"]
        assert all(isinstance(o["label"], str) and o["label"] for o in view["options"])
        status, checked = await get(arena, "/api/legal", game_id=game_id, move=legal["moves"][0])
        assert status == 200 and checked["move"] == legal["moves"][0]
        status, refused = await get(arena, "/api/legal", game_id=game_id, move="no such move")
        assert status == 400 and "no such move" in refused["message"]
        await raw.send("move", game_id=game_id, turn=message["turn"], move=legal["moves"][-1])
        turns += 1
    assert turns >= 1 and message["termination"] == "normal"
    status, replay = await get(arena, "/api/replay", id=game_id)
    assert status == 200 and replay["game"] == name and replay["error"] is None
    frames = replay["frames"]
    assert all("render" in frame for frame in frames)
    assert frames[-1]["render"]["options"] == []  # the game is over: nobody moves
    assert replay["outcome"]["scores"] == message["scores"]


async def test_what_render_gives_each_game(arena: Arena) -> None:
    """Spot checks of the render() data the renderers draw, through /api/legal."""
    expectations = {
        "sim": lambda v: v["points"][0] == [0.0, -1.0] and len(v["options"]) == 10
        and v["to_move"] == 0 and v["colours"] == ["red", "green"],
        "heaps": lambda v: v["heaps"] == [7, 10] and v["value"] == 70 and v["options"] == [
            {"move": "1 *2", "heap": 0, "label": "×2", "after": 14},
            {"move": "2 +5", "heap": 1, "label": "+5", "after": 15}]
        and v["goal"] == "the product of the heaps reaches 384",
        "durak": lambda v: v["hands"] == [[1, 4, 6, 7], [2, 3, 5, 8]] and v["table"] is None
        and [o["label"] for o in v["options"]] == ["lay 1", "lay 4", "lay 6", "lay 7"],
        "tiles": lambda v: v["boards"] == [[1, 2, 3, 4, 5, 6]] * 2 and len(v["roll"]) == 2
        and v["tiles"] == 6 and {o["move"] for o in v["options"]} <= {"pair", "sum", "pass"},
    }
    for name, check in expectations.items():
        settings, bot = GAMES[name]
        guest, raw = await _guest_connected(arena, name)
        status, started = await guest.play(game=name, settings=settings, bot=bot, seat=0)
        assert status == 200, started
        await raw.expect("your_turn")
        status, legal = await get(arena, "/api/legal", game_id=started["game_id"])
        assert status == 200 and check(legal["render"]), (name, legal["render"])
        await raw.send("resign", game_id=started["game_id"])
        over = await raw.expect("game_over")
        assert over["termination"] == "resignation"


async def test_play_without_settings_uses_the_lobby_defaults(arena: Arena) -> None:
    guest, raw = await _guest_connected(arena, "heaps", "substitution")
    status, started = await guest.play(game="heaps")
    assert status == 200, started
    assert started["players"] == [guest.name, "house:heaps-random"]  # the game's random bot
    start = await raw.expect("game_start")
    assert start["settings"]["example"] == "49932" and start["settings"]["start"] == [7, 10]
    status, started = await guest.play(moves=1)
    assert status == 200 and started["game"] == "substitution"  # the default game
    assert started["players"] == [guest.name, "house:random"]  # not adaptive-random
    start = await raw.expect("game_start")
    assert start["game"] == "substitution" and start["settings"]["moves"] == 1


async def test_bad_play_and_legal_parameters_are_400s_naming_the_problem(arena: Arena) -> None:
    guest, raw = await _guest_connected(arena, "sim")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"game": "chess"}, "chess"),
        ({"game": "sim", "settings": [5]}, "got `array` - at `$.settings`"),
        ({"game": "sim", "settings": "vertices"}, "$.settings"),
        ({"game": "sim", "colour": "red"}, "unknown field `colour`"),
        ({"game": "sim", "settings": {"vertices": 9}}, "vertices"),
        ({"game": "sim", "settings": {"vertices": "6"}}, "vertices"),
        ({"game": "sim", "settings": {"colours": 3}}, "unknown settings"),
        ({"game": "sim", "settings": {"edges": 6}}, "edges must be a list of vertex pairs"),
        ({"game": "sim", "bot": "random"}, "sim bot 'random'"),
        ({"game": "sim", "bot": "sim-mc:trials=x"}, "trials"),
        ({"game": "sim", "seat": 2}, "$.seat"),
        ({"game": "sim", "seat": "1"}, "$.seat"),
        ({"game": "tiles", "settings": {"tiles": 6}}, "two-player"),
        ({"game": "tiles", "settings": {"tiles": 13, "players": 2}}, "tiles"),
        ({"game": "heaps", "settings": {"example": "1", "start": [1, 1]}}, "example"),
        ({"game": "heaps", "settings": {"example": "49932", "start": "7 10"}}, "start"),
        ({"game": "heaps", "settings": {"rules": 5, "start": [1]}}, "rules"),
        ({"game": "heaps",
          "settings": {"rules": {"end": {"at_least": 9}, "moves": {"any": [5]}}, "start": [1]}},
         "operation"),
        ({"game": "durak", "settings": {"cards": "0120"}}, "0s and 1s"),
        ({"game": "durak", "settings": {"cards": "0101", "weights": "1,x"}}, "weights"),
        ({"game": "durak", "settings": {"cards": "000"}}, "each player"),
        ({"game": "durak"}, "does not play durak"),  # the guest said hello for sim only
        ({"game": "substitution", "moves": "many"}, "$.moves"),
        ({"game": "substitution", "moves": 0}, "moves must be a positive integer"),
        ({"game": "substitution", "grammar": "nothing"}, "nothing"),
    ]
    for params, fragment in cases:
        status, error = await guest.play(**params)
        assert status == 400 and fragment in error["message"], (params, error)
    assert arena.server.live == {}  # none of them started a game
    status, error = await guest.play(game="substitution", grammar="nothing")  # by code too
    assert (error["reason_code"], error["reason_params"]) == ("preset-missing", {"name": "nothing"})
    status, error = await guest.play(game="substitution", moves=0)
    assert error["reason_code"] == "moves-range", error
    status, started = await guest.play(game="sim", settings={"vertices": 4}, bot="sim-random")
    assert status == 200
    await raw.expect("your_turn")
    game_id = started["game_id"]
    for params, fragment in [({"steps": "-1 0 0"}, "steps"), ({"move": "0 0"}, "different"),
                             ({"move": "0 9"}, "vertex 9"), ({"move": "nine"}, "not a Sim move")]:
        status, error = await get(arena, "/api/legal", game_id=game_id, **params)
        assert status == 400 and fragment in error["message"], (params, error)
    status, error = await get(arena, "/api/legal", game_id="nothing")
    assert status == 404


@pytest.mark.parametrize("name", sorted(GAMES))
async def test_replay_frames_of_an_uploaded_log_carry_the_render(arena: Arena, name: str) -> None:
    settings, bot = GAMES[name]
    registry = default_registry()
    game = registry.load_game(name, settings)
    record = _played(game, bot)
    status, replay = await post(arena, "/api/replay", raw=to_jsonl(record).encode())
    assert status == 200 and replay["game"] == name and replay["error"] is None
    frames = replay["frames"]
    assert len(frames) == len(record.turns) + 1
    state = game.initial_state()
    for frame, turn in zip(frames[1:], record.turns, strict=True):
        state = record_step(game, state, turn)
        assert frame["move"] == turn.move
        assert frame["render"] == json.loads(json.dumps(game.render(state)))
    first = frames[0]["render"]
    if name == "tiles":  # the dice are rolled after the start: nothing to choose yet
        assert first["roll"] is None and first["options"] == []
    else:
        assert first["options"] and first["to_move"] == 0


def record_step(game: Any, state: Any, turn: Any) -> Any:
    from arena.game import CHANCE

    if game.to_act(state) == CHANCE:
        state = game.apply_chance(state, turn.chance)
    return game.check_move(state, game.parse_move(turn.move))


async def test_a_tournament_of_another_game_replays_with_its_render(make_arena: Any,
                                                                     tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    out = tmp_path / "tournaments" / "heaps"
    result = CliRunner().invoke(main, [
        "tournament", "--game", "heaps", "--settings", json.dumps(GAMES["heaps"][0]), "--bots",
        "heaps-random,heaps-perfect", "--games", "1", "--seed", "4", "--quiet", "--jobs", "1",
        "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    arena = await make_arena(tournaments=str(tmp_path / "tournaments"))
    status, listing = await get(arena, "/api/tournaments")
    assert [(t["name"], t["game"]) for t in listing["tournaments"]] == [
        ("heaps/tournament.json", "heaps")]
    status, replay = await get(arena, "/api/tournament/game", name="heaps/tournament.json",
                               id="0-1-0")
    assert status == 200 and replay["game"] == "heaps" and replay["error"] is None
    heaps = [frame["render"]["heaps"] for frame in replay["frames"]]
    assert heaps[0] == [7, 10] and all(frame["render"]["target"] == 384
                                       for frame in replay["frames"])
    assert heaps[-1][0] * heaps[-1][1] >= 384 and replay["frames"][-1]["render"]["options"] == []


async def test_a_game_plugin_without_a_renderer_gets_the_json_view(make_arena: Any) -> None:
    from arena.registry import BUILTIN_PLUGINS, Registry

    registry = Registry((*BUILTIN_PLUGINS, "tests.web.bare_game"), entry_points=False)
    arena = await make_arena(registry=registry)
    server = arena.server
    status, options = await get(arena, "/api/web/options", game="bare-sim")
    bare = next(g for g in options["games"] if g["name"] == "bare-sim")
    assert bare["renderer"] is None and bare["lobby"] == {}
    assert [b["name"] for b in options["bots"]] == ["bare-random"]
    status, _, _ = await asyncio.to_thread(_get, server.port, "/static/games/bare-sim.js")
    assert status == 404
    guest, raw = await _guest_connected(arena, "bare-sim")
    status, started = await guest.play(game="bare-sim")
    assert status == 200, started  # no settings: the game's own defaults
    assert started["players"] == [guest.name, "house:bare-random"]
    await raw.expect("your_turn")
    status, legal = await get(arena, "/api/legal", game_id=started["game_id"])
    # moves it does not list are typed: the page offers a text field
    assert status == 200 and legal["moves"] is None and legal["render"]["vertices"] == 4
