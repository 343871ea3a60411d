"""The OpenAPI document and the router cannot drift: checked both ways, and validated."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from openapi_spec_validator import validate

from arena.web import STATIC
from tests.server.conftest import Arena
from tests.web.test_api import get

ROOT = Path(__file__).resolve().parents[2]


async def test_the_document_is_valid_openapi_3(arena: Arena) -> None:
    status, document = await get(arena, "/api/openapi.json")
    assert status == 200 and document["openapi"].startswith("3.")
    validate(document)


def _routed(arena: Arena) -> set[tuple[str, str]]:
    assert arena.web is not None
    return {(route.method, route.resource.canonical)  # type: ignore[union-attr]
            for route in arena.web.app.router.routes() if route.method != "HEAD"}


async def test_every_route_is_documented_and_every_documented_path_routed(arena: Arena) -> None:
    _status, document = await get(arena, "/api/openapi.json")
    documented = {(method.upper(), path) for path, item in document["paths"].items()
                  for method in item}
    routed = _routed(arena)
    assert routed == documented
    assert len(routed) >= 20


async def test_every_endpoint_the_pages_call_is_documented(arena: Arena) -> None:
    _status, document = await get(arena, "/api/openapi.json")
    paths = [re.sub(r"\{\w+\}", "[^/]+", path) for path in document["paths"]]
    scripts = [*sorted(STATIC.glob("*.js")), *sorted((ROOT / "arena" / "games").glob("*/web.js"))]
    called = {match for script in scripts
              for match in re.findall(r'["`](/api/[A-Za-z0-9_/.${}-]*)', script.read_text())}
    assert {"/api/guest", "/api/play", "/api/legal", "/api/replay", "/api/grammars",
            "/api/grammars/check", "/api/web/options", "/api/me", "/api/moves",
            "/api/settings/check", "/api/match", "/api/tournaments/run",
            "/api/tournaments/progress", "/api/tournament/cell", "/api/grammars/delete",
            "/api/log"} <= called
    for path in called:
        concrete = re.sub(r"\$\{[^}]*\}", "x", path)
        assert any(re.fullmatch(p, concrete) for p in paths), path


async def test_errors_name_a_stable_code_and_say_what_is_wrong(arena: Arena) -> None:
    cases: list[tuple[str, dict[str, Any], int, str]] = [
        ("/api/nothing", {}, 404, "not-found"),
        ("/api/games", {"limit": "many"}, 400, "bad-request"),
        ("/api/games", {"status": "lost"}, 400, "bad-request"),
        ("/api/games/nope", {}, 404, "unknown-game"),
        ("/api/guest", {}, 405, "method-not-allowed"),
        ("/api/legal", {}, 400, "bad-request"),
        ("/api/replay", {}, 400, "bad-request"),
        ("/static/../README.md", {}, 404, "not-found"),
        ("/static/games/chess.js", {}, 404, "not-found"),
    ]
    for path, params, status, code in cases:
        got, error = await get(arena, path, **params)
        assert (got, error["code"]) == (status, code), (path, error)
        assert error["message"] and set(error) >= {"code", "message"}
