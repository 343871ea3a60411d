"""People and their bots: signing up and in, a person's bots, tokens, versions, games and
debug lines (docs/server.md, "People and their bots").

A session is a random token in an HttpOnly, SameSite=Strict cookie (`PERSON_COOKIE`),
like the guests': a page's script never sees it and a foreign page's request never
carries it; state-changing requests from foreign pages are refused anyway
(`arena.web.origins.cross_site_guard`). Passwords are hashed and checked with argon2id
off the event loop, a bounded number at once (`arena.passwords`). Every input a stranger
reaches has its budget (`arena.config.AccountsConfig`): sign-ups and sign-in
attempts per client address (and sign-ins per name), password lengths, sessions per
person, bots per person, versions a day, changes a minute, the length of a version's
note.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from aiohttp import web

from arena.config import AccountsConfig
from arena.names import check_account_name
from arena.passwords import HashingBusy, Passwords, check_password
from arena.record import read_jsonl
from arena.service import ChallengeError
from arena.storage.people import AccountLimit
from arena.uploads import LANGS
from arena.web import PERSON_COOKIE
from arena.web.endpoints.challenges import CHALLENGE_STATUS, challenge_params
from arena.web.http import ApiError, json_response, read_json
from arena.web.quota import RateLimit, client_key
from arena.web.routes import Endpoint, Param, service_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from arena.counters import Counters
    from arena.service import ArenaService
    from arena.storage.people import OwnedBot

__all__ = ["ACCOUNTS", "ENDPOINTS", "NOTE_LENGTH", "Accounts"]

NOTE_LENGTH = 200
"""Characters of a version's note at most."""


@dataclass(frozen=True)
class Accounts:
    """The accounts' shared state in the application: the password pool and the rate
    limits of `AccountsConfig`."""

    passwords: Passwords
    signups_per_client: RateLimit
    signups: RateLimit
    signins_per_client: RateLimit
    signins_per_name: RateLimit
    changes_per_person: RateLimit

    @classmethod
    def of(cls, config: AccountsConfig, counters: Callable[[], Counters]) -> Accounts:
        return cls(Passwords(threads=config.hash_threads, queue=config.hash_queue),
                   RateLimit("signups-per-client", config.signups_per_client_minute, counters),
                   RateLimit("signups", config.signups_per_minute, counters),
                   RateLimit("signins-per-client", config.signins_per_client_minute, counters),
                   RateLimit("signins-per-name", config.signins_per_name_minute, counters),
                   RateLimit("changes-per-person", config.changes_per_person_minute, counters))


ACCOUNTS: web.AppKey[Accounts] = web.AppKey("arena.accounts")


class SignUp(msgspec.Struct, forbid_unknown_fields=True):
    """A new person: a name (the accounts' character set), a password, and an invite
    code when sign-up is by invitation."""

    name: str
    password: str
    invite: str | None = None


