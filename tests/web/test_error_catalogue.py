"""Every error the HTTP API gives has a text in the page's language (issue 28): each
`ApiError` code raised in arena/web, each challenge refusal's code and `reason`, and each
tournament run's refusal is in `ui.js`'s ERRORS with its text in English and Russian, or
is listed in NOT_SHOWN with the reason no person at a page reads it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

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
                      "'the legal moves could not be loaded' and shows the referee's words in English",
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
