"""Playing in the browser: the lobby's options, guest accounts, starting a game, the position.

A guest account is made by ``POST /api/guest``; its token goes only into an HttpOnly,
SameSite=Strict cookie, never into a URL or a page's script. The browser's WebSocket
handshake (same origin) carries the cookie, so its ``hello`` needs no token, and
``POST /api/play`` starts a game for the guest the cookie names. Clients that are not
browsers may send the token as ``Authorization: Bearer TOKEN`` instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import msgspec
from aiohttp import web

from arena import limits
from arena.errors import ArenaError, SettingsError
from arena.game import Game, Rejection
from arena.names import is_guest
from arena.record import TurnRecord, read_jsonl
from arena.web import GUEST_COOKIE
from arena.web.http import ApiError, json_response, read_json
from arena.web.quota import RateLimit, client_key
from arena.web.routes import Endpoint, Param, service_of

if TYPE_CHECKING:
    from arena.service import ArenaService, LiveView

__all__ = ["ENDPOINTS", "QUOTAS", "GuestQuotas"]

GUEST_GAMES = 2
"""Games a guest may play at once."""

STARTING = "guest-games-starting"
"""The counters' scope of the guests' games being started (`guest_game_place`)."""

@dataclass(frozen=True)
class GuestQuotas:
    """Guest accounts per client address and in all, per minute."""

    per_client: RateLimit
    total: RateLimit


QUOTAS: web.AppKey[GuestQuotas] = web.AppKey("arena.guest-quotas")


class GameRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A game and its settings. `settings` are the game's; without them, a game's plugin
    may read fields of its own (`arena.web.hookspecs.arena_web_settings`: the substitution
    game takes `moves` with `grammar`, a preset's name, or `text`, a grammar)."""

    game: str | None = None
    """The game's name (by default `WebConfig.default_game`)."""
    settings: dict[str, Any] | None = None
    moves: int | None = None
    grammar: str | None = None
    text: str | None = None


class PlayRequest(GameRequest, forbid_unknown_fields=True):
    """A game against a house bot (`bot`, by default the game's random bot)."""

    bot: str = ""
    """A house bot spec (``sim-mc:playouts=50``); by default the game's random bot."""
    seat: Literal[0, 1] = 0


# -- options ----------------------------------------------------------------------------------


def _param_json(param: Any) -> dict[str, Any]:
    return {"name": param.name, "kind": param.kind, "default": param.default, "doc": param.doc,
            "minimum": param.minimum, "maximum": param.maximum, "choices": list(param.choices)}


def _game_json(service: ArenaService, name: str) -> dict[str, Any]:
    """A game as the lobby and the pages see it: what it is, its renderer, its bots."""
    game_class = service.registry.game_class(name)
    kind = game_class.type
    return {
        "name": kind.name, "title": kind.title, "description": kind.description,
        "move_syntax": kind.move_syntax, "chance": kind.chance, "chance_name": kind.chance_name,
        "renderer": f"/static/games/{kind.name}.js" if game_class.web_renderer() else None,
        "lobby": game_class.web_lobby(),
        "log_formats": sorted(game_class.log_formats()),
        "bots": [{"name": f.name, "description": f.description,
                  "params": [_param_json(p) for p in f.params], "presets": sorted(f.presets)}
                 for f in service.registry.bot_factories(kind.name)],
    }


def _game_name(service: ArenaService, name: str) -> str:
    name = name.strip()
    service.registry.game_class(name)  # a SettingsError naming the known games
    return name


async def options(request: web.Request) -> web.Response:
    service = service_of(request)
    game = _game_name(service, request.query.get("game", service.config.web.default_game))
    saved = await service.records.presets(game)
    web_config = service.config.web
    games = [_game_json(service, name) for name in sorted(service.registry.games)]
    return json_response({
        "game": game,
        "games": games,
        "presets": list(service.registry.game_class(game).web_lobby().get("presets", [])) + [
            {"name": name, "description": "saved", "builtin": False, "text": text}
            for name, text in saved],
        "bots": next(g["bots"] for g in games if g["name"] == game),
        "time_control": service.config.web_time_control.to_json(),
        "tournaments": service.config.tournaments is not None,
        "limits": {key: getattr(web_config, key) for key in (
            "tournament_bots", "tournament_games", "tournaments", "matches_per_client")},
    })


