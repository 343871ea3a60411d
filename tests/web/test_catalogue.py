"""The web interface's message catalogue (issue 28): English and Russian have the same
texts, every text the pages ask for is in it, plural forms are well formed, the language
follows Accept-Language (or `lang`), and a plugin game without Russian stays English."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import arena.web
from arena.registry import BUILTIN_PLUGINS, Registry, default_registry
from arena.web.catalogue import LANGUAGES, catalogue, negotiate
from tests.server.conftest import Arena

from .catalogue_keys import keys_in, keys_of
from .test_api import _get

STATIC = Path(arena.web.__file__).parent / "static"
APP = Path(arena.web.__file__).parent / "i18n"
GAMES = Path(arena.web.__file__).parents[1] / "games"
FOLDERS = [APP, *sorted(p.parent for p in GAMES.glob("*/i18n/en.json"))]
PLURALS = {"en": {"one", "other"}, "ru": {"one", "few", "many", "other"}}


def _read(folder: Path, lang: str) -> dict[str, Any]:
    return dict(json.loads((folder / f"{lang}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.parent.name)
def test_english_and_russian_have_the_same_texts(folder: Path) -> None:
    english, russian = _read(folder, "en"), _read(folder, "ru")
    assert sorted(english) == sorted(russian)
    for key, value in english.items():  # English keys its own texts
        assert value == key or (isinstance(value, dict) and value["other"] == key), key
    for lang, table in (("en", english), ("ru", russian)):
        for key, value in table.items():
            if isinstance(value, dict):  # plural forms: CLDR's, all of them
                assert set(value) == PLURALS[lang], (lang, key)
            said = {p for v in ([value] if isinstance(value, str) else value.values())
                    for p in re.findall(r"\{(\w+)\}", v)}
            assert said <= set(re.findall(r"\{(\w+)\}", key)), (lang, key)  # no name made up


def test_every_text_the_pages_ask_for_is_in_the_catalogue() -> None:
    app = set(_read(APP, "en"))
    used = set().union(*(keys_of(path) for path in STATIC.glob("*.js")))
    assert keys_of(STATIC / "accounts.js") <= used
    assert used - app == set()
    for path in sorted(GAMES.glob("*/web.js")):
        own = set(_read(path.parent / "i18n", "en"))
        assert keys_of(path) - own - app == set(), path.parent.name
    # the check can fail: a text the catalogue lacks
    assert keys_in('t("A text nobody translated")') - app == {"A text nobody translated"}


def test_each_games_titles_and_bots_are_in_its_catalogue() -> None:
    registry = default_registry()
    for name in sorted(registry.games):
        own = set(_read(GAMES / name / "i18n", "en"))
        kind = registry.game_class(name).type
        wanted = {kind.title, kind.description}
        for factory in registry.bot_factories(name):
            wanted |= {factory.description, *(p.doc for p in factory.params)}
        assert wanted - own == set(), name


def test_the_language_follows_accept_language() -> None:
    assert negotiate("ru-RU,ru;q=0.9,en;q=0.8") == "ru"
    assert negotiate("en-GB,en;q=0.9,ru;q=0.8") == "en"
    assert negotiate("fr-FR,de;q=0.9") == "en"  # none spoken: English
    assert negotiate("fr, ru;q=0.5") == "ru"
    assert negotiate("ru;q=0, en;q=0.1") == "en"
    assert negotiate(None) == "en" and negotiate("garbage;;q=x") == "en"
    assert set(LANGUAGES) == {"en", "ru"}


def test_a_plugin_game_without_russian_stays_english() -> None:
    registry = Registry((*BUILTIN_PLUGINS, "tests.third_party_plugin"), entry_points=False)
    russian = catalogue(registry, "ru")
    assert "third-sim" not in russian["games"]  # no catalogue: the page shows its texts as written
    assert russian["games"]["sim"]["Sim"] == "Сим"
    assert russian["messages"]["Lobby"] == "Лобби"
    assert catalogue(registry, "xx")["lang"] == "en"


async def test_the_catalogue_endpoint(arena: Arena) -> None:
    import asyncio
    import urllib.error
    import urllib.request

    def fetch(path: str, headers: dict[str, str]) -> tuple[int, Any, str]:
        request = urllib.request.Request(f"http://127.0.0.1:{arena.server.port}{path}", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read()), answer.headers.get("Vary", "")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read()), ""

    status, russian, vary = await asyncio.to_thread(fetch, "/api/web/messages", {"Accept-Language": "ru-RU,ru;q=0.9"})
    assert status == 200 and russian["lang"] == "ru" and "Accept-Language" in vary
    assert russian["messages"]["Play against a bot"] == "Игра против бота"
    assert russian["games"]["substitution"]["search"] == "Переборная стратегия"  # the thesis's name
    status, english, _ = await asyncio.to_thread(fetch, "/api/web/messages?lang=en", {"Accept-Language": "ru"})
    assert status == 200 and english["lang"] == "en" and "Lobby" not in english["messages"]
    assert english["messages"]["{n} bots"] == {"one": "{n} bot", "other": "{n} bots"}  # only plurals
    assert all(isinstance(said, dict) for said in english["messages"].values())
    status, error = (await asyncio.to_thread(fetch, "/api/web/messages?lang=de", {}))[:2]
    assert status == 400 and "de" in error["message"]
    status, _, _ = await asyncio.to_thread(_get, arena.server.port, "/api/web/messages")
    assert status == 200
