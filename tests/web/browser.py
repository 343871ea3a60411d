"""What the browser tests share (tests/web/test_browser*.py): a real `arena serve` on
loopback with a database holding a few rated games, a stored game of every game and a
directory of tournament results; Debian's Chromium driven by Playwright; the checks of
what a person sees. Screenshots of every page go to test-artifacts/.

A test module takes the fixtures by importing them (`server`, `browser`, `visitor`,
`page`): each module starts its own server.
"""

from __future__ import annotations

import os
import random
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import axe_playwright_python
import pytest

from arena.games.substitution import Settings
from arena.games.substitution.game import SubstitutionGame
from arena.match import Match
from arena.registry import default_registry
from arena.storage.sqlite import SQLiteDatabase

from .live import arena_serve
from .test_api import GAMES, write_tournament

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 60_000
MOVES = 12
"""Moves per player of the stored games."""

# Without a browser these tests are skipped, the rest of the suite runs; `make test`
# installs Debian's chromium and sets ARENA_REQUIRE_BROWSER, so that CI never skips them.
_REQUIRED = os.environ.get("ARENA_REQUIRE_BROWSER", "") not in ("", "0")
try:
    import playwright.sync_api as playwright_sync
except ImportError as error:
    if _REQUIRED:
        raise
    pytest.skip(f"browser tests need Playwright ({error}); `make test` installs it",
                allow_module_level=True)
if not Path(CHROMIUM).exists():
    if _REQUIRED:
        raise RuntimeError(f"no Chromium at {CHROMIUM}, and ARENA_REQUIRE_BROWSER is set")
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (ARENA_CHROMIUM); `make test` "
                "installs Debian's chromium", allow_module_level=True)


def _seed_database(path: Path) -> list[str]:
    """Three rated games between two accounts, as the ladder would have stored them."""
    registry = default_registry()
    game = SubstitutionGame(Settings.preset("medium", MOVES))
    storage = SQLiteDatabase(path)
    ids = []
    for index in range(3):
        players = ["alpha", "beta"] if index % 2 == 0 else ["beta", "alpha"]
        match = Match(game, players, seed=100 + index, match_id=f"seeded{index}")
        bots = [registry.make_bot(game, "random"), registry.make_bot(game, "random")]
        match.run(bots, [random.Random(index), random.Random(index + 10)])
        match.note(0, f"{players[0]}'s debug line", 0)  # shown by the replay with turn 0
        record = match.record()
        storage.start_game(record, ladder=True, pair=None)
        storage.finish_game(record, rated=True)
        ids.append(record.id)
    storage.close()
    return ids


def _seed_other_games(path: Path) -> dict[str, Any]:
    """A finished (unrated) game of every other game, by name: its record."""
    registry = default_registry()
    storage = SQLiteDatabase(path)
    records = {}
    for name, (settings, bot) in GAMES.items():
        game = registry.load_game(name, settings)
        match = Match(game, ["alpha", "beta"], seed=11, match_id=f"stored-{name}")
        bots = [registry.make_bot(game, bot), registry.make_bot(game, bot)]
        match.run(bots, [random.Random(1), random.Random(2)])
        record = match.record()
        storage.start_game(record, ladder=False, pair=None)
        storage.finish_game(record)
        records[name] = record
    storage.close()
    return records


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("web")
    ids = _seed_database(base / "arena.sqlite")
    others = _seed_other_games(base / "arena.sqlite")
    write_tournament(base / "tournaments" / "round-robin")
    with arena_serve("--db", str(base / "arena.sqlite"), "--tournaments",
                     str(base / "tournaments"),
                     "--guests-per-client", "1000") as (url, process):  # a guest a page
        yield {"url": url, "games": ids, "others": others, "tournaments": base / "tournaments"}
    if process.stdout:
        process.stdout.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True,
                                     timeout=TIMEOUT_MS)
        yield chromium
        chromium.close()


VIEWPORTS = {"desktop": {"width": 1366, "height": 800}, "phone": {"width": 390, "height": 844}}
BOTH = pytest.mark.parametrize("page", ["desktop", "phone"], indirect=True)
"""Run a test at both viewports (a laptop's and a phone's)."""