# -- guests -----------------------------------------------------------------------------------


async def guest(request: web.Request) -> web.Response:
    service = service_of(request)
    quotas = request.app[QUOTAS]
    client = client_key(request.remote)
    for quota, whose in ((quotas.per_client, client), (quotas.total, "*")):
        wait = await quota.wait(whose)
        if wait > 0:
            scope = "from your address" if whose != "*" else "in all"
            raise ApiError(429, f"at most {quota.per_minute} guest accounts a minute {scope}; "
                                f"try again in {math.ceil(wait)} s",
                           headers={"Retry-After": str(max(1, math.ceil(wait)))})
    name, token = await service.records.add_guest(service.config.guest_lifetime)
    response = json_response({"name": name})
    response.set_cookie(GUEST_COOKIE, token, httponly=True, samesite="Strict", path="/",
                        secure=request.secure)
    return response


def guest_token(request: web.Request) -> str | None:
    """The guest token of a request: its cookie, or ``Authorization: Bearer``."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.cookies.get(GUEST_COOKIE)


# -- starting a game ------------------------------------------------------------------------------


async def guest_name(request: web.Request) -> str | None:
    """The guest account the request's cookie (or bearer token) names, if any."""
    service = service_of(request)
    token = guest_token(request)
    account = await service.records.authenticate(token) if token else None
    return account.name if account is not None and is_guest(account.name) else None


async def me(request: web.Request) -> web.Response:
    """Who the browser is (its guest cookie) and the live games it plays: a reloaded
    page finds its game again here."""
    service = service_of(request)
    name = await guest_name(request)
    games = []
    for game_id in sorted(service.live_games_of(name)) if name else ():
        live = await service.live_game(game_id)
        if live is not None:
            games.append({"game_id": live.id, "game": live.game.type.name,
                          "seat": live.seats_of(name or "")[0], "players": list(live.players),
                          "turn": live.turn})
    return json_response({"name": name,
                          "connected": name is not None and service.connected(name),
                          "games": games})


def _default_bot(service: ArenaService, name: str) -> str:
    names = [f.name for f in service.registry.bot_factories(name)]
    if not names:
        raise ApiError(400, f"no bot plays {name}")
    return "random" if "random" in names else next(
        (n for n in names if n == f"{name}-random"), names[0])


async def check_settings(request: web.Request) -> web.Response:
    """The lobby's check before it leaves: the settings loaded by the game's own rules
    (and the registry's limits), the bot spec made for them; nothing is started."""
    service = service_of(request)
    body = await read_json(request, PlayRequest, service.config.web.max_body)
    name, game = await resolve_game(service, body)
    spec = body.bot.strip() or _default_bot(service, name)
    service.registry.make_bot(game, spec, allow_exec=False)  # a BotSpecError (400) naming it
    return json_response({"ok": True, "game": name, "settings": game.settings(), "bot": spec})


async def guest_ready_to_play(request: web.Request) -> str:
    """The browser's guest, connected and with room for another game (or the `ApiError`
    that says what it lacks): who may start a game or a challenge."""
    service = service_of(request)
    player = await guest_name(request)
    if player is None:
        raise ApiError(403, "no guest account: POST /api/guest first (it sets the cookie)",
                       code="not-a-guest")
    if not service.connected(player):
        raise ApiError(409, f"{player} is not connected: open the WebSocket first",
                       code="not-connected")
    if await _games_of(service, player) >= GUEST_GAMES:
        raise ApiError(409, f"a guest plays at most {GUEST_GAMES} games at once",
                       code="too-many-games")
    return player


