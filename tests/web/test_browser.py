"""The web interface in a real Chromium (Debian's package) driven by Playwright.

A real `arena serve` runs on loopback with a database holding a few rated games and a
directory of tournament results. Screenshots of every page go to test-artifacts/.
"""

from __future__ import annotations

import os
import random
import re
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

from .test_api import GAMES, write_tournament

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


def _seed_other_games(path: Path) -> dict[str, Any]:
    """A finished (unrated) game of every other game, by name: its record."""
    registry = default_registry()
    storage = Storage(path)
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
    yield {"url": url, "games": ids, "others": others}
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


# -- every other game: play by hand from the lobby, replay a stored game -----------------------


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


def test_sim_by_hand(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "sim", choose={"#sim-vertices": "5", "#bot": "sim-random"})
    assert my_turn(page)
    assert page.locator("#sim-board .edge").count() == 10
    assert page.locator("#sim-board .edge.free.playable").count() == 10
    page.click("#sim-board .hit[data-move='0 1']")  # a side of the pentagon: click the edge
    made = 1
    while my_turn(page):
        red = page.locator("#sim-board .edge.red").count()
        green = page.locator("#sim-board .edge.green").count()
        assert (red, green) == (made, made)  # we are red, the house answered every move
        assert len(moves_offered(page)) == 10 - 2 * made
        assert page.locator("#sim-board [data-edge='0 1'].red").count() == 1
        page.locator("#sim-board .vertex.clickable").first.click()  # or click two vertices
        assert page.locator("#sim-board .vertex.selected").count() == 1
        if made == 2:
            shot(page, "sim-play")
        page.locator("#sim-board .vertex.target").first.click()
        made += 1
    red = page.locator("#sim-board .edge.red").count()
    green = page.locator("#sim-board .edge.green").count()
    assert red == made and green in (made - 1, made)
    result = page.inner_text("#result h2")
    if result.startswith("Draw"):
        assert red + green == 10 and page.locator("#sim-board .triangle").count() == 0
    else:
        assert " wins" in result
        assert page.locator("#sim-board .triangle").count() == 1
        assert page.locator("#sim-board .edge.losing").count() == 3
        assert "completed the triangle" in page.inner_text("#status-line")
    assert page.locator("#sim-board [data-move]").count() == 0  # nothing to click any more
    shot(page, "sim-result")


def heap_sizes(page: Any) -> list[int]:
    return [int(size) for size in data_of(page, "#play-area .heap .size", "size")]


def test_heaps_by_hand(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "heaps", choose={"#bot": "heaps-random"})  # task 49932
    assert my_turn(page)
    assert heap_sizes(page) == [7, 10] and "product 70 of 384" in page.inner_text("#play-area")
    assert moves_offered(page) == ["1 *2", "2 +5"]
    assert page.inner_text("#heap-0 button.move") == "×2 → 14"
    assert page.inner_text("#heap-1 button.move") == "+5 → 15"
    page.click("#heap-1 button[data-move='2 +5']")
    turns = 1
    while my_turn(page):
        sizes = heap_sizes(page)
        if turns == 1:
            assert sizes in ([14, 15], [7, 20])  # the house doubled heap 1 or added 5 to heap 2
            shot(page, "heaps-play")
        for move in moves_offered(page):  # every button says what it leaves on its heap
            heap, op = move.split()
            size = sizes[int(heap) - 1]
            after = size * int(op[1:]) if op[0] == "*" else size + int(op[1:])
            label = page.inner_text(f"#play-area button[data-move='{move}']")
            assert label == f"{'×' if op[0] == '*' else '+'}{op[1:]} → {after}", (move, label)
        page.locator("#play-area button.move:not([disabled])").first.click()
        turns += 1
        assert turns < 30
    sizes = heap_sizes(page)
    assert sizes[0] * sizes[1] >= 384
    assert f"product {sizes[0] * sizes[1]} of 384" in page.inner_text("#play-area")
    assert page.locator("#play-area button.move:not([disabled])").count() == 0
    assert " wins" in page.inner_text("#result h2")
    shot(page, "heaps-result")


def hand(page: Any, seat: int) -> list[int]:
    return [int(card) for card in data_of(page, f"#play-area #hand-{seat} .playing-card", "card")]


