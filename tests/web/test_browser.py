"""The web interface in a real Chromium (Debian's package) driven by Playwright.

A real `arena serve` runs on loopback with a database holding a few rated games and a
directory of tournament results. Screenshots of every page go to test-artifacts/.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import playwright.sync_api as playwright_sync
import pytest

from arena.games.substitution import Settings
from arena.games.substitution.game import SubstitutionGame
from arena.match import Match
from arena.registry import default_registry
from arena.server.storage import Storage

from .test_api import write_tournament

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 60_000
MOVES = 12
"""Moves per player of the stored games."""

if not Path(CHROMIUM).exists():
    # A missing browser is a broken test setup, not a reason to skip: `make test`
    # installs Debian's chromium.
    raise RuntimeError(f"no Chromium at {CHROMIUM}: run `make test` (it installs Debian's chromium)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _seed_database(path: Path) -> list[str]:
    """Three rated games between two accounts, as the ladder would have stored them."""
    registry = default_registry()
    game = SubstitutionGame(Settings.preset("medium", MOVES))
    storage = Storage(path)
    ids = []
    for index in range(3):
        players = ["alpha", "beta"] if index % 2 == 0 else ["beta", "alpha"]
        match = Match(game, players, seed=100 + index, match_id=f"seeded{index}")
        bots = [registry.make_bot(game, "random"), registry.make_bot(game, "random")]
        match.run(bots, [random.Random(index), random.Random(index + 10)])
        record = match.record()
        storage.start_game(record, ladder=True, pair=None)
        storage.finish_game(record, rated=True)
        ids.append(record.id)
    storage.close()
    return ids


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("web")
    ids = _seed_database(base / "arena.sqlite")
    write_tournament(base / "tournaments" / "round-robin")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", str(port), "--db",
         str(base / "arena.sqlite"), "--no-ladder", "--tournaments", str(base / "tournaments")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                output = process.stdout.read().decode() if process.stdout else ""
                pytest.fail(f"the server did not start: {output}")
            time.sleep(0.2)
    yield {"url": url, "games": ids}
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout:
        process.stdout.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True,
                                     timeout=TIMEOUT_MS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, server: dict[str, Any]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], errors


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"web-{name}.png"), full_page=True)


def wait_phase(page: Any, *phases: str) -> str:
    page.wait_for_function(
        "phases => phases.includes(document.body.dataset.phase)", arg=list(phases))
    return str(page.evaluate("document.body.dataset.phase"))


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


def test_a_whole_game_by_hand_against_random(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    shot(page, "lobby")
    start_game(page, server, text=ALL_S)
    wait_phase(page, "choose")
    assert page.is_disabled("#finish") and page.is_disabled("#undo")
    assert page.locator("#player-0 li").count() == 0
    page.locator("button.choice[data-group]").first.click()  # the rolled group
    production = page.locator("button.choice[data-production]").last
    made = production.inner_text().split(" → ")[1]  # "Sb" or "c"
    production.click()
    page.click("button.choice[data-word='-1']")
    wait_phase(page, "choose")
    assert page.inner_text("#partial").endswith(f"→ {made} on new derivation")
    assert page.inner_text("#player-0 li").startswith(made)  # the board shows the turn so far
    assert page.is_enabled("#finish")
    shot(page, "play-turn")
    page.click("#undo")
    wait_phase(page, "choose")
    assert page.locator("#partial").count() == 0 and page.is_disabled("#finish")
    assert page.locator("#player-0 li").count() == 0
    assert play_by_hand(page) == 3
    result = page.inner_text("#result")
    assert "wins" in result or "Draw" in result
    assert page.locator("#breakdown").is_visible()
    shot(page, "play-result")
    page.click("text=Replay this game")
    wait_phase(page, "replay")
    page.click("#last")
    assert page.get_attribute("#frame-label", "data-index") == "6"


def test_watching_a_live_game_from_the_lobby(page: Any, browser: Any,
                                             server: dict[str, Any]) -> None:
    start_game(page, server, seat=1)  # the house bot moves first
    wait_phase(page, "choose")
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        watcher = context.new_page()
        watcher.goto(server["url"] + "/#/")
        wait_phase(watcher, "lobby")
        watcher.locator("#live-games a").first.click()  # the list refreshes every 4 s
        watcher.wait_for_selector("#watch-area .board")
        assert "house:random" in watcher.inner_text("#watch-area")
        shot(watcher, "watch")
        assert play_by_hand(page) == 3
        watcher.wait_for_selector("#result")
        assert page.inner_text("#result h2") == watcher.inner_text("#result h2")
    finally:
        context.close()


def test_resigning(page: Any, server: dict[str, Any]) -> None:
    start_game(page, server, moves=50)
    wait_phase(page, "choose")
    page.click("#resign")
    assert wait_phase(page, "over") == "over"
    assert "house:random wins" in page.inner_text("#result h2")
    assert "resignation" in page.inner_text("#result h2")


def test_the_replay_viewer_steps_through_a_stored_game(page: Any, server: dict[str, Any]) -> None:
    game_id = server["games"][0]
    page.goto(f"{server['url']}/#/replay?id={game_id}")
    wait_phase(page, "replay")
    label = page.locator("#frame-label")
    assert label.get_attribute("data-index") == "0"
    assert "Start of the game" in label.inner_text()
    page.click("#next")
    assert label.get_attribute("data-index") == "1"
    assert f"Turn 1 of {2 * MOVES}" in label.inner_text()
    page.click("#next")
    page.click("#prev")
    assert label.get_attribute("data-index") == "1"
    page.click("#last")
    assert label.get_attribute("data-index") == str(2 * MOVES)
    assert page.locator("#breakdown").is_visible()
    page.fill("#slider", "4")
    assert label.get_attribute("data-index") == "4"
    shot(page, "replay")
    page.click("#first")
    assert label.get_attribute("data-index") == "0"


def test_the_replay_viewer_reads_an_uploaded_thesis_log(page: Any, server: dict[str, Any],
                                                        tmp_path: Path) -> None:
    from arena.games.substitution.thesis_log import write_thesis_log

    from .test_api import _played

    path = tmp_path / "game.log"
    # a 1000-turn game: too long for one request, so it goes up in parts
    path.write_text(write_thesis_log(_played(SubstitutionGame(Settings.preset("classic", 1000)))),
                    encoding="utf-8")
    page.goto(server["url"] + "/#/replay")
    wait_phase(page, "replay-empty")
    page.set_input_files("#upload", str(path))
    wait_phase(page, "replay")
    page.click("#last")
    assert page.get_attribute("#frame-label", "data-index") == "2000"
    assert "game.log" in page.inner_text("#viewer h2")
    shot(page, "replay-upload")


def test_the_grammar_editor_rejects_a_bad_grammar(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/editor")
    wait_phase(page, "editor")
    page.fill("#editor-text", "S->AB\nA->a\nB=>b\n")
    page.wait_for_function("document.body.dataset.checked === 'error'")
    status = page.inner_text("#editor-status")
    assert status.startswith("Line 3:"), status
    assert page.inner_text("#bad-line") == "3 │ B=>b"
    page.fill("#preset-name", "mine")
    assert page.is_disabled("#save")
    shot(page, "editor-error")
    page.fill("#editor-text", "S->AB|aS\nA->a\nB->b\n")
    page.wait_for_function("document.body.dataset.checked === 'ok'")
    page.click("#save")
    page.wait_for_selector("#save-message.ok")
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    assert page.locator("#grammar option[value=mine]").count() == 1


def test_the_tournament_table_and_the_ladder(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/tournaments")
    wait_phase(page, "tournaments")
    page.click("text=round-robin/tournament.json")
    wait_phase(page, "tournament")
    table = page.locator("#crosstable")
    assert table.locator("th").nth(1).inner_text() == "random"
    assert table.locator("td a").first.inner_text() == "1 / 0 / 0"
    shot(page, "tournament")
    table.locator("td a").first.click()
    page.wait_for_selector("#cell-games")
    page.click("#cell-games a")
    wait_phase(page, "replay")
    page.click("#last")
    assert page.get_attribute("#frame-label", "data-index") == "6"
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    assert page.locator("#leaderboard tr").count() == 3
    assert page.locator("#rating-chart polyline").count() == 2
    shot(page, "ladder")


def test_artifacts_directory_is_ignored_by_git() -> None:
    assert shutil.which("git") is None or "test-artifacts" in (ROOT / ".gitignore").read_text()