async def _games_of(service: ArenaService, player: str) -> int:
    """The guest's games: here, and as stored (on a cluster its socket may be on
    another gateway, and its games on any host)."""
    stored = await service.records.games(bot=player, status="running", limit=GUEST_GAMES)
    return len({*service.live_games_of(player), *(row.id for row in stored)})


@contextlib.asynccontextmanager
async def guest_game_place(service: ArenaService, player: str) -> AsyncIterator[None]:
    """Hold a place among the guest's `GUEST_GAMES` while a game of its starts, so that
    two requests at once (through two gateways, say) never both take the last one.

    A start holds a slot in the arena's counters (`STARTING`, shared by its processes
    under ``--shared-limits``) from before it counts the guest's games until its game
    is stored as running (`ArenaService.start_web_game` returns then): a game being
    started elsewhere is either still counted by its slot or stored already. (A game
    stored but whose slot is not given back yet counts twice, for that instant: a
    refusal too many, never a game too many.)

    Raises:
        ApiError: 409 ``too-many-games``.
    """
    counters = service.counters
    refused = ApiError(409, f"a guest plays at most {GUEST_GAMES} games at once",
                       code="too-many-games")
    if not await counters.admit(STARTING, player, GUEST_GAMES):
        raise refused
    try:
        starting = await counters.count(STARTING, player)  # this one among them
        if await _games_of(service, player) + max(starting, 1) > GUEST_GAMES:
            raise refused
        yield
    finally:
        await counters.release(STARTING, player)


async def play(request: web.Request) -> web.Response:
    service = service_of(request)
    body = await read_json(request, PlayRequest, service.config.web.max_body)
    player = await guest_ready_to_play(request)
    name, game = await resolve_game(service, body)
    house = "house:" + (body.bot.strip() or _default_bot(service, name))
    players = [player, house] if body.seat == 0 else [house, player]
    async with guest_game_place(service, player):
        game_id, _ = await service.launch_game(  # here, or on a host (docs/cluster.md)
            name, game.settings(), players, time_control=service.config.web_time_control)
    return json_response({"game_id": game_id, "game": name, "seat": body.seat,
                          "players": players})


async def resolve_game(service: ArenaService, body: GameRequest) -> tuple[str, Game[Any, Any]]:
    """The game a request names, loaded with its settings through the registry (the
    referee's own rules) and held to the guests' settings limits (`arena.limits`), or a
    400 naming what is wrong. One path for
    ``/api/play``, ``/api/match`` and the lobby's ``/api/settings/check``."""
    name = _game_name(service, body.game or service.config.web.default_game)
    if body.settings is not None:
        settings = body.settings
    else:
        settings = await _web_settings(service, name, body)
    game = _load_game(service, name, settings)
    # every request here is a stranger's: the guests' settings limits, whoever plays
    limits.check_settings(game, "guest", service.config.guest_settings_limits)
    if game.num_players() != 2:
        raise ApiError(400, f"{name} with these settings is a game for {game.num_players()} "
                            "player(s); the web interface plays two-player games",
                       code="bad-settings", reason_code="not-two-players",
                       reason_params={"game": name, "title": game.type.title,
                                      "count": game.num_players()})
    return name, game


async def _web_settings(service: ArenaService, name: str, body: GameRequest) -> dict[str, Any]:
    """The settings of a request without ``settings``: what the game's plugin makes of
    the request's other fields and the game's saved presets, or else the lobby's."""
    presets = dict(await service.records.presets(name))
    fields = {"moves": body.moves, "grammar": body.grammar, "text": body.text}
    settings = service.registry.web_settings(name, fields, presets)
    if settings is None:
        settings = dict(service.registry.game_class(name).web_lobby().get("settings", {}))
    return settings


