"""The web interface's HTTP endpoints, answered on the server's port (`arena.server.http`).

Everything is a GET (the WebSocket library's HTTP side reads no request bodies); the
few requests that change something (a guest account, a game against a house bot, a
saved grammar) are GETs with query parameters, and an uploaded log travels deflated
and base64url-encoded in the query (``z``).

    GET /, /static/NAME                 the shipped static files
    GET /api/web/options?game=          every game (title, rules, renderer, lobby data,
                                        bots with their parameters), grammar presets
                                        (built-in and saved), web time control
    GET /static/games/NAME.js           the game's web renderer (`Game.web_renderer`)
    GET /api/grammars/check?text=       validate a grammar text: ok, or line and reason
    GET /api/grammars/save?name=&text=  save a grammar preset (validated first)
    GET /api/guest                      a guest bot account for a browser: name, token
    GET /api/play?token=&bot=&seat=&game=&settings=
                                        start a game between the connected guest and a
                                        house bot; answers the game id (the substitution
                                        game also takes moves= and grammar= or text=)
    GET /api/legal?game_id=&steps=&move=
                                        a live game's position: its render(), who acts,
                                        the legal moves; for the substitution game the
                                        legal next steps after the partial move
                                        ``steps``, whether the turn can end, the
                                        derivations and the bank so far; ``move``
                                        checks a move without playing it
    GET /api/replay?id=  or  ?z=        replay frames of a stored (or live) game, or of an
                                        uploaded log (JSON Lines or the thesis's text)
    GET /api/upload?key=&part=&parts=&z=  one part of a longer uploaded log; then
                                        /api/replay?upload=KEY replays it
    GET /api/ratings/history?game=      conservative rating after each rated game, per bot
    GET /api/tournaments                tournament results under ``--tournaments DIR``
    GET /api/tournament?name=           one tournament's JSON
    GET /api/tournament/game?name=&id=  replay frames of one of its games
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Response

from arena.errors import ArenaError, GrammarError, SettingsError
from arena.game import Game
from arena.server.names import GUEST_PREFIX
from arena.web import STATIC
from arena.web.replay import decode_upload, frames, record_from_text, tournament_log

if TYPE_CHECKING:
    from arena.server.app import ArenaServer

__all__ = ["GUEST_PREFIX", "ROUTES", "respond"]


GUEST_GAMES = 2
"""Games a guest may play at once."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_STEP = re.compile(r"\s*(-?\d{1,9})\s+(\d{1,9})\s+(\d{1,9})\s*")


def _json(connection: ServerConnection, status: int, data: Any) -> Response:
    body = (json.dumps(data, ensure_ascii=False, default=str) + "\n").encode("utf-8")
    return _bytes(connection, status, body, "application/json; charset=utf-8")


def _bytes(connection: ServerConnection, status: int, body: bytes, kind: str) -> Response:
    response = connection.respond(status, "")
    response.body = body
    headers = Headers(response.headers)
    del headers["Content-Length"], headers["Content-Type"]
    headers["Content-Length"] = str(len(body))
    headers["Content-Type"] = kind
    headers["Cache-Control"] = "no-cache"
    response.headers = headers
    return response


def _static(connection: ServerConnection, name: str) -> Response | None:
    path = (STATIC / name).resolve()
    if path.parent != STATIC.resolve() or not path.is_file():
        return None
    kind = {".js": "text/javascript", ".css": "text/css", ".html": "text/html",
            ".svg": "image/svg+xml"}.get(path.suffix) or mimetypes.guess_type(path.name)[0]
    kind = kind or "application/octet-stream"
    if kind.startswith("text/") or kind.endswith("+xml"):
        kind += "; charset=utf-8"
    return _bytes(connection, 200, path.read_bytes(), kind)


def _renderer(server: ArenaServer, connection: ServerConnection, name: str) -> Response | None:
    """``/static/games/NAME.js``: the web renderer a game plugin ships, if any."""
    game_class = server.registry.games.get(name.removesuffix(".js")) if name.endswith(".js") else None
    path = game_class.web_renderer() if game_class is not None else None
    if path is None or not path.is_file():
        return None
    return _bytes(connection, 200, path.read_bytes(), "text/javascript; charset=utf-8")


