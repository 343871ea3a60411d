"""A person challenges a named bot from the web.

The challenger is the browser's guest account (its cookie, as for ``POST /api/play``),
connected over the WebSocket so that it can play: ``POST /api/challenges`` opens an
unrated challenge through the service (`arena.service.ArenaService.challenge`), the
same challenges the bots make (the same budgets, the bot's own accept policy), for one game on the ladder's settings
in the seat the person chose; ``GET /api/challenges/{id}`` says where it stands
(pending, accepted with its game's id, declined...). People's own accounts, and so
rated challenges from the web, come with the accounts (issue 25).
"""

from __future__ import annotations

from typing import Literal

import msgspec
from aiohttp import web

from arena.service import ChallengeError
from arena.web.endpoints.play import GUEST_GAMES, guest_name
from arena.web.http import ApiError, json_response, read_json
from arena.web.routes import Endpoint, Param, service_of

__all__ = ["ENDPOINTS"]


class ChallengeRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A challenge from the browser's guest to a connected bot."""

    bot: str
    """The bot challenged (an account's name)."""
    seat: Literal[0, 1] = 0
    """The guest's seat in the one game played (0 moves first)."""


_STATUS = {"bad-challenge": 409, "challenge-limit": 429}


async def challenge(request: web.Request) -> web.Response:
    service = service_of(request)
    body = await read_json(request, ChallengeRequest, service.config.web.max_body)
    player = await guest_name(request)
    if player is None:
        raise ApiError(403, "no guest account: POST /api/guest first (it sets the cookie)",
                       code="not-a-guest")
    if not service.connected(player):
        raise ApiError(409, f"{player} is not connected: open the WebSocket first",
                       code="not-connected")
    if len(service.live_games_of(player)) >= GUEST_GAMES:
        raise ApiError(409, f"a guest plays at most {GUEST_GAMES} games at once",
                       code="too-many-games")
    try:
        opened = service.challenge(player, body.bot.strip(), seat=body.seat)
    except ChallengeError as error:
        raise ApiError(_STATUS.get(error.code, 400), str(error), code=error.code) from None
    return json_response(opened)


async def challenge_status(request: web.Request) -> web.Response:
    challenge_id = request.match_info["id"]
    found = service_of(request).challenge_status(challenge_id)
    if found is None:
        raise ApiError(404, f"no challenge {challenge_id!r}", code="unknown-challenge")
    return json_response(found)


_FIELDS = ('{"challenge_id", "status" (pending, accepted, declined, expired, cancelled, '
           'failed), "challenger", "opponent", "rated" (false), "reason"?, "game_ids"? '
           '(accepted: the one game)}')

ENDPOINTS = (
    Endpoint("POST", "/api/challenges", challenge,
             "Challenge a connected bot to a game on the ladder's settings (the browser's "
             "guest plays it)", "ladder", body=ChallengeRequest, answers={
                 200: _FIELDS + "; the bot's policy or the bot answers soon: poll "
                                "GET /api/challenges/{id}",
                 400: "a bad body",
                 403: "no guest cookie (or a page of another site)",
                 409: "the guest's WebSocket is not connected, it plays 2 games already, or "
                      "the bot cannot be challenged now (code bad-challenge: not connected, "
                      "busy, no ladder...)",
                 429: "over the challenge budget (code challenge-limit)"}),
    Endpoint("GET", "/api/challenges/{id}", challenge_status, "Where a challenge stands",
             "ladder", params=(Param("id", "the challenge id", required=True, where="path"),),
             answers={200: _FIELDS, 404: "no such challenge (or one long over)"}),
)
