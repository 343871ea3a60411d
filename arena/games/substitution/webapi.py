"""The substitution game's web endpoints: check a grammar text, save one as a preset.

Served through the plugin hook `arena.web.hookspecs.arena_web_endpoints` (the web layer
names no game); the presets are the game's in the server's storage
(`Storage.presets`). An adapter to the web layer: the rules never import it.

Anybody may save or delete presets (they are the lobby's shared list), so both have
budgets (`WebConfig`): presets saved in all, and saves and deletions per client address
a minute (`arena.web.http.check_preset_change`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec
from aiohttp import web

from arena.errors import ArenaError, GrammarError
from arena.games.substitution.grammar import Grammar
from arena.games.substitution.settings import Settings
from arena.games.substitution.webplay import builtin_presets
from arena.web.http import ApiError, check_preset_change, json_response, read_json
from arena.web.routes import Endpoint, service_of

if TYPE_CHECKING:
    from arena.service import ArenaService

__all__ = ["ENDPOINTS"]

GAME = "substitution"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
MAX_GRAMMAR = 16 * 1024
"""Characters of a grammar text."""


class GrammarText(msgspec.Struct, forbid_unknown_fields=True):
    """A grammar in the text format (``A->aA|B`` per line, optional ``weights:`` line)."""

    text: str


class NamedGrammar(msgspec.Struct, forbid_unknown_fields=True):
    """A grammar preset to save: a name (1-40 letters, digits, ``_ . -``) and its text;
    a saved preset of that name is replaced only with `overwrite`."""

    name: str
    text: str
    overwrite: bool = False


class GrammarName(msgspec.Struct, forbid_unknown_fields=True):
    """A saved grammar preset."""

    name: str


def _check(service: ArenaService, text: str) -> dict[str, Any]:
    if len(text) > MAX_GRAMMAR:
        return {"ok": False, "line": 0, "reason": f"longer than {MAX_GRAMMAR} characters",
                "message": f"a grammar text is at most {MAX_GRAMMAR} characters",
                "reason_code": "text-too-long", "reason_params": {"most": MAX_GRAMMAR}}
    try:
        grammar = Grammar.from_text(text)
        service.registry.load_game(GAME, Settings(grammar, 1).to_json())
    except GrammarError as error:
        return {"ok": False, "line": error.line, "reason": error.reason, "message": str(error),
                "reason_code": error.code, "reason_params": error.params}
    except ArenaError as error:  # the game's own limits: said in English only
        return {"ok": False, "line": 0, "reason": str(error), "message": str(error),
                "reason_code": None, "reason_params": {}}
    warnings = grammar.coded_warnings()
    return {"ok": True, "groups": [str(g) for g in grammar.groups],
            "weights": list(grammar.weights), "warnings": [w.text for w in warnings],
            "warning_codes": [w.code for w in warnings]}


async def check_grammar(request: web.Request) -> web.Response:
    service = service_of(request)
    body = await read_json(request, GrammarText, service.config.web.max_body)
    return json_response(_check(service, body.text))


async def save_grammar(request: web.Request) -> web.Response:
    service = service_of(request)
    body = await read_json(request, NamedGrammar, service.config.web.max_body)
    name = body.name.strip()
    if not _NAME.fullmatch(name):
        raise ApiError(400, "a preset name is 1-40 letters, digits, '_', '.', '-'",
                       reason_code="preset-name", reason_params={})
    if name in {p["name"] for p in builtin_presets()}:
        raise ApiError(400, f"{name!r} is a built-in preset", reason_code="preset-builtin",
                       reason_params={"name": name})
    check = _check(service, body.text)
    if not check["ok"]:
        raise ApiError(400, check["message"], code="bad-grammar", line=check["line"],
                       reason=check["reason"], reason_code=check["reason_code"],
                       reason_params=check["reason_params"])
    storage = service.records
    await check_preset_change(request)
    exists = await storage.preset(GAME, name) is not None
    if exists and not body.overwrite:
        raise ApiError(409, f"a preset {name!r} is saved already; send overwrite: true to "
                            "replace it", code="exists")
    most = service.config.web.presets
    if not exists and await storage.preset_count() >= most:
        raise ApiError(409, f"{most} presets are saved, the most this server keeps: delete "
                            "one first", code="full", reason_code="presets-full",
                       reason_params={"most": most})
    await storage.save_preset(GAME, name, body.text)
    return json_response({"saved": name})


async def delete_grammar(request: web.Request) -> web.Response:
    service = service_of(request)
    body = await read_json(request, GrammarName, service.config.web.max_body)
    if body.name in {p["name"] for p in builtin_presets()}:
        raise ApiError(400, f"{body.name!r} is a built-in preset; only saved ones are deleted",
                       reason_code="preset-builtin", reason_params={"name": body.name[:60]})
    await check_preset_change(request)
    if not await service.records.delete_preset(GAME, body.name):
        raise ApiError(404, f"no saved preset {body.name!r}", code="unknown-grammar",
                       reason_code="preset-missing", reason_params={"name": body.name[:60]})
    return json_response({"deleted": body.name})


ENDPOINTS = (
    Endpoint("POST", "/api/grammars/check", check_grammar, "Check a grammar text", "grammars",
             body=GrammarText, answers={
                 200: '{"ok": true, "groups", "weights", "warnings" (a grammar that plays but '
                      'where no word can be finished, or no group starts from S), '
                      '"warning_codes" (each warning\'s code: no-start-group, never-finished)} '
                      'or {"ok": false, "line", "reason", "message", "reason_code" (the '
                      'reason\'s code, null for one said in English only), "reason_params" '
                      '(the values its text names)}',
                 400: "not a JSON object with a text"}),
    Endpoint("POST", "/api/grammars", save_grammar, "Save a grammar preset (checked first)",
             "grammars", body=NamedGrammar, answers={
                 200: '{"saved": name}; the lobby offers it from then on',
                 400: "a bad grammar (with line, reason, reason_code and reason_params), "
                      "a bad or built-in name",
                 403: "sent by a page of another site",
                 409: "a saved preset of that name exists and overwrite is not set, or the "
                      "server keeps as many presets as it may",
                 429: "too many presets saved or deleted from the client's address"}),
    Endpoint("POST", "/api/grammars/delete", delete_grammar, "Delete a saved grammar preset",
             "grammars", body=GrammarName, answers={
                 200: '{"deleted": name}', 400: "a built-in preset",
                 403: "sent by a page of another site", 404: "no saved preset of that name",
                 429: "too many presets saved or deleted from the client's address"}),
)