async def respond(server: ArenaServer, connection: ServerConnection, path: str,
                  query: dict[str, str]) -> Response | None:
    """The web interface's answer to a GET of `path`, or None if it is not one of ours."""
    if path in ("/", "/index.html"):
        return _static(connection, "index.html")
    if path.startswith("/static/games/"):
        return _renderer(server, connection, path[len("/static/games/"):]) or _json(
            connection, 404, {"error": f"no web renderer {path!r}"})
    if path.startswith("/static/"):
        return _static(connection, path[len("/static/"):]) or _json(
            connection, 404, {"error": f"no file {path!r}"})
    handler = _HANDLERS.get(path)
    if handler is None:
        return None
    try:
        status, data = await handler(server, query)
    except (ArenaError, ValueError, KeyError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
        if isinstance(error, KeyError):
            message = f"missing parameter {message!r}"
        status, data = 400, {"error": message}
    return _json(connection, status, data)


# -- options and grammars ----------------------------------------------------------------


def _builtin_presets() -> list[dict[str, Any]]:
    from arena.games.substitution.grammar import Grammar
    from arena.games.substitution.presets import PRESETS

    return [{"name": name, "description": description, "builtin": True,
             "text": Grammar.of(groups).to_text()}
            for name, (groups, description) in PRESETS.items()]


def _param_json(param: Any) -> dict[str, Any]:
    return {"name": param.name, "kind": param.kind, "default": param.default, "doc": param.doc,
            "minimum": param.minimum, "maximum": param.maximum, "choices": list(param.choices)}


def _game_json(server: ArenaServer, name: str) -> dict[str, Any]:
    """A game as the lobby and the pages see it: what it is, its renderer, its bots."""
    game_class = server.registry.game_class(name)
    kind = game_class.type
    return {
        "name": kind.name, "title": kind.title, "description": kind.description,
        "move_syntax": kind.move_syntax, "chance": kind.chance, "chance_name": kind.chance_name,
        "renderer": f"/static/games/{kind.name}.js" if game_class.web_renderer() else None,
        "lobby": game_class.web_lobby(),
        "bots": [{"name": f.name, "description": f.description,
                  "params": [_param_json(p) for p in f.params], "presets": sorted(f.presets)}
                 for f in server.registry.bot_factories(kind.name)],
    }


async def _options(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    assert server.storage is not None
    saved = await server.storage.call(server.storage.storage.grammars)
    game = _game_name(server, query)
    games = [_game_json(server, name) for name in sorted(server.registry.games)]
    return 200, {
        "game": game,
        "games": games,
        "presets": _builtin_presets() + [
            {"name": name, "description": "saved", "builtin": False, "text": text}
            for name, text in saved],
        "bots": next(g["bots"] for g in games if g["name"] == game),
        "time_control": server.config.web_time_control.to_json(),
        "tournaments": server.config.tournaments is not None,
    }


def _game_name(server: ArenaServer, query: dict[str, str]) -> str:
    """The ``game`` parameter (default: the substitution game), checked against the registry."""
    name = query.get("game", "substitution").strip()
    server.registry.game_class(name)  # a SettingsError naming the known games
    return name


def _check_grammar(server: ArenaServer, text: str) -> dict[str, Any]:
    from arena.games.substitution import Settings
    from arena.games.substitution.grammar import Grammar

    try:
        grammar = Grammar.from_text(text)
        server.registry.load_game("substitution", Settings(grammar, 1).to_json())
    except GrammarError as error:
        return {"ok": False, "line": error.line, "reason": error.reason, "message": str(error)}
    except ArenaError as error:
        return {"ok": False, "line": 0, "reason": str(error), "message": str(error)}
    return {"ok": True, "groups": [str(g) for g in grammar.groups],
            "weights": list(grammar.weights)}


async def _grammar_check(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    return 200, _check_grammar(server, query["text"])


async def _grammar_save(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    name, text = query["name"].strip(), query["text"]
    if not _NAME.fullmatch(name):
        return 400, {"error": "a preset name is 1-40 letters, digits, '_', '.', '-'"}
    if name in {p["name"] for p in _builtin_presets()}:
        return 400, {"error": f"{name!r} is a built-in preset"}
    check = _check_grammar(server, text)
    if not check["ok"]:
        return 400, {"error": check["message"], **check}
    assert server.storage is not None
    await server.storage.call(server.storage.storage.save_grammar, name, text)
    return 200, {"saved": name}


async def _grammar_text(server: ArenaServer, name: str) -> str:
    for preset in _builtin_presets():
        if preset["name"] == name:
            return str(preset["text"])
    assert server.storage is not None
    text = await server.storage.call(server.storage.storage.grammar, name)
    if text is None:
        raise ValueError(f"no grammar preset {name!r}")
    return text


# -- playing in the browser ---------------------------------------------------------------


async def _guest(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    import time

    assert server.storage is not None
    issued: list[float] = server.web_state.setdefault("guests_issued", [])
    now = time.monotonic()
    issued[:] = [t for t in issued if now - t < 60]
    if len(issued) >= server.config.guests_per_minute:
        return 429, {"error": "too many guest accounts were issued in the last minute"}
    issued.append(now)
    name, token = await server.storage.call(server.storage.storage.add_guest,
                                            server.config.guest_lifetime)
    return 200, {"name": name, "token": token}


async def _play(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    assert server.storage is not None
    account = await server.storage.call(server.storage.storage.authenticate, query["token"])
    if account is None or not account.name.startswith(GUEST_PREFIX):
        return 403, {"error": "not a guest token (get one from /api/guest)"}
    if account.name not in server.sessions:
        return 409, {"error": f"{account.name} is not connected: open the WebSocket first"}
    if len(server.bot_games.get(account.name, ())) >= GUEST_GAMES:
        return 409, {"error": f"a guest plays at most {GUEST_GAMES} games at once"}
    seat = query.get("seat", "0").strip()
    if seat not in ("0", "1"):
        raise ValueError(f"seat must be 0 or 1, not {seat!r}")
    name = _game_name(server, query)
    if "settings" in query:
        settings = _settings_param(query["settings"])
    elif name == "substitution":
        settings = await _substitution_settings(server, query)
    else:
        settings = dict(server.registry.game_class(name).web_lobby().get("settings", {}))
    game = _load_game(server, name, settings)
    if game.num_players() != 2:
        raise ValueError(f"{name} with these settings is a game for {game.num_players()} "
                         "player(s); the web interface plays two-player games")
    factories = server.registry.bot_factories(name)
    if not factories:
        raise ValueError(f"no bot plays {name}")
    names = [f.name for f in factories]
    default = "random" if "random" in names else next(
        (n for n in names if n == f"{name}-random"), names[0])
    house = "house:" + (query.get("bot", "").strip() or default)
    players = [account.name, house] if seat == "0" else [house, account.name]
    live = server.start_game(name, game.settings(), players,
                             time_control=server.config.web_time_control)
    return 200, {"game_id": live.id, "game": name, "seat": int(seat), "players": players}


def _settings_param(text: str) -> dict[str, Any]:
    """The ``settings`` parameter: a JSON object."""
    try:
        settings = json.loads(text)
    except ValueError as error:
        raise SettingsError(f"settings are not JSON: {error}") from None
    if not isinstance(settings, dict):
        raise SettingsError(f"settings must be a JSON object, not {type(settings).__name__}")
    return settings


async def _substitution_settings(server: ArenaServer, query: dict[str, str]) -> dict[str, Any]:
    """The substitution game's own parameters: ``moves`` and ``grammar`` or ``text``."""
    from arena.games.substitution import Settings
    from arena.games.substitution.grammar import Grammar

    moves = query.get("moves", "10").strip()
    if not moves.isdigit():
        raise ValueError(f"moves must be a positive integer, not {moves!r}")
    text = query["text"] if "text" in query else await _grammar_text(
        server, query.get("grammar", "medium"))
    return Settings(Grammar.from_text(text), int(moves)).to_json()


def _load_game(server: ArenaServer, name: str, settings: dict[str, Any]) -> Game[Any, Any]:
    """The game `name` with `settings`; a `SettingsError` for any settings it refuses."""
    try:
        return server.registry.load_game(name, settings)
    except ArenaError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:
        # a plugin's from_settings that trips over input of an unexpected shape
        raise SettingsError(f"{name}: bad settings {settings!r}: {error!r}") from None


def _parse_steps(text: str) -> list[tuple[int, int, int]]:
    steps = []
    for part in text.split(",") if text.strip() else []:
        match = _STEP.fullmatch(part)
        if match is None:
            raise ValueError(f"malformed step {part!r}")
        steps.append((int(match[1]), int(match[2]), int(match[3])))
    return steps


async def _legal(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    live = server.live.get(query["game_id"])
    if live is None:
        return 404, {"error": f"no live game {query['game_id']!r}"}
    game, state = live.game, live.match.state
    seat = live.match.to_act()
    answer: dict[str, Any] = {
        "game_id": live.id, "game": game.type.name, "turn": live.turn, "to_act": seat,
        "over": live.over, "render": game.render(state),
    }
    make_turn = getattr(game, "turn", None)
    if make_turn is None and "steps" in query:
        raise ValueError(f"{game.type.name} moves are not built in steps: drop 'steps'")
    if seat < 0 or live.over:
        return 200, {**answer, "moves": [], "complete": True, "steps": [], "can_end": False}
    if "move" in query:  # judged by the game's own referee, without playing it
        text = query["move"]
        try:
            verdict = live.match.referee.check(state, game.parse_move(text), player=seat)
        except (ArenaError, ValueError) as error:  # a move string that does not parse
            return 400, {"error": f"move {text!r}: {error}", "code": "malformed"}
        if verdict.rejection is not None:
            rejection = verdict.rejection
            return 400, {"error": f"move {text!r}: {rejection.message}", "code": rejection.code}
        answer["move"] = text
    if make_turn is None:
        try:
            options = game.legal_moves(state)
        except NotImplementedError:  # a game that does not list its moves: type one
            return 200, {**answer, "moves": None, "complete": False}
        return 200, {**answer, "moves": list(options.moves), "complete": options.complete}
    turn = make_turn(state)
    for index, step in enumerate(_parse_steps(query.get("steps", "")), start=1):
        rejection = turn.check(*step)
        if rejection is not None:
            return 400, {"error": f"step {index}: {rejection.message}", "code": rejection.code}
        turn.apply(*step)
    can_end = turn.can_end()
    problem = None if can_end else turn.end_problem()
    return 200, {
        **answer, "roll": turn.roll,
        "applied": [list(s) for s in turn.applied],
        "steps": [list(s) for s in turn.legal_steps()], "can_end": can_end,
        "problem": problem.message if problem is not None else None,
        "derivations": [d.text for d in turn.derivations], "bank": list(turn.bank),
    }


# -- replays, ratings, tournaments -----------------------------------------------------------


UPLOAD_PART = 6000
"""Characters of an upload's base64url text per request: a request line is at most
8 KiB, so longer logs arrive in parts (``/api/upload``) and are replayed by key."""
MAX_UPLOAD_PARTS = 1000
MAX_PENDING_UPLOADS = 16
UPLOAD_SECONDS = 600.0
_UPLOAD_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")


async def _upload(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    """One part of an uploaded log: ``key``, ``part`` (0-based), ``parts``, ``z``."""
    key, chunk = query["key"], query["z"]
    part, parts = int(query["part"]), int(query["parts"])
    if not _UPLOAD_KEY.fullmatch(key):
        raise ValueError("an upload key is 8 to 64 letters, digits, '-' or '_'")
    if not 1 <= parts <= MAX_UPLOAD_PARTS or not 0 <= part < parts:
        raise ValueError(f"part {part} of {parts}: at most {MAX_UPLOAD_PARTS} parts")
    if len(chunk) > UPLOAD_PART:
        raise ValueError(f"a part holds at most {UPLOAD_PART} characters")
    uploads: dict[str, tuple[float, list[str | None]]] = server.web_state.setdefault("uploads", {})
    now = time.monotonic()
    for stale in [k for k, (started, _) in uploads.items() if now - started > UPLOAD_SECONDS]:
        del uploads[stale]
    if key not in uploads:
        if len(uploads) >= MAX_PENDING_UPLOADS:
            del uploads[min(uploads, key=lambda k: uploads[k][0])]
        uploads[key] = (now, [None] * parts)
    pieces = uploads[key][1]
    if len(pieces) != parts:
        raise ValueError(f"upload {key!r} has {len(pieces)} parts, not {parts}")
    pieces[part] = chunk
    return 200, {"key": key, "received": sum(p is not None for p in pieces), "parts": parts}


async def _replay(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    if "z" in query or "upload" in query:
        if "upload" in query:
            uploads = server.web_state.get("uploads", {})
            entry = uploads.pop(query["upload"], None)
            if entry is None or any(piece is None for piece in entry[1]):
                raise ValueError(f"upload {query['upload']!r} is incomplete or has expired")
            z = "".join(piece for piece in entry[1] if piece is not None)
        else:
            z = query["z"]
        text = decode_upload(z)
        record = record_from_text(text)
        return 200, await asyncio.to_thread(frames, record, server.registry)
    game_id = query["id"]
    live = server.live.get(game_id)
    if live is not None:
        from dataclasses import replace

        record = replace(live.match.record(), seed=None)  # no seed before the end
        data = await asyncio.to_thread(frames, record, server.registry)
        return 200, {**data, "live": True}
    assert server.storage is not None
    row = await server.storage.call(server.storage.storage.game, game_id)
    if row is None:
        return 404, {"error": f"no game {game_id!r}"}
    if not row.get("log"):
        return 404, {"error": f"game {game_id!r} has no log"}
    record = record_from_text(row["log"])
    return 200, await asyncio.to_thread(frames, record, server.registry)


async def _history(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    assert server.storage is not None
    game = query.get("game") or (server.config.ladder.game if server.config.ladder else None)
    history = await server.storage.call(server.storage.storage.rating_history, game)
    return 200, {"game": game, "history": history}


def _tournament_files(root: Path) -> dict[str, Path]:
    """Tournament JSON files (``bots`` and ``table``) in `root` and its subdirectories."""
    found: dict[str, Path] = {}
    candidates = sorted(root.glob("*.json")) + sorted(root.glob("*/*.json"))
    for path in candidates:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "bots" in data and "table" in data:
            found[path.relative_to(root).as_posix()] = path
    return found


async def _tournaments(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    root = server.config.tournaments
    if root is None:
        return 200, {"tournaments": [], "directory": None}
    files = await asyncio.to_thread(_tournament_files, Path(root))
    items = []
    for name, path in files.items():
        data = json.loads(path.read_text(encoding="utf-8"))
        items.append({"name": name, "bots": data["bots"], "games": data.get("games"),
                      "game": data.get("game", "substitution")})
    return 200, {"tournaments": items, "directory": str(root)}


async def _tournament_path(server: ArenaServer, name: str) -> Path:
    root = server.config.tournaments
    files = await asyncio.to_thread(_tournament_files, Path(root)) if root else {}
    if name not in files:
        raise ValueError(f"no tournament {name!r}")
    return files[name]


async def _tournament(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    path = await _tournament_path(server, query["name"])
    data = json.loads(path.read_text(encoding="utf-8"))
    data["logs"] = (path.parent / "logs").is_dir()
    return 200, data


async def _tournament_game(server: ArenaServer, query: dict[str, str]) -> tuple[int, Any]:
    path = await _tournament_path(server, query["name"])
    log = await asyncio.to_thread(tournament_log, path.parent, query["id"])
    if log is None:
        return 404, {"error": f"no log of game {query['id']!r} in {query['name']!r}"}
    record = record_from_text(log)
    return 200, await asyncio.to_thread(frames, record, server.registry)


_HANDLERS = {
    "/api/web/options": _options,
    "/api/grammars/check": _grammar_check,
    "/api/grammars/save": _grammar_save,
    "/api/guest": _guest,
    "/api/play": _play,
    "/api/legal": _legal,
    "/api/replay": _replay,
    "/api/upload": _upload,
    "/api/ratings/history": _history,
    "/api/tournaments": _tournaments,
    "/api/tournament": _tournament,
    "/api/tournament/game": _tournament_game,
}

ROUTES = ["/", "/static/{name}", *_HANDLERS]
"""Every path the web interface answers."""