@pytest.fixture
def visitor(server: dict[str, Any]) -> dict[str, str]:
    """A visitor's guest cookie for one test's browser (the test server makes up to 1000
    guests a minute per address): each test plays as its own guest, so a game a failed
    test left running never counts against the next test's live games."""
    request = urllib.request.Request(server["url"] + "/api/guest", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        name, _, value = answer.headers["Set-Cookie"].split(";")[0].partition("=")
    return {"name": name, "value": value, "url": server["url"]}


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: Any, server: dict[str, Any],
         visitor: dict[str, str]) -> Iterator[Any]:
    yield from open_page(browser, visitor, getattr(request, "param", "desktop"))


def open_page(browser: Any, visitor: dict[str, str], viewport: str,
              locale: str | None = None) -> Iterator[Any]:
    """A page of a fresh browser context with the visitor's cookie (and a language:
    `locale` sets Accept-Language); after the test, no page error and no console error
    the test did not expect (`page.expected_console`: patterns)."""
    context = browser.new_context(viewport=VIEWPORTS[viewport], is_mobile=viewport == "phone",
                                  has_touch=viewport == "phone", locale=locale)
    context.add_cookies([{**visitor, "httpOnly": True, "sameSite": "Strict"}])
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.viewport_name = viewport
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # what the console shows (a failed request, say), unless the test expects it
    page.expected_console = []
    page.on("console", lambda message: errors.append(f"console: {message.text} "
                                                     f"({message.location.get('url')})")
            if message.type == "error" and not any(
                re.search(pattern, f"{message.text} {message.location.get('url')}")
                for pattern in page.expected_console) else None)
    yield page
    context.close()
    assert errors == [], errors


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    suffix = "" if getattr(page, "viewport_name", "desktop") == "desktop" else "-phone"
    page.screenshot(path=str(ARTIFACTS / f"web-{name}{suffix}.png"), full_page=True)


OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const bad = [];
  if (document.documentElement.scrollWidth > width) bad.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (!box.width || box.right <= width + 0.5) continue;
    let scrolled = false;  // inside a box that scrolls sideways on its own
    for (let up = el.parentElement; up; up = up.parentElement) {
      const x = getComputedStyle(up).overflowX;
      if (x === "auto" || x === "scroll" || x === "hidden") { scrolled = up.getBoundingClientRect().right <= width + 0.5; break; }
    }
    if (!scrolled && !el.closest(".visually-hidden")) bad.push(`${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className.baseVal ?? el.className} ends at ${Math.round(box.right)} px`);
  }
  return bad.slice(0, 5);
}"""


READING = """() => {
  const bad = [];
  const skip = 'pre, code, textarea, script, style, option, .visually-hidden, [hidden]';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let text = '';
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest(skip) || !el.getClientRects().length) continue;
    text += node.data + ' ';
    if (el.closest('svg')) continue;  // SVG text does not wrap
    for (const word of node.data.matchAll(/[\\p{L}\\p{N}]{2,}/gu)) {
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      if (rects.length < 2) continue;
      const tops = rects.map((r) => r.top);
      if (Math.max(...tops) - Math.min(...tops) > rects[0].height / 2) {
        bad.push(`"${word[0]}" is cut across lines in ${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}`);
      }
    }
  }
  const rules = [[/\\[object \\w+\\]/, 'a JavaScript object'], [/\\b(undefined|NaN)\\b/, 'a missing value'],
    [/\\d(\\.\\d+)?e[+-]\\d+/i, 'a number in exponent form'],
    [/hello\\.games|\\bgame_id\\b|\\byour_turn\\b|\\bmove_rejected\\b|\\bgame_over\\b/, 'protocol text'],
    [/\\bhouse:[\\w-]/, 'a house bot by its account name'], [/\\bguest-[0-9a-f]{6,}/, 'a guest by its account name']];
  for (const [pattern, what] of rules) {
    const found = pattern.exec(text);
    if (found) bad.push(`${what}: ...${text.slice(Math.max(0, found.index - 40), found.index + 40)}...`);
  }
  return bad.slice(0, 8);
}"""


def no_overflow(page: Any) -> None:
    """What a person reads: nothing sticks out to the right of the screen (tables scroll in
    their own box), no word is cut across lines, no JavaScript object, missing value,
    number in exponent form, protocol text or account name shows."""
    for check in (OVERFLOW, READING):
        problems = page.evaluate(check)
        assert problems == [], (page.url, problems)


AXE = Path(axe_playwright_python.__file__).with_name("axe.min.js")
IMPACTS = ("minor", "moderate", "serious", "critical")
"""axe-core, as the PyPI package axe-playwright-python ships it (a test dependency)."""


def axe_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("() => Promise.all(document.getAnimations().map((a) => a.finished))"  # settled
                          ".then(() => axe.run(document, { resultTypes: ['violations'] }))"
                          ".then((r) => r.violations)")
    return [f"{v['id']} ({v['impact']}): {v['help']}: "
            + "; ".join(str(n["target"]) for n in v["nodes"][:4])
            for v in found if v["impact"] in IMPACTS]


def accessible(page: Any) -> None:
    """No serious or critical violation by axe-core."""
    problems = axe_violations(page)
    assert problems == [], (page.url, problems)


def settle(page: Any) -> str:
    """Wait until the page drew itself (its phase past loading, connecting and busy); its
    phase. A phase at all: before the first page's script runs the body has none (and no
    h1), which the bare ``includes`` check took for settled."""
    page.wait_for_function("document.body?.dataset.phase !== undefined"
                           " && !['loading', 'connecting', 'busy'].includes(document.body.dataset.phase)")
    return str(page.evaluate("document.body.dataset.phase"))


def wait_phase(page: Any, *phases: str) -> str:
    page.wait_for_function(
        # no body while a reload replaces the document (the language switch)
        "phases => phases.includes(document.body?.dataset.phase)", arg=list(phases))
    return str(page.evaluate("document.body.dataset.phase"))


def replay_edited_log(page: Any, server: dict[str, Any], tmp_path: Path) -> Any:
    """Open the replay of the stored Sim game's log, edited so that its third turn colours
    the first turn's edge again (illegal), and return that record."""
    from dataclasses import replace

    from arena.record import to_jsonl

    record = server["others"]["sim"]
    turns = list(record.turns)
    turns[2] = turns[2]._replace(move=turns[0].move)  # an edge coloured twice
    path = tmp_path / "edited.jsonl"
    path.write_text(to_jsonl(replace(record, turns=tuple(turns))), encoding="utf-8")
    page.goto(server["url"] + "/#/replay")
    wait_phase(page, "replay-empty")
    page.set_input_files("#upload", str(path))
    wait_phase(page, "replay")
    return record


