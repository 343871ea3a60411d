"""The web app's own files name no game: what is a game's (its board, its settings
form, its own pages such as the substitution game's grammar editor) comes from the
renderer module the game's plugin ships (docs/web.md, "Game renderers")."""

from __future__ import annotations

import re
from pathlib import Path

import arena.web
from arena.registry import default_registry

STATIC = Path(arena.web.__file__).resolve().parent / "static"
APP_FILES = ("index.html", "app.js", "ui.js")


def mentions(text: str, registry_games: list[str], endpoints: list[str]) -> list[str]:
    found = [name for name in registry_games
             if re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE)]
    return found + [path for path in endpoints if path in text]


def test_the_app_files_name_no_game_and_no_game_endpoint() -> None:
    registry = default_registry()
    games = sorted(registry.games)
    endpoints = sorted({e.path for e in registry.web_endpoints()})
    assert "substitution" in games and "/api/grammars" in endpoints
    # the check can fail: the substitution game's renderer names both
    renderer = (STATIC.parents[1] / "games" / "substitution" / "web.js").read_text(encoding="utf-8")
    assert mentions(renderer, games, endpoints)
    for name in APP_FILES:
        text = (STATIC / name).read_text(encoding="utf-8")
        assert mentions(text, games, endpoints) == [], name

