"""Every error the HTTP API gives has a text in the page's language (issue 28): each
`ApiError` code raised in arena/web, each challenge refusal's code and `reason`, and each
tournament run's refusal is in `ui.js`'s ERRORS with its text in English and Russian, or
is listed in NOT_SHOWN with the reason no person at a page reads it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

from arena.speech import js_table as _table  # a JavaScript object of code: text
from arena.speech import rejection_key  # ui.js's rejectionKey
from arena.web.http import CODES

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "arena" / "web"

NOT_SHOWN = {
    "cross-site": "refuses a request from another site's page; this server's pages are same-site",
    "misdirected-request": "refuses a Host the server does not serve; the page uses its own",
    "compressed-body": "the page never compresses a request body",
    "unsupported-media-type": "the page sends JSON (or the upload form) as the endpoint asks",
    "not-found": "a static file or renderer the page does not ask for unless it exists",
    "bad-policy": "a bot's challenge policy: set over the WebSocket by bots, never by a page",
}
"""Codes the API gives that no page shows a person, with why."""

DYNAMIC = {
    "answer.code": "the replay job's codes, bad-log and replay-limit (arena/web/replay.py), both in ERRORS",
    "rejection.code": "a game's referee's own codes (/api/legal with a move): the page leads with "
                      "'the legal moves could not be loaded' and says the code's text of REJECTIONS "
                      "or the game's rejections (test_every_rejection_any_game_gives_...)",
    "partial.code": "as rejection.code, for a move built in steps",
    "error.code": "ChallengeError and RunRefused codes: collected from their raises below",
    "error.status": "aiohttp's own HTTP errors: the default code of their status",
}
"""Codes an `ApiError` takes from another object, and where the test finds them."""


def _calls(folder: Path, name: str) -> list[tuple[Path, ast.Call]]:
    found = []
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
                found.append((path, node))
    return found


def api_codes() -> dict[str, str]:
    """Each code an ApiError raised in arena/web gives, with where (a dynamic one's
    expression must be one DYNAMIC explains)."""
    codes: dict[str, str] = {}
    for path, call in _calls(WEB, "ApiError"):
        where = f"{path.relative_to(ROOT)}:{call.lineno}"
        given = {keyword.arg: keyword.value for keyword in call.keywords}.get("code")
        if isinstance(given, ast.Constant):
            codes[given.value] = where
        elif given is not None:
            assert ast.unparse(given) in DYNAMIC, where
        elif isinstance(call.args[0], ast.Constant):
            codes[CODES.get(call.args[0].value, "error")] = where
        else:
            assert ast.unparse(call.args[0]) in DYNAMIC, where
    return codes


def refusal_codes() -> dict[str, str]:
    """The codes of challenge refusals (``code`` and ``code/reason``) and of tournament runs'."""
    codes: dict[str, str] = {}
    for path, call in _calls(ROOT / "arena", "ChallengeError"):
        where = f"{path.relative_to(ROOT)}:{call.lineno}"
        code = call.args[0]
        assert isinstance(code, ast.Constant), where
        codes[code.value] = where
        reason = {keyword.arg: keyword.value for keyword in call.keywords}.get("reason")
        if isinstance(reason, ast.Constant):
            codes[f"{code.value}/{reason.value}"] = where
    for path, call in _calls(WEB, "RunRefused"):
        assert isinstance(call.args[1], ast.Constant)
        codes[call.args[1].value] = f"{path.relative_to(ROOT)}:{call.lineno}"
    return codes


def page_errors() -> dict[str, str]:
    """ui.js's ERRORS: each code's English text."""
    script = (WEB / "static" / "ui.js").read_text(encoding="utf-8")
    block = script[script.index("const ERRORS = {"):]
    block = block[:block.index("\n};")]
    return {key.strip('"'): text for key, text in
            re.findall(r'^\s+("[^"]+"|[a-z-]+): N_\("((?:[^"\\]|\\.)*)"\)', block,
                       re.MULTILINE)}