class SignIn(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    password: str


class NewBot(msgspec.Struct, forbid_unknown_fields=True):
    """A new bot of the signed-in person's (its name is global: no other bot may have it)."""

    name: str


class BotChallenge(msgspec.Struct, forbid_unknown_fields=True):
    """A challenge from one of the signed-in person's connected bots to a named bot: the
    pairing's two games on a ladder's settings, as the bot's own ``challenge`` message."""

    opponent: Annotated[str, msgspec.Meta(max_length=64)]
    """The bot challenged (an account's name)."""
    ladder: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    """The ladder whose game, settings and time control the games use (``GET
    /api/ladders``); None: the server's first ladder."""
    rated: bool = False
    """Rated games (refused on an unrated ladder, and between two bots of one person)."""


class NewVersion(msgspec.Struct, forbid_unknown_fields=True):
    """A new version of a bot, with a note of what changed (up to 200 characters)."""

    note: str = ""


def _config(request: web.Request) -> AccountsConfig:
    return service_of(request).config.accounts


async def _limit(quota: RateLimit, key: str, what: str) -> None:
    wait = await quota.wait(key)
    if wait > 0:
        raise ApiError(429, f"at most {quota.per_minute} {what} a minute; try again in "
                            f"{math.ceil(wait)} s", code="rate-limited",
                       headers={"Retry-After": str(max(1, math.ceil(wait)))})


async def _hashing(work: Any) -> Any:
    try:
        return await work
    except HashingBusy as error:
        raise ApiError(503, str(error), code="busy", headers={"Retry-After": "2"}) from None


def _signed_in(request: web.Request, name: str, token: str) -> web.Response:
    response = json_response({"name": name})
    response.set_cookie(PERSON_COOKIE, token, httponly=True, samesite="Strict", path="/",
                        secure=request.secure, max_age=int(_config(request).session_lifetime))
    return response


async def person_of(request: web.Request) -> str | None:
    """The signed-in person of a request (its session cookie), if any."""
    token = request.cookies.get(PERSON_COOKIE)
    if not token or len(token) > 100:
        return None
    return await service_of(request).records.session_person(token)


async def _person(request: web.Request) -> str:
    person = await person_of(request)
    if person is None:
        raise ApiError(401, "sign in first (POST /api/account/signin)", code="not-signed-in")
    return person


async def _changing(request: web.Request) -> str:
    """The signed-in person, within their changes a minute (bots, tokens, versions)."""
    person = await _person(request)
    await _limit(request.app[ACCOUNTS].changes_per_person, person, "changes to your bots")
    return person


# -- signing up, in and out ---------------------------------------------------------------


async def signup(request: web.Request) -> web.Response:
    service = service_of(request)
    config = service.config.accounts
    body = await read_json(request, SignUp, service.config.web.max_body)
    if config.signup == "closed":
        raise ApiError(403, "sign-up is closed on this server: the operator adds people "
                            "('arena users add NAME')", code="signup-closed")
    if config.signup == "invite" and not body.invite:
        raise ApiError(403, "sign-up is by invitation: give the invite code the operator "
                            "sent you", code="invite-needed")
    accounts = request.app[ACCOUNTS]
    await _limit(accounts.signups_per_client, client_key(request.remote),
                 "sign-ups from your address")
    await _limit(accounts.signups, "*", "sign-ups in all")
    check_account_name(body.name)
    check_password(body.password, minimum=config.password_min, maximum=config.password_max)
    if await service.records.password_hash(body.name) is not None:
        raise ApiError(409, f"the name {body.name!r} is taken", code="name-taken")
    hashed = await _hashing(accounts.passwords.hash(body.password))
    try:
        await service.records.add_person(
            body.name, hashed, invite=body.invite if config.signup == "invite" else None)
    except ValueError as error:
        if "invite" in str(error):
            raise ApiError(403, str(error), code="bad-invite") from None
        raise ApiError(409, str(error), code="name-taken") from None
    token = await service.records.open_session(body.name, config.session_lifetime,
                                              keep=config.sessions_per_person)
    return _signed_in(request, body.name, token)


async def signin(request: web.Request) -> web.Response:
    service = service_of(request)
    config = service.config.accounts
    body = await read_json(request, SignIn, service.config.web.max_body)
    accounts = request.app[ACCOUNTS]
    await _limit(accounts.signins_per_client, client_key(request.remote),
                 "sign-in attempts from your address")
    await _limit(accounts.signins_per_name, body.name[:64], "sign-in attempts for one name")
    if len(body.password) > config.password_max:
        raise ApiError(400, f"a password has at most {config.password_max} characters")
    stored = await service.records.password_hash(body.name)
    if not await _hashing(accounts.passwords.verify(stored, body.password)):
        raise ApiError(401, "wrong name or password", code="wrong-credentials")
    token = await service.records.open_session(body.name, config.session_lifetime,
                                              keep=config.sessions_per_person)
    return _signed_in(request, body.name, token)


async def signout(request: web.Request) -> web.Response:
    token = request.cookies.get(PERSON_COOKIE)
    if token and len(token) <= 100:
        await service_of(request).records.close_session(token)
    response = json_response({"name": None})
    response.del_cookie(PERSON_COOKIE, path="/")
    return response


async def account_me(request: web.Request) -> web.Response:
    config = _config(request)
    name = await person_of(request)
    uploads = service_of(request).uploads
    return json_response({
        "name": name, "signup": config.signup,
        "operator": name is not None and await service_of(request).records.is_operator(name),
        "limits": {"bots": config.bots_per_person, "versions_per_day": config.versions_per_day,
                   "password_min": config.password_min, "password_max": config.password_max,
                   "note_length": NOTE_LENGTH},
        "hosting": None if uploads is None else {
            "languages": list(LANGS), "upload_bytes": uploads.upload_limits.archive_bytes,
            "builds_per_day": config.builds_per_day}})


# -- a person's bots ------------------------------------------------------------------------


async def _owned(request: web.Request, person: str) -> OwnedBot:
    name = request.match_info["bot"]
    for bot in await service_of(request).records.owned_bots(person):
        if bot.name == name:
            return bot
    raise ApiError(404, f"you have no bot named {name[:60]!r}", code="unknown-bot")


def _bot_json(service: ArenaService, bot: OwnedBot) -> dict[str, Any]:
    return {**bot.to_json(), "connected": service.connected(bot.name),
            "games_in_flight": len(service.live_games_of(bot.name))}


async def my_bots(request: web.Request) -> web.Response:
    service = service_of(request)
    person = await _person(request)
    return json_response({"name": person, "bots": [
        _bot_json(service, bot) for bot in await service.records.owned_bots(person)]})


async def create_bot(request: web.Request) -> web.Response:
    service = service_of(request)
    person = await _changing(request)
    body = await read_json(request, NewBot, service.config.web.max_body)
    try:
        token = await service.records.add_owned_bot(
            person, body.name, max_bots=service.config.accounts.bots_per_person)
    except AccountLimit as error:
        raise ApiError(409, str(error), code="limit-reached", reason_code=error.code,
                       reason_params=error.params) from None
    except ValueError as error:
        if "exists" in str(error):
            raise ApiError(409, str(error), code="name-taken") from None
        raise
    return json_response({"name": body.name, "token": token, "version": 1})


async def rotate_token(request: web.Request) -> web.Response:
    service = service_of(request)
    person = await _changing(request)
    bot = await _owned(request, person)
    try:
        token = await service.records.rotate_token(person, bot.name)
    except ValueError as error:
        raise ApiError(409, str(error), code="revoked") from None
    return json_response({"name": bot.name, "token": token})


async def bot_versions(request: web.Request) -> web.Response:
    service = service_of(request)
    bot = await _owned(request, await _person(request))
    return json_response({"bot": bot.name, "versions": [
        version.to_json() for version in await service.records.bot_versions(bot.name)]})


async def add_version(request: web.Request) -> web.Response:
    service = service_of(request)
    person = await _changing(request)
    bot = await _owned(request, person)
    body = await read_json(request, NewVersion, service.config.web.max_body)
    if len(body.note) > NOTE_LENGTH:
        raise ApiError(400, f"a version's note has at most {NOTE_LENGTH} characters "
                            f"(this one has {len(body.note)})")
    try:
        version = await service.records.add_version(
            person, bot.name, body.note, per_day=service.config.accounts.versions_per_day)
    except AccountLimit as error:
        raise ApiError(409, str(error), code="limit-reached", reason_code=error.code,
                       reason_params=error.params) from None
    except ValueError as error:
        raise ApiError(409, str(error), code="revoked") from None
    return json_response(version.to_json())


async def bot_games(request: web.Request) -> web.Response:
    service = service_of(request)
    bot = await _owned(request, await _person(request))
    listed = service.config.accounts.games_listed
    try:
        limit = max(1, min(listed, int(request.query.get("limit", str(listed)))))
        before = float(request.query["before"]) if "before" in request.query else None
    except ValueError:
        raise ApiError(400, "limit must be an integer and before a number") from None
    rows = await service.records.games(bot=bot.name, limit=limit, before=before)
    played = await service.records.versions_played(bot.name, [row.id for row in rows])
    return json_response({"bot": bot.name, "games": [
        {**row.to_json(), "version": played.get(row.id)} for row in rows]})


async def debug_lines(request: web.Request) -> web.Response:
    service = service_of(request)
    bot = await _owned(request, await _person(request))
    game_id = request.match_info["id"]
    stored = await service.records.game(game_id)
    if stored is None or bot.name not in stored.players:
        raise ApiError(404, f"{bot.name} played no game {game_id[:60]!r}", code="unknown-game")
    seats = [seat for seat, name in enumerate(stored.players) if name == bot.name]
    if stored.log is None:
        return json_response({"game_id": game_id, "bot": bot.name, "seats": seats,
                              "status": stored.status, "lines": []})
    record = await asyncio.to_thread(read_jsonl, stored.log.splitlines())
    return json_response({"game_id": game_id, "bot": bot.name, "seats": seats,
                          "status": stored.status, "lines": [
                              {"turn": note.turn, "seat": note.player, "text": note.text}
                              for note in record.notes if note.player in seats]})


async def bot_challenge(request: web.Request) -> web.Response:
    """A person challenges a named bot with one of their own connected bots; the same
    rules and budgets as the bot's ``challenge`` message (`ArenaService.challenge`)."""
    service = service_of(request)
    person = await _person(request)
    name = request.match_info["bot"]
    if not any(bot.name == name for bot in await service.records.owned_bots(person)):
        raise ApiError(403, f"{name[:60]!r} is not a bot of yours", code="not-your-bot")
    body = await read_json(request, BotChallenge, service.config.web.max_body)
    if not service.connected(name):
        raise ApiError(409, f"your bot {name!r} is not connected: connect it (with its "
                            "token) and challenge again", code="not-connected",
                       params={"reason": "own-bot", "bot": name})
    try:
        opened = await service.challenge(name, body.opponent.strip(), seat=None, ladder=body.ladder,
                                   rated=body.rated)
    except ChallengeError as error:
        raise ApiError(CHALLENGE_STATUS.get(error.code, 400), str(error), code=error.code,
                       **challenge_params(error)) from None
    return json_response(opened)


_TAG = "accounts"
_SIGNED_IN = {401: "not signed in"}
_SESSION = ("session",)
_BOT = Param("bot", "a bot of the signed-in person's", required=True, where="path")

ENDPOINTS = (
    Endpoint("POST", "/api/account/signup", signup, "Sign up (when the server lets people)",
             _TAG, body=SignUp, answers={
                 200: '{"name"}; the session token is set as the HttpOnly cookie '
                      '`arena_session`',
                 400: "a bad name or a password outside the length bounds",
                 403: "sign-up is closed, needs an invite code, or the code is wrong, used "
                      "or expired (or a page of another site sent it)",
                 409: "the name is taken",
                 429: "beyond the sign-ups of the client address or of the server",
                 503: "too many passwords are being hashed: try again shortly"}),
    Endpoint("POST", "/api/account/signin", signin, "Sign in with a name and a password", _TAG,
             body=SignIn, answers={
                 200: '{"name"}; the session cookie `arena_session` is set',
                 401: "wrong name or password",
                 429: "beyond the sign-in attempts of the client address or of the name",
                 503: "too many passwords are being checked: try again shortly"}),
    Endpoint("POST", "/api/account/signout", signout, "Sign out (the session ends)", _TAG,
             answers={200: '{"name": null}; the cookie is deleted'}),
    Endpoint("GET", "/api/account/me", account_me, "Who is signed in, and the accounts' rules", _TAG,
             answers={200: '{"name" (null when nobody is signed in), "signup" (open, invite '
                           'or closed), "operator" (whether they may read /api/operator/...), '
                           '"limits": {"bots", "versions_per_day", "password_min", '
                           '"password_max", "note_length"}, "hosting" (null when the server '
                           'hosts no bots, else {"languages", "upload_bytes", '
                           '"builds_per_day"}: uploads from "My bots")}'}),
    Endpoint("GET", "/api/account/bots", my_bots, "The signed-in person's bots", _TAG,
             security=_SESSION,
             answers={200: '{"name", "bots": [{"name", "created", "revoked", "version", '
                           '"connected", "games_in_flight"}]}', **_SIGNED_IN}),
    Endpoint("POST", "/api/account/bots", create_bot, "Create a bot (its token is shown once)",
             _TAG, body=NewBot, security=_SESSION,
             answers={
                 200: '{"name", "token", "version": 1}: the token is stored hashed and never '
                      'shown again (rotate it for a new one)',
                 400: "a bad name", **_SIGNED_IN,
                 409: "the name is taken, or the person has their most bots",
                 429: "beyond the person's changes a minute"}),
    Endpoint("POST", "/api/account/bots/{bot}/token", rotate_token,
             "A new token for a bot (the old one stops working)", _TAG, params=(_BOT,),
             security=_SESSION,
             answers={200: '{"name", "token"}', **_SIGNED_IN, 404: "no such bot of yours",
                      409: "the bot is revoked", 429: "beyond the person's changes a minute"}),
    Endpoint("GET", "/api/account/bots/{bot}/versions", bot_versions,
             "A bot's versions, with each one's games and rating", _TAG, params=(_BOT,),
             security=_SESSION,
             answers={200: '{"bot", "versions": [{"version", "note", "created", "games", '
                           '"rated_games", "rating" (after its last rated game, or null), "history": '
                           '[[finished, rating after], ...]}]}',
                      **_SIGNED_IN, 404: "no such bot of yours"}),
    Endpoint("POST", "/api/account/bots/{bot}/versions", add_version,
             "Register a bot's next version (its rating's uncertainty widens)", _TAG,
             params=(_BOT,), body=NewVersion, security=_SESSION,
             answers={
                 200: '{"bot", "version", "note", "created", ...}', 400: "a note too long",
                 **_SIGNED_IN, 404: "no such bot of yours",
                 409: "the bot is revoked, or the person registered their versions of the "
                      "day", 429: "beyond the person's changes a minute"}),
    Endpoint("GET", "/api/account/bots/{bot}/games", bot_games,
             "A bot's games, newest first, with the version that played each", _TAG,
             params=(_BOT, Param("limit", "at most this many (up to 100)", "integer"),
                     Param("before", "only games started before this time (seconds since the "
                                     "epoch), for paging")),
             security=_SESSION,
             answers={200: '{"bot", "games": [a game as /api/games lists it, with "version"]}',
                      400: "a bad limit or before", **_SIGNED_IN,
                      404: "no such bot of yours"}),
    Endpoint("POST", "/api/account/bots/{bot}/challenges", bot_challenge,
             "Challenge a named bot with one of your connected bots (two games on a "
             "ladder's settings, seats swapped)", _TAG, params=(_BOT,), body=BotChallenge,
             security=_SESSION, answers={
                 200: '{"challenge_id", "status" (pending, accepted, declined, expired, '
                      'cancelled, failed), "challenger", "opponent", "rated", "reason"?, '
                      '"error_code"?, "error_params"? (failed: why, by code), '
                      '"game_ids"? (accepted: the two games)}; the opponent\'s policy or the '
                      'opponent answers soon: poll GET /api/challenges/{id}',
                 400: "a bad body", **_SIGNED_IN,
                 403: "not a bot of yours (or a page of another site)",
                 404: "no ladder of the name given (code unknown-ladder)",
                 409: "your bot is not connected (code not-connected), or the challenge is "
                      "refused (code bad-challenge: the opponent is not connected or busy, "
                      "rated on an unrated ladder, rated between two bots of yours, the "
                      "pair's cap is spent...)",
                 429: "over the bot's challenge budget (code challenge-limit)"}),
    Endpoint("GET", "/api/account/bots/{bot}/games/{id}/debug", debug_lines,
             "The debug lines a bot logged in one of its games", _TAG,
             params=(_BOT, Param("id", "the game", required=True, where="path")),
             security=_SESSION,
             answers={200: '{"game_id", "bot", "seats", "status", "lines": [{"turn", "seat", '
                           '"text"}]} (no lines while the game runs, nor once they expired)',
                      **_SIGNED_IN, 404: "no such bot of yours, or a game it did not play"}),
)