def _load_game(service: ArenaService, name: str, settings: dict[str, Any]) -> Game[Any, Any]:
    """The game `name` with `settings`; a `SettingsError` for any settings it refuses."""
    try:
        return service.registry.load_game(name, settings)
    except ArenaError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:
        # a plugin's from_settings that trips over input of an unexpected shape
        shown = repr(settings) if len(repr(settings)) <= 80 else repr(settings)[:80] + "..."
        raise SettingsError(f"{name}: bad settings {shown}: {error}", code="settings-unreadable",
                            params={"game": name, "title": service.registry.game_class(name).type.title}
                            ) from None


# -- a live game's position -------------------------------------------------------------------


def _clocks(live: LiveView, seat: int) -> dict[str, Any]:
    """Both seats' clocks: the overage bank and the allowance of their next move, and
    the time the seat to act has left (its allowance and bank) as of now."""
    now = asyncio.get_running_loop().time()
    return {"seats": [{"bank_ms": int(c.bank_ms), "limit_ms": c.limit_ms()} for c in live.clocks],
            "left_ms": max(0, int((live.deadline - now) * 1000))
            if seat >= 0 and live.started and not live.over else None}


async def moves(request: web.Request) -> web.Response:
    """The moves of a live game so far: what a page that joins late, or reloads, shows."""
    service = service_of(request)
    game_id = request.query.get("game_id")
    if not game_id:
        raise ApiError(400, "missing parameter 'game_id'")
    live = await service.live_game(game_id)
    if live is not None:
        return json_response({"game_id": live.id, "turn": live.turn,
                              "moves": _moves(live.match.turns)})
    # a page that asks just after the end (a spectator who came as it ended): its stored log
    stored = await service.records.game(game_id)
    if stored is None or not stored.log:
        raise ApiError(404, f"no live game {game_id!r}", code="unknown-game")
    record = await asyncio.to_thread(read_jsonl, stored.log.splitlines())
    return json_response({"game_id": game_id, "turn": len(record.turns), "over": True,
                          "moves": _moves(record.turns)})


def _moves(turns: Iterable[TurnRecord]) -> list[dict[str, Any]]:
    return [{"turn": t.turn, "seat": t.player, "move": t.move, "chance": t.chance} for t in turns]


async def _ended(service: ArenaService, game_id: str) -> web.Response:
    """/api/legal of a game that is no longer live: a stored game has ended (a page that
    asks just after the last move is told so, not sent a 404); 404 for any other id."""
    stored = await service.records.game(game_id)
    if stored is None or stored.status == "running":
        raise ApiError(404, f"no live game {game_id!r}", code="unknown-game")
    return json_response({"game_id": game_id, "game": stored.game, "players": list(stored.players),
                          "turn": stored.turns, "to_act": -2, "over": True, "render": None,
                          "clocks": None, "moves": [], "complete": True, "steps": [],
                          "can_end": False})


async def legal(request: web.Request) -> web.Response:
    service = service_of(request)
    query = request.query
    if "game_id" not in query:
        raise ApiError(400, "missing parameter 'game_id'")
    live = await service.live_game(query["game_id"])
    if live is None:
        return await _ended(service, query["game_id"])
    game, state = live.game, live.match.state
    seat = live.match.to_act()
    answer: dict[str, Any] = {
        "game_id": live.id, "game": game.type.name, "players": list(live.players),
        "turn": live.turn, "to_act": seat, "over": live.over, "render": game.render(state),
        "clocks": _clocks(live, seat),
    }
    # a move built step by step, where the game's plugin builds them (arena_web_partial_move)
    partial = service.registry.web_partial_move(game, state, query.get("steps", "")) \
        if seat >= 0 and not live.over else None
    if partial is None and "steps" in query and seat >= 0 and not live.over:
        raise ApiError(400, f"{game.type.name} moves are not built in steps: drop 'steps'")
    if seat < 0 or live.over:
        return json_response({**answer, "moves": [], "complete": True, "steps": [],
                              "can_end": False})
    if "move" in query:  # judged by the game's own referee, without playing it
        text = query["move"]
        try:
            verdict = live.match.referee.check(state, game.parse_move(text), player=seat)
        except (ArenaError, ValueError) as error:  # a move string that does not parse
            raise ApiError(400, f"move {text!r}: {error}", code="malformed") from None
        if verdict.rejection is not None:
            rejection = verdict.rejection
            raise ApiError(400, f"move {text!r}: {rejection.message}", code=rejection.code)
        answer["move"] = text
    if partial is None:
        try:
            found = game.legal_moves(state)
        except NotImplementedError:  # a game that does not list its moves: type one
            return json_response({**answer, "moves": None, "complete": False})
        return json_response({**answer, "moves": list(found.moves), "complete": found.complete})
    if isinstance(partial, Rejection):
        step = "" if partial.step is None else f"step {partial.step + 1}: "
        raise ApiError(400, f"{step}{partial.message}", code=partial.code,
                       params={"step": partial.step})  # for the page's own words
    return json_response({**answer, **partial})