def test_the_page_knows_every_code_the_api_gives() -> None:
    errors = page_errors()
    assert len(errors) > 40 and "bad-challenge/not-connected" in errors
    given = {**api_codes(), **refusal_codes()}
    unknown = {code: where for code, where in given.items()
               if code not in errors and code not in NOT_SHOWN}
    assert unknown == {}, "give these codes a text in ui.js's ERRORS (or a reason in NOT_SHOWN)"
    assert set(NOT_SHOWN) <= set(given), "NOT_SHOWN lists a code the API no longer gives"


def test_every_error_text_is_in_english_and_russian() -> None:
    catalogues = {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
                  for lang in ("en", "ru")}
    for code, text in page_errors().items():
        assert catalogues["en"].get(text) == text, code
        said = catalogues["ru"].get(text)
        assert said and said != text and re.search("[а-яё]", said), code
        assert set(re.findall(r"\{\w+\}", said)) == set(re.findall(r"\{\w+\}", text)), code


# -- the referee's rejections ----------------------------------------------------------------

_RAISED = re.compile(r'\b(Rejection|Refusal|Defect)\(\s*(f?)"([^"]+)"')
_NAMED = re.compile(r"\b(?:Rejection|Refusal)\(\s*([A-Z][A-Z_]+)\s*,")
_WRONG = re.compile(r'\bwrong = "([a-z-]+)"')
CHANCE_HOLES = {"name", "self._chance_name"}
"""The f-string holes of a code that are the game's chance event's name (`bad-{name}` in
the referee, `{self._chance_name}-mismatch` in the replay); any other hole is the name
of a fact a log records (`missing-{key}`): a new kind of hole fails the test."""
FACT_HOLES = {"key"}
SHARED = [ROOT / "arena" / "referee.py", ROOT / "arena" / "match.py", ROOT / "arena" / "replay.py",
          ROOT / "arena" / "server" / "live.py"]
"""The rejections every game's pages can show: the referee's, the replay's (a log's
defects) and the server's own (a move for another turn)."""
NO_PAGE = {"no-seed": "Match.resume refuses to take up a record of a game of chance without "
                      "its seed (a server restart); it is logged, no page shows it"}
"""Codes of the sources above that no person at a page reads, with why."""


def rejection_codes(sources: list[Path], chance: str) -> dict[str, str]:
    """Each code `sources` can give, with where: literal codes, module constants
    (``NOT_IN_BANK = "not-in-bank"`` in a .pyx), and f-string codes with their holes
    filled in by `chance` or by a fact's name."""
    codes: dict[str, str] = {}
    for path in sources:
        text = path.read_text(encoding="utf-8")
        constants = dict(re.findall(r'^([A-Z][A-Z_]+) = "([a-z-]+)"$', text, re.MULTILINE))
        found = [(m.start(), m[2], m[3]) for m in _RAISED.finditer(text)]
        found += [(m.start(), "", constants[m[1]]) for m in _NAMED.finditer(text)]
        found += [(m.start(), "", m[1]) for m in _WRONG.finditer(text)]
        for at, formatted, code in found:
            where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, at) + 1}"
            if formatted:
                holes = re.findall(r"\{([^}]+)\}", code)
                assert set(holes) <= CHANCE_HOLES | FACT_HOLES, where
                code = re.sub(r"\{([^}]+)\}", lambda m: chance if m[1] in CHANCE_HOLES
                              else "position", code)
            codes[code] = where
    return codes


