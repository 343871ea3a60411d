"""The web interface's messages in each language: one catalogue for the pages and for the
texts the server gives players (game and bot descriptions, result explanations, the errors
a page shows), as `GET /api/web/messages` serves it (docs/web.md, "Languages").

The catalogue is JSON: the interface's own (``arena/web/i18n/LANG.json``) and each game's,
shipped by its plugin beside its renderer (``i18n/LANG.json`` next to ``web.js``). A key
is the English text itself, as gettext does: the English files map each text to itself,
another language's to its translation, and a text a catalogue lacks is shown in English
(a third-party game without Russian stays English). A value may be an object of plural
forms (``one``, ``few``, ``many``, ``other``; CLDR's, as `Intl.PluralRules` names them).
The bots' wire protocol stays English: it is a contract for bot authors. The reading
of the catalogue is `arena.speech`'s, which the command line says its errors with too.
"""

from __future__ import annotations

from typing import Any

from arena.registry import Registry
from arena.speech import DEFAULT, HERE, LANGUAGES, read_catalogue

__all__ = ["DEFAULT", "LANGUAGES", "catalogue", "negotiate"]


def negotiate(accept_language: str | None) -> str:
    """The first language of an ``Accept-Language`` header that the interface speaks
    (by quality, then order; ``ru-RU`` is ``ru``), else English."""
    wanted: list[tuple[float, int, str]] = []
    for order, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and quality > 0:
            wanted.append((-quality, order, code))
    return min(wanted)[2] if wanted else DEFAULT


def catalogue(registry: Registry, lang: str) -> dict[str, Any]:
    """What a page needs to speak `lang`: the interface's messages and each game's (those
    of games whose renderer has an ``i18n`` folder beside it)."""
    if lang not in LANGUAGES:
        lang = DEFAULT
    games: dict[str, dict[str, Any]] = {}
    for name in sorted(registry.games):
        renderer = registry.game_class(name).web_renderer()
        if renderer is not None and (renderer.parent / "i18n").is_dir():
            games[name] = read_catalogue(renderer.parent / "i18n", lang)
    return {"lang": lang, "languages": LANGUAGES, "messages": read_catalogue(HERE, lang), "games": games}
