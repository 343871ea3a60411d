"""A person challenges a named bot from the web.

The challenger is the browser's guest account (its cookie, as for ``POST /api/play``),
connected over the WebSocket so that it can play: ``POST /api/challenges`` opens an
unrated challenge through the service (`arena.service.ArenaService.challenge`), the
same challenges the bots make (the same budgets, the bot's own accept policy), for one game on the ladder's settings
in the seat the person chose; ``GET /api/challenges/{id}`` says where it stands
(pending, accepted with its game's id, declined...). A signed-in person challenges with
one of their own bots, rated or not, through ``POST /api/account/bots/{bot}/challenges``
(`arena.web.endpoints.accounts`); its status is read here too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from aiohttp import web

from arena.service import ChallengeError
from arena.web.endpoints.play import guest_ready_to_play
from arena.web.http import ApiError, json_response, read_json
from arena.web.routes import Endpoint, Param, service_of

__all__ = ["CHALLENGE_STATUS", "ENDPOINTS", "challenge_params"]


class ChallengeRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A challenge from the browser's guest to a connected bot."""

    bot: str
    """The bot challenged (an account's name)."""
    seat: Literal[0, 1] = 0
    """The guest's seat in the one game played (0 moves first)."""
    ladder: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    """The ladder whose settings the game plays (``GET /api/ladders``); None: the
    server's first ladder."""


CHALLENGE_STATUS = {"bad-challenge": 409, "challenge-limit": 429, "unknown-ladder": 404}
"""The HTTP status of each `ChallengeError` code (400 for the others)."""


def challenge_params(error: ChallengeError) -> dict[str, Any]:
    """The refusal's optional ``params`` field (its ``reason`` and the names and numbers
    it mentions), so that a page says it in its own language (docs/web.md, "Languages");
    none when the refusal has none."""
    return {"params": dict(error.params)} if error.params else {}


async def challenge(request: web.Request) -> web.Response:
    service = service_of(request)
    body = await read_json(request, ChallengeRequest, service.config.web.max_body)
    player = await guest_ready_to_play(request)
    try:
        opened = await service.challenge(player, body.bot.strip(), seat=body.seat,
                                   ladder=body.ladder)
    except ChallengeError as error:
        raise ApiError(CHALLENGE_STATUS.get(error.code, 400), str(error), code=error.code,
                       **challenge_params(error)) from None
    return json_response(opened)


async def challenge_status(request: web.Request) -> web.Response:
    challenge_id = request.match_info["id"]
    found = await service_of(request).challenge_status(challenge_id)
    if found is None:
        raise ApiError(404, f"no challenge {challenge_id!r}", code="unknown-challenge")
    return json_response(found)


_FIELDS = ('{"challenge_id", "status" (pending, accepted, declined, expired, cancelled, '
           'failed), "challenger", "opponent", "rated", "reason"?, "error_code"?, '
           '"error_params"? (failed: why, by code), "game_ids"? '
           '(accepted: the guest\'s one game, or the two games of a person\'s bot)}')

ENDPOINTS = (
    Endpoint("POST", "/api/challenges", challenge,
             "Challenge a connected bot to a game on the ladder's settings (the browser's "
             "guest plays it)", "ladder", body=ChallengeRequest, answers={
                 200: _FIELDS + "; the bot's policy or the bot answers soon: poll "
                                "GET /api/challenges/{id}",
                 400: "a bad body",
                 403: "no guest cookie (or a page of another site)",
                 404: "no ladder of the name given (code unknown-ladder)",
                 409: "the guest's WebSocket is not connected, it plays 2 games already, or "
                      "the bot cannot be challenged now (code bad-challenge: not connected, "
                      "busy, no ladder...)",
                 429: "over the challenge budget (code challenge-limit)"}),
    Endpoint("GET", "/api/challenges/{id}", challenge_status, "Where a challenge stands",
             "ladder", params=(Param("id", "the challenge id", required=True, where="path"),),
             answers={200: _FIELDS, 404: "no such challenge (or one long over)"}),
)