ENDPOINTS = (
    Endpoint("GET", "/api/web/options", options, "Every game, grammar preset and house bot",
             "play", params=(Param("game", "the game whose bots `bots` and presets "
                                           "`presets` lists (default: the server's default "
                                           "game, the substitution game)"),),
             answers={200: "games (title, renderer, lobby, log_formats, bots with "
                           "parameters), presets, bots, time_control, tournaments, limits (of "
                           "bot games and tournaments from the web)", 400: "an unknown game"}),
    Endpoint("POST", "/api/guest", guest, "A guest account for a browser", "play", answers={
        200: '{"name"}; the token is set as the HttpOnly cookie `arena_guest`',
        403: "sent by a page of another site",
        429: "beyond the guest quota of the client or of the server (with Retry-After)"}),
    Endpoint("POST", "/api/play", play, "Start a game between the guest and a house bot", "play",
             body=PlayRequest, answers={
                 200: '{"game_id", "game", "seat", "players"}',
                 400: "bad settings, bot or seat (the message names it)",
                 403: "no guest cookie (or a page of another site)",
                 409: "the guest's WebSocket is not connected, or it plays 2 games already"}),
    Endpoint("GET", "/api/me", me, "The browser's guest account and its live games", "play",
             answers={200: '{"name" (null without a guest cookie), "connected", "games": '
                           '[{"game_id", "game", "seat", "players", "turn"}]}'}),
    Endpoint("POST", "/api/settings/check", check_settings,
             "Check a game's settings and bot by the referee's own rules (nothing starts)",
             "play", body=PlayRequest, answers={
                 200: '{"ok": true, "game", "settings" (as the game reads them), "bot"}',
                 400: "bad settings or bot (the message names the problem; reason_code and "
                      "reason_params name it for a page's words, docs/web.md)"}),
    Endpoint("GET", "/api/moves", moves, "A live game's moves so far", "play",
             params=(Param("game_id", "the live game", required=True),),
             answers={200: '{"game_id", "turn", "moves": [{"turn", "seat", "move", "chance"}]}; '
                           'a stored game that has ended: its moves, with "over": true',
                      404: "no such game"}),
    Endpoint("GET", "/api/legal", legal, "A live game's position and legal moves", "play",
             params=(Param("game_id", "the live game", required=True),
                     Param("steps", "a game whose plugin builds moves in steps (the "
                                    "substitution game): the partial move, '-1 0 1, 0 3 0'"),
                     Param("move", "a move to check without playing it")),
             answers={200: "game, players, turn, to_act, over, render, clocks (seats: bank_ms, "
                           "limit_ms; left_ms of the seat to act), moves, complete (substitution: "
                           "roll, applied, steps, can_end, problem, problem_code, derivations, "
                           "bank); a "
                           "stored game that has ended: over true, to_act -2, render and "
                           "clocks null, no moves",
                      400: "an illegal move or step (code: the referee's; a step's: "
                           "params.step, 0-based)",
                      404: "no such game"}),
)
