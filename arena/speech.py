"""The arena's words in a person's language: the message catalogue the pages and the
server's player-facing texts share (`arena.web.catalogue` serves it to the pages), and
what the command line says with it (issue 28; docs/web.md, "Languages").

The catalogue is JSON, keyed by the English text (gettext's way): the interface's own
(``arena/web/i18n/LANG.json``) and each game's beside its renderer (``i18n/LANG.json``
next to ``web.js``). An error with a code (`arena.errors.ArenaError.code`) is said by
that code's English text, from the tables a page says it from: ``ui.js``'s ``ERRORS``
and ``REASONS``, and the ``settingsReasons`` of the game its params name (``game``);
then the catalogue gives the text in the language. The command line's language is its
``--lang`` or, as gettext does, the environment's (`environment_language`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from arena.errors import ArenaError, LogFormatError


class Games(Protocol):
    """What `command_speech` reads of a registry (`arena.registry.Registry`): its games
    (named here, not imported: the games' own commands use this module)."""

    @property
    def games(self) -> Mapping[str, Any]: ...

    def game_class(self, name: str) -> Any: ...

__all__ = ["CONTEXT_KEY", "DEFAULT", "LANGUAGES", "Speech", "command_speech", "environment_language",
           "js_table", "read_catalogue", "rejection_key"]

HERE = Path(__file__).parent / "web" / "i18n"
UI = Path(__file__).parent / "web" / "static" / "ui.js"
LANGUAGES = {"en": "English", "ru": "Русский"}
"""The languages of the interface, by their codes, named in their own language."""
DEFAULT = "en"
CONTEXT_KEY = "arena.lang"
"""The key of the command line's language in click's ``Context.meta`` (``arena --lang``)."""


@lru_cache(maxsize=64)
def _read(path: Path) -> dict[str, Any]:
    """One catalogue file (read once; absent: empty)."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TypeError(f"{path}: a catalogue is a JSON object of texts")
    return data


def read_catalogue(folder: Path, lang: str) -> dict[str, Any]:
    """`lang`'s translations in `folder`, English's plural forms under them; a text that
    reads as its key is left out (a text a catalogue lacks is said as written)."""
    merged = {**_read(folder / f"{DEFAULT}.json"), **_read(folder / f"{lang}.json")}
    return {text: said for text, said in merged.items() if said != text}


def environment_language(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for, as gettext reads it: the first of
    ``LANGUAGE`` (a colon-separated list), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that
    is set (``ru_RU.UTF-8`` is ``ru``); English for one the arena does not speak, and
    for the C locale (where gettext ignores ``LANGUAGE``)."""
    environ = os.environ if environ is None else environ
    locale = next((environ[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG")
                   if environ.get(name)), "")
    if locale in ("", "C", "POSIX") or locale.startswith("C."):
        return DEFAULT
    for tag in [*environ.get("LANGUAGE", "").split(":"), locale]:
        code = re.split(r"[_.@-]", tag.strip(), maxsplit=1)[0].lower()
        if code in LANGUAGES:
            return code
    return DEFAULT


@lru_cache(maxsize=32)
def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def js_table(source: str, start: str) -> dict[str, str]:
    """The object of code: text that begins with `start` in a JavaScript `source` (each
    text plain or in ``N_(...)``, one a line, as ``ui.js`` and the renderers write them);
    empty if `source` has none."""
    if start not in source:
        return {}
    block = source[source.index(start):]
    block = block[:block.index("\n};")]
    return {key.strip('"'): json.loads(f'"{text}"') for key, text in re.findall(
        r'^\s+("[^"]+"|[a-z-]+): (?:N_\()?"((?:[^"\\]|\\.)*)"', block, re.MULTILINE)}


def rejection_key(code: str, chance: str, own: Mapping[str, str],
                  shared: Mapping[str, str]) -> str | None:
    """``ui.js``'s ``rejectionKey``: the entry of the game's `own` rejections or of the
    `shared` ones (``REJECTIONS``) that says the referee's `code`; a code named after the
    game's `chance` event or a fact its log records reads as its kind; None for a code
    neither knows."""
    if code in own or code in shared:
        return code
    for kind in ("bad-", "missing-", "unexpected-"):
        if code == kind + chance:
            return f"{kind}chance"
    if code == f"{chance}-mismatch":
        return "chance-mismatch"
    if code.startswith("missing-"):
        return "missing-fact"
    return "fact-mismatch" if code.endswith("-mismatch") else None


def _plural_ru(count: float) -> str:
    if count != int(count):
        return "other"
    n = abs(int(count))
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


class Speech:
    """Texts in one language (`lang`) for the command line; `renderers` maps a game's
    name to its renderer (`arena.game.Game.web_renderer`), beside which its catalogue
    and its reasons are."""

    def __init__(self, lang: str, renderers: Mapping[str, Path | None] | None = None) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT
        self.renderers = dict(renderers or {})
        self.messages = read_catalogue(HERE, self.lang)

    def _choose(self, said: Any, params: Mapping[str, Any]) -> str:
        if not isinstance(said, dict):
            return str(said)
        try:
            count = float(params.get("count", 0))
        except (TypeError, ValueError):
            count = 0
        form = _plural_ru(count) if self.lang == "ru" else ("one" if count == 1 else "other")
        return str(said.get(form, said.get("other", "")))

    def text(self, english: str, params: Mapping[str, Any] | None = None,
             game: str | None = None) -> str:
        """`english` (a catalogue's key) in the language, its ``{names}`` filled in from
        `params`; a game's own catalogue first."""
        params = params or {}
        own = self._game_catalogue(game) if game else {}
        said = own.get(english, self.messages.get(english, english))
        return re.sub(r"\{(\w+)\}", lambda m: str(params.get(m[1], m[0])),
                      self._choose(said, params))

    def _game_catalogue(self, game: str) -> dict[str, Any]:
        renderer = self.renderers.get(game)
        return {} if renderer is None else read_catalogue(renderer.parent / "i18n", self.lang)

    def _renderer_source(self, game: str) -> str:
        """The source of `game`'s renderer (empty for a game without one)."""
        renderer = self.renderers.get(game)
        return _source(renderer) if renderer is not None else ""

    def _game_reasons(self, game: str) -> dict[str, str]:
        source = self._renderer_source(game)
        reasons = js_table(source, "export const settingsReasons = {")
        if "...grammarReasons" in source:
            reasons = {**js_table(source, "const grammarReasons = {"), **reasons}
        return reasons

    def defect(self, defect: Any, game: str, chance: str) -> str:
        """The referee's verdict on a log (an `arena.replay.Defect` of the game `game`,
        whose chance event is `chance`) in the language: where, its code (for scripts),
        and the code's text as a page says it; its English for a code no table knows."""
        own = js_table(self._renderer_source(game), "export const rejections = {")
        shared = js_table(_source(UI), "const REJECTIONS = {")
        key = rejection_key(defect.code, chance, own, shared)
        if self.lang == DEFAULT or key is None:
            return str(defect)
        where = [self.text("turn {n}", {"n": defect.turn}) if defect.turn is not None else "",
                 self.text("player {n}", {"n": defect.player}) if defect.player is not None else ""]
        lead = ", ".join(part for part in where if part)
        said = self.text(own[key], game=game) if key in own else self.text(shared[key])
        return f"{lead}: {defect.code}: {said}" if lead else f"{defect.code}: {said}"

    def error(self, error: BaseException, game: str | None = None) -> str:
        """What `error` says, in the language when its code has a text (a game's reason
        led by why and the line), else its English. `game`: the game whose reasons say
        it when its params name none (a grammar's reason, read by the game's command)."""
        code = getattr(error, "code", None)
        if self.lang == DEFAULT or not isinstance(error, ArenaError) or not code:
            return str(error)
        params: dict[str, Any] = dict(error.params)
        game = params.get("game", game)
        own = self._game_reasons(game) if isinstance(game, str) else {}
        source = _source(UI)
        if code in own:
            errors = js_table(source, "const ERRORS = {")
            lead = errors["bad-log" if isinstance(error, LogFormatError) else "bad-settings"]
            line = getattr(error, "line", 0) or params.get("line", 0)
            where = self.text("line {n}: ", {"n": line}) if line else ""
            return self.text(lead) + where + self.text(own[code], params, game)
        reasons = js_table(source, "const REASONS = {")
        if code in reasons:
            if isinstance(game, str):
                for key in ("title", "doc"):
                    if isinstance(params.get(key), str):
                        params[key] = self.text(params[key], game=game)
            return self.text(reasons[code], params)
        return str(error)


def command_speech(registry: Games) -> Speech:
    """The running command's `Speech`, with `registry`'s games: its language is
    ``arena --lang``'s (kept in click's context), else the environment's."""
    import click

    context = click.get_current_context(silent=True)
    lang = context.meta.get(CONTEXT_KEY) if context is not None else None
    return Speech(lang or environment_language(),
                  {name: registry.game_class(name).web_renderer() for name in registry.games})