ALL_S = "S->aS|Sb\nS->c\n"
"""Every roll applies, so every turn is built by hand (no bank)."""


def start_game(page: Any, server: dict[str, Any], moves: int = 3, text: str | None = None,
               seat: int = 0) -> None:
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    if text is None:
        page.select_option("#grammar", "medium")
    else:
        page.select_option("#grammar", "")
        page.fill("#grammar-text", text)
    page.fill("#moves", str(moves))
    page.select_option("#bot", "random")
    page.select_option("#seat", str(seat))
    page.click("#start")


def play_by_hand(page: Any, first_shot: str | None = None) -> int:
    """Build every turn from the first legal choice offered until the result shows."""
    clicks = turns = 0
    while True:
        phase = wait_phase(page, "choose", "over", "error")
        assert phase != "error", page.inner_text("main")
        if phase == "over":
            return turns
        if first_shot and turns == 0 and clicks == 0:
            shot(page, first_shot)
        if page.is_enabled("#finish"):
            page.click("#finish")
            turns += 1
        else:
            page.locator("button.choice").first.click()
            clicks += 1
        assert clicks < 200


TWO_EACH = "S->aS|Sb\nS->c|cc\n"
"""Every roll applies and every group has two productions: one choice is left per turn."""


def start_from_lobby(page: Any, server: dict[str, Any], game: str, seat: int = 0,
                     choose: dict[str, str] | None = None, fill: dict[str, str] | None = None) -> None:
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    page.select_option("#game", game)
    for selector, value in (choose or {}).items():
        page.select_option(selector, value)
    for selector, value in (fill or {}).items():
        page.fill(selector, value)
    page.select_option("#seat", str(seat))
    page.click("#start")


def my_turn(page: Any) -> bool:
    """Wait until it is our turn (True) or the game is over (False)."""
    phase = wait_phase(page, "choose", "over", "error")
    assert phase != "error", page.inner_text("main")
    return phase == "choose"


def data_of(page: Any, selector: str, key: str) -> list[str]:
    return list(page.locator(selector).evaluate_all(f"els => els.map(e => e.dataset.{key})"))


def moves_offered(page: Any) -> list[str]:
    return data_of(page, "#play-area [data-move]:not([disabled])", "move")