def test_durak_by_hand_with_a_spectator(page: Any, browser: Any,
                                        server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "durak", choose={"#durak-deal": "given", "#bot": "durak-greedy"},
                     fill={"#durak-cards": "01101001"})
    assert my_turn(page)
    assert hand(page, 0) == [1, 4, 6, 7] and hand(page, 1) == [2, 3, 5, 8]
    assert moves_offered(page) == ["lay 1", "lay 4", "lay 6", "lay 7"]
    assert page.locator("#play-area #table .playing-card").count() == 0
    game_id = re.search(r"game (g[0-9a-f]+):", page.inner_text("#log"))
    assert game_id is not None
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    watcher = context.new_page()
    watcher.goto(f"{server['url']}/#/watch?id={game_id[1]}")
    watcher.wait_for_selector("#watch-area #hand-0 .playing-card")
    watched = [[int(c) for c in data_of(watcher, f"#watch-area #hand-{seat} .playing-card", "card")]
               for seat in (0, 1)]
    assert watched == [[1, 4, 6, 7], [2, 3, 5, 8]]
    assert watcher.locator("#watch-area [data-move]").count() == 0  # a spectator only watches
    page.click("#hand-0 [data-move='lay 1']")
    turns = 1
    while my_turn(page):
        mine = hand(page, 0)
        if turns == 1:
            assert len(mine) == 3 and 1 not in mine
            shot(page, "durak-play")
        table = data_of(page, "#play-area #table .playing-card", "card")
        if table:  # we defend: take it, or beat it with a higher card of ours
            on_table = int(table[0])
            assert sorted(moves_offered(page)) == sorted(
                ["take", *(f"beat {c}" for c in mine if c > on_table)])
        else:
            assert moves_offered(page) == [f"lay {c}" for c in mine]
        page.locator("#play-area [data-move]").first.click()
        turns += 1
        assert turns < 40
    assert [] in (hand(page, 0), hand(page, 1))
    assert "ran out of cards" in page.inner_text("#status-line")
    shot(page, "durak-result")
    try:
        watcher.wait_for_selector("#watch-area #result")
        assert watcher.inner_text("#result h2") == page.inner_text("#result h2")
        assert watcher.inner_text("#watch-area #status-line") == page.inner_text("#status-line")
        assert watcher.locator("#watch-area .playing-card").count() == 0  # the final position
        shot(watcher, "durak-watch")
    finally:
        context.close()


def test_tiles_by_hand(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "tiles", choose={"#bot": "tiles-random"},
                     fill={"#tiles-count": "6"})
    down: set[int] = set()
    turns = 0
    while turns < 4 and my_turn(page):
        assert page.locator("#tiles-0 .tile").count() == 6
        assert {int(t) for t in data_of(page, "#tiles-0 .tile.down", "tile")} == down
        x, y = sorted(int(d) for d in data_of(page, "#dice svg", "die"))
        up = set(range(1, 7)) - down
        pair = {x} if x == y else {x, y}
        expected = [name for name, tiles in (("pair", pair), ("sum", {x + y})) if tiles <= up]
        assert moves_offered(page) == (expected or ["pass"])   # the seed's rules: no voluntary pass
        if turns == 0:
            shot(page, "tiles-play")
        if expected:
            page.click(f"#play-area [data-move='{expected[0]}']")
            down |= pair if expected[0] == "pair" else {x + y}
        else:
            page.click("#play-area [data-move='pass']")
        turns += 1
    if my_turn(page):
        assert {int(t) for t in data_of(page, "#tiles-0 .tile.down", "tile")} == down
        page.click("#resign")
        assert wait_phase(page, "over") == "over"
        assert "resignation" in page.inner_text("#result h2")
    else:  # somebody turned all their tiles down
        assert "turned all tiles down" in page.inner_text("#status-line")
    assert turns >= 1