def test_every_rejection_any_game_gives_reads_in_english_and_russian() -> None:
    """A person reads the referee's refusal of a move (live, or in a replay's verdict on an
    edited log) in the page's language: every code a game's source (and the referee, the
    replay, the server) can give has a text in ui.js's REJECTIONS or in the game's
    renderer's `rejections`, in the catalogues of both languages."""
    from arena.registry import default_registry

    registry = default_registry()
    shared = _table((WEB / "static" / "ui.js").read_text(encoding="utf-8"), "const REJECTIONS = {")
    app = {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
           for lang in ("en", "ru")}
    seen = set()
    for name in sorted(registry.games):
        chance = registry.game_class(name).type.chance_name
        folder = ROOT / "arena" / "games" / name
        sources = [*SHARED, *sorted(folder.rglob("*.py")), *sorted(folder.rglob("*.pyx"))]
        own = _table((folder / "web.js").read_text(encoding="utf-8"), "export const rejections = {")
        catalogues = {lang: {**app[lang], **json.loads(
            (folder / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))} for lang in ("en", "ru")}
        codes = rejection_codes(sources, chance)
        assert {"malformed", "game-over", "stale-turn", f"bad-{chance}"} <= set(codes), name
        assert set(NO_PAGE) <= set(codes), "NO_PAGE lists a code the sources no longer give"
        for code, where in sorted((c, w) for c, w in codes.items() if c not in NO_PAGE):
            key = rejection_key(code, chance, own, shared)
            assert key is not None, f"{code} ({where}): give it a text in {name}'s web.js rejections"
            text = own.get(key) or shared[key]
            seen.add(key)
            assert catalogues["en"].get(text) == text, (name, code)
            said = catalogues["ru"].get(text)
            assert said and said != text and re.search("[а-яё]", said), (name, code)
        assert set(own) <= set(codes), f"{name}'s web.js names a code the game never gives"
    assert set(shared) <= seen, "ui.js's REJECTIONS has a code no game gives"
    # the check can fail: a code that has no text
    assert rejection_key("edge-stolen", "chance", {}, shared) is None


def test_every_reason_the_server_aborts_a_game_for_reads_in_russian() -> None:
    """ui.js's ABORTS says why the server aborted a game by how the reason begins: each
    reason the server gives (an `abort(...)` of a literal in arena/server) begins as one
    of them does, and each has its text in English and Russian."""
    script = (WEB / "static" / "ui.js").read_text(encoding="utf-8")
    block = script[script.index("const ABORTS = ["):]
    block = block[:block.index("]];") + 2]
    starts = dict(re.findall(r'\["([^"]+)", N_\("([^"]+)"\)\]', block))
    given = {m[1] for path in (ROOT / "arena" / "server").rglob("*.py") for m in re.finditer(
        r'abort(?:_stored)?\((?:stored, )?f?"([^"{]+)', path.read_text(encoding="utf-8"))}
    assert len(given) >= 4 and "the server shut down" in given
    assert {g for g in given if not any(g.startswith(s) for s in starts)} == set()
    assert {s for s in starts if not any(g.startswith(s) for g in given)} == set()
    russian = json.loads((WEB / "i18n" / "ru.json").read_text(encoding="utf-8"))
    for text in starts.values():
        assert re.search("[а-яё]", russian.get(text, "")), text


# -- the grammar checker's reasons and warnings ----------------------------------------------

SUBSTITUTION = ROOT / "arena" / "games" / "substitution"