def test_sim_on_a_graph_typed_as_an_edge_list(page: Any, server: dict[str, Any]) -> None:
    # A pentagon with one diagonal: 6 edges, one triangle (0-1-2).
    start_from_lobby(page, server, "sim", choose={"#sim-vertices": "5", "#sim-graph": "custom",
                                                  "#bot": "sim-random"},
                     fill={"#sim-edges": "0-1 1-2 2-3 3-4 4-0 0-2"})
    assert my_turn(page)
    assert page.locator("#sim-board .edge").count() == 6          # the graph's edges only
    assert page.locator("#sim-board [data-edge='1 3']").count() == 0
    assert sorted(moves_offered(page)) == ["0 1", "0 2", "0 4", "1 2", "2 3", "3 4"]
    assert "6 edges" in page.get_attribute("#sim-board", "aria-label")
    page.click("#sim-board .hit[data-move='3 4']")
    if my_turn(page):
        assert len(moves_offered(page)) == 4
        assert "2 of 6 edges coloured" in page.inner_text("#sim-count")


def board_facts(page: Any, name: str) -> Any:
    """What the replay's board shows, in the shape of `expected_facts`."""
    board = "#replay-board"
    if name == "sim":
        return (page.locator(f"{board} .edge.red").count(), page.locator(f"{board} .edge.green").count(),
                page.locator(f"{board} .edge.losing").count())
    if name == "heaps":
        return [int(size) for size in data_of(page, f"{board} .heap .size", "size")]
    if name == "durak":
        return [[int(c) for c in data_of(page, f"{board} #hand-{seat} .playing-card", "card")]
                for seat in (0, 1)]
    return [sorted(int(t) for t in data_of(page, f"{board} #tiles-{seat} .tile.up", "tile"))
            for seat in (0, 1)]


def expected_facts(name: str, view: dict[str, Any]) -> Any:
    if name == "sim":
        return len(view["red"]), len(view["green"]), 3 if view.get("triangle") else 0
    if name == "heaps":
        return view["heaps"]
    if name == "durak":
        return view["hands"]
    return view["boards"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_replaying_a_stored_game_of_every_game(page: Any, server: dict[str, Any],
                                               name: str) -> None:
    from arena.web.replay import frames

    record = server["others"][name]
    expected = frames(record, default_registry())["frames"]
    assert len(expected) >= 3
    page.goto(f"{server['url']}/#/replay?id={record.id}")
    wait_phase(page, "replay")
    label = page.locator("#frame-label")
    last = len(expected) - 1
    for step, index in (("#first", 0), ("#next", 1), ("#next", 2), ("#prev", 1), ("#last", last)):
        page.click(step)
        assert label.get_attribute("data-index") == str(index)
        assert board_facts(page, name) == expected_facts(name, expected[index]["render"]), index
        if index == 2:
            shot(page, f"replay-{name}")
    frame = expected[1]
    page.click("#first")
    page.click("#next")
    text = label.inner_text()
    assert text.startswith(f"Turn 1 of {last}: alpha")
    if name == "tiles":
        x, y = frame["chance"]
        assert f"rolled {x} and {y}" in text
        assert sorted(int(d) for d in data_of(page, "#replay-board #dice svg", "die")) == sorted([x, y])
    page.click("#last")
    assert record.outcome is not None
    assert page.inner_text("#replay-result").startswith(
        "Draw" if record.outcome.winner is None else f"{record.players[record.outcome.winner]} wins")


def test_the_play_page_comes_back_after_a_dropped_connection(page: Any,
                                                              server: dict[str, Any]) -> None:
    routes: list[Any] = []

    def through(route: Any) -> None:  # every WebSocket of the page, passed on to the server
        route.connect_to_server()
        routes.append(route)

    page.route_web_socket(re.compile(r"^ws://"), through)
    start_from_lobby(page, server, "sim", choose={"#sim-vertices": "5", "#bot": "sim-random"})
    assert my_turn(page)
    page.click("#sim-board .hit[data-move='0 1']")
    assert my_turn(page)
    assert len(routes) == 1
    routes[0].close(code=4000, reason="network drop")  # the page's side of it
    page.wait_for_function("document.getElementById('log').innerText.includes('reconnected')")
    assert len(routes) == 2
    assert my_turn(page)  # the server resent the game and our turn
    assert page.locator("#sim-board [data-edge='0 1'].red").count() == 1
    while my_turn(page):  # by vertices: an edge drawn flat has no height to click
        page.locator("#sim-board .vertex.clickable").first.click()
        page.locator("#sim-board .vertex.target").first.click()
    result = page.inner_text("#result h2")
    assert " wins" in result or result.startswith("Draw")
    assert "disconnect" not in result
    shot(page, "play-reconnected")