def grammar_codes() -> dict[str, set[str]]:
    """Each code the substitution game's grammar checker gives (a `GrammarError`'s `code`,
    a `GrammarWarning`'s, `webapi.py`'s own ``reason_code``) with the names of its params,
    read from the source: every `GrammarError` of the grammar module has a code."""
    codes: dict[str, set[str]] = {}

    def add(code: str, params: ast.expr | None, where: str) -> None:
        names = set() if params is None else {k.value for k in params.keys}  # type: ignore[attr-defined]
        assert codes.setdefault(code, names) == names, f"{where}: {code} with other params"

    for name in ("grammar.py", "webapi.py"):
        tree = ast.parse((SUBSTITUTION / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            where = f"{name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "GrammarError":
                given = {keyword.arg: keyword.value for keyword in node.keywords}
                code = given.get("code")
                if isinstance(code, ast.Constant):
                    add(code.value, given.get("params"), where)
                else:  # a re-raise with a line: the code it caught
                    assert code is not None and ast.unparse(code) == "error.code", where
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "GrammarWarning":
                assert isinstance(node.args[0], ast.Constant), where
                add(node.args[0].value, None, where)
            elif isinstance(node, ast.Dict):
                fields = {k.value: v for k, v in zip(node.keys, node.values)
                          if isinstance(k, ast.Constant)}
                if isinstance(fields.get("reason_code"), ast.Constant) and fields["reason_code"].value:
                    add(fields["reason_code"].value, fields.get("reason_params"), where)
    return codes


def test_every_grammar_reason_and_warning_reads_in_english_and_russian() -> None:
    """A page says each reason a grammar is refused for and each warning in its language:
    every code the checker gives has a text in web.js's `grammarReasons` naming just the
    params it sends, in the game's catalogues of both languages."""
    codes = grammar_codes()
    assert {"no-arrow", "empty-between-bars", "weights-count", "text-too-long",
            "no-start-group", "never-finished"} <= set(codes)
    table = _table((SUBSTITUTION / "web.js").read_text(encoding="utf-8"), "const grammarReasons = {")
    assert sorted(table) == sorted(codes), "give each code a text in web.js's grammarReasons"
    catalogues = {lang: json.loads((SUBSTITUTION / "i18n" / f"{lang}.json").read_text(
        encoding="utf-8")) for lang in ("en", "ru")}
    for code, params in codes.items():
        text = table[code]
        assert set(re.findall(r"\{(\w+)\}", text)) == params, code
        assert catalogues["en"].get(text) == text, code
        said = catalogues["ru"].get(text)
        assert said and said != text and re.search("[а-яё]", said), code
        assert set(re.findall(r"\{(\w+)\}", said)) == params, code


# -- the reasons of refused settings, names and passwords; failed tournaments and finals -------

CODED = {"SettingsError", "SettingsLimitExceeded", "BotSpecError", "GrammarError",
         "LogFormatError", "InvalidName", "PasswordError", "VersionBudget", "ReplayLimitError",
         "UploadError", "UnpackError", "BuildError"}
"""The errors that take a `code` and `params` (`arena.errors.ArenaError`): the HTTP API
sends them as ``reason_code`` and ``reason_params``; a failed build keeps its
`BuildError`'s as the build's ``detail_code`` and ``detail_params``."""
UNCODED = {"UploadError", "UnpackError", "BuildError"}
"""The coded errors that must have a code wherever they are raised (a page says each)."""
PASSED_ON = {"getattr(error, 'code', None)": "sim's edges: edge_mask's own SettingsError, "
                                             "its code passed on (read from sim/rules.py)",
             "error.code": "a grammar's group re-raised with its line (grammar.py's code)",
             "check['reason_code']": "a saved grammar's reason: the grammar checker's "
                                     "(test_every_grammar_reason_and_warning_...)",
             "failure.code": "a failed build: the BuildError its build made (build.py's)"}
"""Codes an error takes from the one it caught, and why the test finds them elsewhere."""


def _code_strings(expr: ast.expr, where: str) -> set[str]:
    """The codes an expression gives: a literal, both sides of ``a if c else b``, the
    values of ``{...}.get(key, default)``."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _code_strings(expr.body, where) | _code_strings(expr.orelse, where)
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and isinstance(expr.func.value, ast.Dict)):
        return {v.value for v in [*expr.func.value.values, *expr.args[1:]]
                if isinstance(v, ast.Constant)}
    assert ast.unparse(expr) in PASSED_ON, f"{where}: {ast.unparse(expr)}"
    return set()


def _params_of(given: dict[str | None, ast.expr], where: str) -> set[str]:
    params = given.get("params") or given.get("reason_params") or given.get("detail_params")
    if params is None or (isinstance(params, ast.Constant) and params.value is None):
        return set()
    if isinstance(params, ast.Dict):
        return {k.value for k in params.keys if isinstance(k, ast.Constant)} | (
            {"game"} if any(isinstance(v, ast.Name) and v.id == "GAME" for v in params.values)
            else set())
    if isinstance(params, ast.Name) and params.id == "GAME":  # the thesis log's game
        return {"game"}
    assert ast.unparse(params) in ("getattr(error, 'params', None)", "error.params",
                                   "check['reason_params']", "failure.params"), where
    return set()


def coded_reasons(folder: Path, exclude: Path | None = None) -> dict[str, tuple[set[str], str]]:
    """Each code a coded error raised under `folder` (not under `exclude`) gives, and an
    `ApiError`'s ``reason_code``, with the names of its params and where."""
    codes: dict[str, tuple[set[str], str]] = {}
    for path in sorted(folder.rglob("*.py")):
        if exclude is not None and exclude in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None)
            given = {keyword.arg: keyword.value for keyword in node.keywords}
            if name == "AccountLimit":  # code positional, params as keywords
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                code = _code_strings(node.args[1], where).pop()
                named = {keyword.arg for keyword in node.keywords if keyword.arg}
                assert codes.setdefault(code, (named, where))[0] == named, where
                continue
            key = "code" if name in CODED else "reason_code" if name == "ApiError" \
                else "detail_code" if "detail_code" in given else None
            assert name not in UNCODED or "code" in given, \
                f"{path.relative_to(ROOT)}:{node.lineno}: give this {name} a code and params"
            if key is None or key not in given:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            for code in _code_strings(given[key], where):
                params = _params_of(given, where)
                assert codes.setdefault(code, (params, where))[0] == params, where
    return codes


def _check_texts(codes: dict[str, tuple[set[str], str]], table: dict[str, str],
                 catalogues: dict[str, dict[str, Any]], place: str) -> None:
    for code, (params, where) in sorted(codes.items()):
        assert code in table, f"{code} ({where}): give it a text in {place}"
        text = table[code]
        assert set(re.findall(r"\{(\w+)\}", text)) <= params, (code, "names a value not sent")
        assert catalogues["en"].get(text) == text, code
        said = catalogues["ru"].get(text)
        assert said and said != text and re.search("[а-яё]", said), code
        assert set(re.findall(r"\{(\w+)\}", said)) == set(re.findall(r"\{(\w+)\}", text)), code


def _app_catalogues() -> dict[str, dict[str, Any]]:
    return {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
            for lang in ("en", "ru")}


def test_every_reason_a_setting_name_or_password_is_refused_for_reads_in_russian() -> None:
    """An answer's ``reason_code`` (the code of the `ArenaError` it refuses, of an
    `ApiError`'s own, of a tournament's limit) says why in the page's language: every code
    raised outside the games has a text in ui.js's REASONS naming only the values sent
    with it, in English and Russian."""
    codes = coded_reasons(ROOT / "arena", exclude=ROOT / "arena" / "games")
    for path, call in _calls(WEB, "RunRefused"):
        reason = {keyword.arg: keyword.value for keyword in call.keywords}.get("reason")
        if reason is not None:
            assert isinstance(reason, ast.Constant)
            named = {keyword.arg for keyword in call.keywords} - {"reason"}
            codes[reason.value] = (named, f"{path.relative_to(ROOT)}:{call.lineno}")
    assert {"above-guest-limit", "param-above-maximum", "unknown-house-bot", "name-invalid",
            "name-reserved", "password-length", "not-two-players", "tournament-games",
            "bots-limit", "versions-limit", "replay-turns", "replay-resources", "upload-lang",
            "upload-empty", "upload-too-large", "body-too-large", "source-twice", "no-entry",
            "build-exit", "build-overtime", "build-interrupted", "build-server-error"} <= set(codes)
    table = _table((WEB / "static" / "ui.js").read_text(encoding="utf-8"), "const REASONS = {")
    _check_texts(codes, table, _app_catalogues(), "ui.js's REASONS")
    assert set(table) <= set(codes), "ui.js's REASONS has a code the server never gives"


def test_every_reason_a_games_settings_are_refused_for_reads_in_russian() -> None:
    """A game's own reasons (its coded `SettingsError`s): each has a text in its renderer's
    `settingsReasons` (the substitution game's grammar reasons too), in its catalogues."""
    from arena.registry import default_registry

    app = _app_catalogues()
    seen: set[str] = set()
    for name in sorted(default_registry().games):
        folder = ROOT / "arena" / "games" / name
        codes = coded_reasons(folder)
        seen |= set(codes)
        source = (folder / "web.js").read_text(encoding="utf-8")
        table = _table(source, "export const settingsReasons = {")
        if "...grammarReasons" in source[source.index("export const settingsReasons"):]:
            table |= _table(source, "const grammarReasons = {")
        catalogues = {lang: {**app[lang], **json.loads(
            (folder / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))} for lang in ("en", "ru")}
        assert codes, f"{name} gives no coded reason"
        _check_texts(codes, table, catalogues, f"{name}'s web.js settingsReasons")
        assert set(table) <= set(codes) | set(grammar_codes() if name == "substitution" else ()), name
    assert {"vertices-range", "edge-twice", "deal-one-each", "moves-range"} <= seen


CLI_ONLY = {"cli.py": "a game's own command's options, read by no server",
            "files.py": "the heaps rules files (.toml, .py) the command line reads"}
"""The modules of the games whose `SettingsError`s only the command line gives."""


def test_every_settings_error_a_game_raises_has_a_code() -> None:
    """A game's settings refused anywhere a page reads why (the lobby, a ladder's
    challenge, a replay's log) say it by code: every `SettingsError` and `GrammarError`
    raised in a game's modules (but its command line's) is given one."""
    uncoded = []
    for path, call in [*_calls(ROOT / "arena" / "games", "SettingsError"),
                       *_calls(ROOT / "arena" / "games", "GrammarError")]:
        if path.name not in CLI_ONLY and "code" not in {keyword.arg for keyword in call.keywords}:
            uncoded.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    assert uncoded == [], "give these a code and params (and a text in the game's settingsReasons)"


def failure_codes() -> dict[str, tuple[set[str], str]]:
    """Why a tournament run or a final fails: `arena.web.tournaments.FAILURES`, the codes
    `SeasonKeeper._fail` and `FinalRefused` are given, and the tournament's limits a final
    passes on (RunRefused's codes and reasons)."""
    from arena.web.tournaments import FAILURES

    codes = {code: (set(re.findall(r"\{(\w+)\}", text)), "arena/web/tournaments.py")
             for code, text in FAILURES.items()}
    for path, call in [*_calls(WEB, "RunRefused")]:
        reason = {keyword.arg: keyword.value for keyword in call.keywords}.get("reason")
        named = {keyword.arg for keyword in call.keywords} - {"reason"}
        code = reason.value if isinstance(reason, ast.Constant) else call.args[1].value  # type: ignore[attr-defined]
        if code not in ("too-many-requests", "bad-request"):  # a full queue: tried again later
            codes[code] = (named, f"{path.relative_to(ROOT)}:{call.lineno}")
    seasons = ROOT / "arena" / "web" / "seasons.py"
    for node in ast.walk(ast.parse(seasons.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        named = {keyword.arg for keyword in node.keywords}
        if getattr(node.func, "id", None) == "FinalRefused":
            codes[node.args[1].value] = (named, f"seasons.py:{node.lineno}")  # type: ignore[attr-defined]
        elif (getattr(node.func, "attr", None) == "_fail" and len(node.args) > 2
              and isinstance(node.args[2], ast.Constant)):
            codes[node.args[2].value] = (named, f"seasons.py:{node.lineno}")
    return codes


def test_every_reason_a_tournament_or_a_final_fails_for_reads_in_russian() -> None:
    """/api/tournaments/progress's and a final's ``error_code``: each in ui.js's FAILURES
    naming only the values of its ``error_params``, in English and Russian."""
    codes = failure_codes()
    assert {"overtime", "worker-error", "final-too-few", "final-error", "tournament-bots",
            "no-directory", "shutdown"} <= set(codes)
    table = _table((WEB / "static" / "ui.js").read_text(encoding="utf-8"), "const FAILURES = {")
    _check_texts(codes, table, _app_catalogues(), "ui.js's FAILURES")
    assert set(table) <= set(codes), "ui.js's FAILURES has a code the server never gives"


def test_each_settings_limit_reads_in_the_games_words() -> None:
    """A refusal for a guest's or the server's limit names the game (its title) and the
    size (its `SettingLimit.doc`): the page says both from the game's catalogue."""
    from arena.registry import default_registry

    registry = default_registry()
    for name in sorted(registry.games):
        kind = registry.game_class(name).type
        catalogues = {lang: json.loads((ROOT / "arena" / "games" / name / "i18n" / f"{lang}.json")
                                       .read_text(encoding="utf-8")) for lang in ("en", "ru")}
        for text in [kind.title, *(limit.doc for limit in kind.limits)]:
            assert catalogues["en"].get(text) == text, (name, text)
            assert re.search("[а-яё]", catalogues["ru"].get(text, "")), (name, text)


# -- why a challenge ended -------------------------------------------------------------------

def challenge_end_reasons() -> dict[str, str]:
    """Each reason the server gives a challenge's end (arena/server/challenges.py: its
    `_end` calls, its policies' ``decline: ...`` verdicts; `give_up` in arena/cluster),
    its f-string holes filled with a number, with where."""
    given: dict[str, str] = {}
    sources = [ROOT / "arena" / "server" / "challenges.py", *sorted((ROOT / "arena" / "cluster").glob("*.py"))]
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            texts: list[ast.expr] = []
            if id(node) in inner:
                continue  # a part of an f-string, read with it
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "_end":
                texts = [node.args[2]]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "give_up" \
                    and node.args:
                texts = [node.args[0]]
            elif isinstance(node, ast.Constant | ast.JoinedStr):
                first = node.values[0] if isinstance(node, ast.JoinedStr) else node
                if (isinstance(first, ast.Constant) and isinstance(first.value, str)
                        and first.value.startswith("decline: ") and ast.unparse(node) != "'decline: '"):
                    texts = [node]
            for text in texts:
                if isinstance(text, ast.BoolOp):  # `reason or f"{name} declined"`
                    text = text.values[-1]
                if isinstance(text, ast.Constant) and text.value is None:
                    continue
                if isinstance(text, ast.Call) and ast.unparse(text) == "str(error)":
                    continue  # a failure's own English, shown marked lang=en
                if isinstance(text, ast.Attribute | ast.Name) or ast.unparse(text) == \
                        "verdict.removeprefix('decline: ')":
                    continue  # passed on: a bot's own words, or a verdict read below
                assert isinstance(text, ast.Constant | ast.JoinedStr), where
                said = "".join(v.value if isinstance(v, ast.Constant) else "7"
                               for v in (text.values if isinstance(text, ast.JoinedStr) else [text]))
                given[said.removeprefix("decline: ")] = where
    return given


def test_every_reason_a_challenge_ends_for_reads_in_russian() -> None:
    """ui.js's CHALLENGE_ENDS says why a challenge ended by the pattern of the server's
    English reason: each reason the server gives matches one pattern, each pattern some
    reason, and each text is in English and Russian."""
    script = (WEB / "static" / "ui.js").read_text(encoding="utf-8")
    block = script[script.index("const CHALLENGE_ENDS = ["):]
    block = block[:block.index("\n];")]
    patterns = [(re.compile(pattern.replace("(?<", "(?P<")), text) for pattern, text in
                re.findall(r'^\s+\[/(.+)/, N_\("([^"]+)"\)\],$', block, re.MULTILINE)]
    given = challenge_end_reasons()
    assert len(patterns) >= 8 and {"7 declined", "7 disconnected", "no answer within 7 s",
                                     "the bot takes no challenges"} <= set(given), given
    unmatched = {reason: where for reason, where in given.items()
                 if not any(pattern.search(reason) for pattern, _ in patterns)}
    assert unmatched == {}, "give these reasons a pattern in ui.js's CHALLENGE_ENDS"
    assert [text for pattern, text in patterns if not any(pattern.search(g) for g in given)] == []
    catalogues = _app_catalogues()
    for pattern, text in patterns:
        assert catalogues["en"].get(text) == text, text
        said = catalogues["ru"].get(text, "")
        assert re.search("[а-яё]", said), text
        assert set(re.findall(r"\{(\w+)\}", text)) <= set(pattern.groupindex), text
        assert set(re.findall(r"\{(\w+)\}", said)) == set(re.findall(r"\{(\w+)\}", text)), text


# -- the operators' page ---------------------------------------------------------------------

def test_every_reason_a_server_is_unhealthy_for_reads_in_russian() -> None:
    """/healthz's ``reason_code`` (arena/server/health.py's FAILURE_CODES: the codes
    `Durability.unhealthy_code` and the server before its start give) each has a text in
    operator.js's UNHEALTHY, and so does each ``status``, in English and Russian."""
    from arena.server.health import FAILURE_CODES

    given: set[str] = set()
    for name, where in (("durability.py", "unhealthy_code"), ("app.py", "health")):
        tree = ast.parse((ROOT / "arena" / "server" / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == where:
                calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
                parts = [k.value for c in calls for k in c.keywords if k.arg == "failure_code"] \
                    if name == "app.py" else [node]
                given |= {n.value for part in parts for n in ast.walk(part)
                          if isinstance(n, ast.Constant) and isinstance(n.value, str)
                          and re.fullmatch(r"[a-z]+(-[a-z]+)+", n.value)}
    assert given == set(FAILURE_CODES), "FAILURE_CODES lists the codes the server gives"
    script = (WEB / "static" / "operator.js").read_text(encoding="utf-8")
    table = _table(script, "const UNHEALTHY = {")
    states = _table(script, "const STATES = {")
    assert sorted(table) == sorted(FAILURE_CODES), "give each code a text in UNHEALTHY"
    assert sorted(states) == ["closing", "ok", "unhealthy"]
    catalogues = _app_catalogues()
    for text in [*table.values(), *states.values()]:
        assert catalogues["en"].get(text) == text, text
        assert re.search("[а-яё]", catalogues["ru"].get(text, "")), text


def test_a_builds_version_note_reads_in_russian() -> None:
    """The note a build that became a version gets (arena/uploads.py's ``build ID
    (LANG)``) is one accounts.js's BUILD_NOTE knows, and its text is in both catalogues."""
    from arena.uploads import new_build_id

    source = (ROOT / "arena" / "uploads.py").read_text(encoding="utf-8")
    assert 'f"build {build.id} ({build.lang})"' in source, "the note's form changed"
    script = (WEB / "static" / "accounts.js").read_text(encoding="utf-8")
    pattern = re.search(r"const BUILD_NOTE = /(.+)/;", script)
    assert pattern is not None
    assert re.fullmatch(pattern[1], f"build {new_build_id()} (python)")
    assert not re.fullmatch(pattern[1], "build 2: faster search")  # a person's own words
    catalogues = _app_catalogues()
    assert catalogues["en"]["build {id} ({lang})"] == "build {id} ({lang})"
    assert catalogues["ru"]["build {id} ({lang})"] == "сборка {id} ({lang})"
