"""The web interface in a real Chromium (Debian's package) driven by Playwright: whole
games by hand, watching, replays, the editor, tournaments and the ladder (the fixtures and
checks are in tests/web/browser.py)."""

from __future__ import annotations

import re
import shutil
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.games.substitution import Settings
from arena.games.substitution.game import SubstitutionGame
from arena.registry import default_registry

from .browser import (
    BOTH,
    MOVES,
    OVERFLOW,
    ROOT,
    TIMEOUT_MS,
    TWO_EACH,
    VIEWPORTS,
    browser,
    data_of,
    moves_offered,
    my_turn,
    no_overflow,
    page,
    play_by_hand,
    replay_edited_log,
    server,
    settle,
    shot,
    start_from_lobby,
    start_game,
    visitor,
    wait_phase,
)
from .test_api import GAMES

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses
@BOTH
def test_a_whole_game_by_hand_against_random(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    no_overflow(page)
    shot(page, "lobby")
    start_game(page, server, text=TWO_EACH)
    wait_phase(page, "choose")
    assert page.title().startswith("Your turn")
    # the rolled group is the only group and the turn cannot end yet: it is taken at once,
    # and so is the only derivation it can start once a production is picked
    assert page.locator("button.choice[data-group]").count() == 0
    if page.viewport_name == "phone":  # the turn's buttons are on the screen, not below it
        box = page.locator("button.choice[data-production]").first.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844
    assert page.is_disabled("#finish")
    production = page.locator("button.choice[data-production]").last
    made = production.inner_text().split(" → ")[1]
    production.click()
    wait_phase(page, "choose")
    assert page.inner_text("#partial").endswith(f"→ {made} on new derivation")
    pending = page.locator("#player-0 li.pending")  # the turn so far, marked on the board
    assert pending.count() == 1 and pending.inner_text().startswith(made)
    assert "new, this turn" in pending.inner_text()
    assert page.is_enabled("#finish")
    no_overflow(page)
    shot(page, "play-turn")
    page.click("#undo")
    wait_phase(page, "choose")
    assert page.locator("#partial").count() == 0 and page.is_disabled("#finish")
    assert page.locator("#player-0 li").count() == 0
    assert page.locator("button.choice[data-group]").count() == 1  # after an undo: by hand
    assert play_by_hand(page) == 3
    headline = page.inner_text("#result h2")
    assert re.fullmatch(r"(You won|You lost|Draw) \d+ : \d+", headline), headline
    assert page.title().startswith(headline)
    assert page.inner_text("#result-scores").startswith("points (3 + the length of each finished word): You ")
    assert "guest-" not in page.inner_text("#result")
    assert page.locator("#breakdown").is_visible()
    assert page.locator("#log li").count() == 6  # every move of both, numbered
    for line in page.locator("#log li").all_inner_texts():  # each with its roll: "rolled S->aS|Sb"
        assert re.fullmatch(r"(You|random \(house bot\)) rolled S->\S+: .+", line), line
    no_overflow(page)
    shot(page, "play-result")
    game_id = page.url.rsplit("=", 1)[1]
    page.click("text=Replay this game")
    wait_phase(page, "replay")
    page.click("#last")
    assert page.get_attribute("#frame-label", "data-index") == "6"
    # the seed exactly as stored (a 128-bit number: JSON's text, not a float's 1.86e+38)
    stored = page.evaluate("url => fetch(url).then(r => r.text())", f"/api/games/{game_id}")
    seed = re.search(r'"seed":\s*"?(\d+)', stored)
    assert seed is not None and len(seed[1]) > 17
    assert f"seed {seed[1]}" in page.inner_text("#replay-result")
    no_overflow(page)


def test_the_lobby_checks_remembers_and_plays_again(page: Any, server: dict[str, Any]) -> None:
    page.expected_console = [r"status of 400 .*/api/settings/check"]  # the refusals shown
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    page.select_option("#grammar", "")
    page.fill("#grammar-text", "S->a||b\n")
    page.click("#start")
    wait_phase(page, "lobby-error")  # refused by the game's own rules, in the lobby
    assert "empty alternative" in page.inner_text("#lobby-message")
    assert page.url.endswith("#/")
    page.fill("#grammar-text", "S->aS|Sb\nS->c\n")
    page.fill("#moves", "0")
    page.click("#start")
    page.wait_for_selector("#lobby-message.error")
    assert "moves" in page.inner_text("#lobby-message")
    page.fill("#grammar-text", TWO_EACH)
    page.fill("#moves", "2")
    page.click("#start")
    assert play_by_hand(page) == 2
    first = page.url
    assert re.search(r"#/play\?id=g[0-9a-f]+$", first)
    page.click("#play-again")  # the same settings, opponent and seat
    # the page still shows the first game's end until the new game's address is set
    page.wait_for_url(lambda url: url != first and re.search(r"#/play\?id=g[0-9a-f]+$", url)
                      is not None)
    assert play_by_hand(page) == 2
    assert page.url != first
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    assert page.input_value("#grammar-text") == TWO_EACH  # the last settings
    assert page.input_value("#moves") == "2"
    page.click("#tab-mine")
    page.wait_for_function("document.querySelectorAll('#game-list li').length >= 2")
    mine = page.inner_text("#game-list")
    assert "random (house bot)" in mine and ("You won" in mine or "You lost" in mine or "Draw" in mine)
    page.select_option("#list-game", "sim")
    page.wait_for_function("!document.querySelector('#game-list li')")  # no Sim games of ours
    page.select_option("#list-game", "")
    shot(page, "lobby-mine")


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
        watcher.locator("#game-list a").first.click()  # the list refreshes every 4 s
        watcher.wait_for_selector("#watch-area .board")
        wait_phase(watcher, "watching")
        assert "random (house bot)" in watcher.inner_text("#watch-area")
        assert watcher.locator("#log li").count() == 1  # the move played before we came
        assert watcher.inner_text("#watch-status").startswith("guest ")  # whose turn
        assert watcher.locator("#clocks .clock").count() == 2
        assert watcher.locator("#clocks .clock.running").count() == 1
        shot(watcher, "watch")
        assert play_by_hand(page) == 3
        watcher.wait_for_selector("#result")
        same_result(page.inner_text("#result h2"), watcher.inner_text("#result h2"))
        game_id = page.url.rsplit("=", 1)[1]
        watcher.goto(f"{server['url']}/#/ladder")
        wait_phase(watcher, "ladder")
        watcher.goto(f"{server['url']}/#/watch?id={game_id}")  # a game that has ended
        wait_phase(watcher, "replay")  # opens its replay instead of an error
        assert f"replay?id={game_id}" in watcher.url
    finally:
        context.close()


def same_result(mine: str, theirs: str) -> None:
    """The player's headline ("You won 30 : 20") and a spectator's say the same."""
    if mine.startswith("Draw"):
        assert theirs == mine
        return
    match = re.fullmatch(r"You (won|lost)(?: (\d+) : (\d+))?(.*)", mine)
    assert match is not None, mine
    scores = f" {match[2]} : {match[3]}" if match[2] else ""
    if match[1] == "lost" and match[2]:
        scores = f" {match[3]} : {match[2]}"  # the spectator reads the winner's first
    winner = r"guest \w+" if match[1] == "won" else r"\S+ \(house bot\)"
    assert re.fullmatch(winner + re.escape(f" won{scores}{match[4]}"), theirs), (mine, theirs)


def test_resigning(page: Any, server: dict[str, Any]) -> None:
    start_game(page, server, moves=50)
    wait_phase(page, "choose")
    page.click("#resign")
    assert wait_phase(page, "over") == "over"
    assert page.inner_text("#result h2").startswith("You lost")
    assert "by resignation" in page.inner_text("#result h2")


@BOTH
def test_the_replay_viewer_steps_through_a_stored_game(page: Any, server: dict[str, Any]) -> None:
    game_id = server["games"][0]
    page.goto(f"{server['url']}/#/replay?id={game_id}")
    wait_phase(page, "replay")
    no_overflow(page)
    for control in ("#first", "#prev", "#play", "#next", "#last"):  # all on the screen
        box = page.locator(control).bounding_box()
        assert box is not None and box["x"] + box["width"] <= page.viewport_size["width"], control
    label = page.locator("#frame-label")
    page.focus("#slider")  # a focused slider steps once per arrow key
    page.keyboard.press("ArrowRight")
    assert label.get_attribute("data-index") == "1"
    page.keyboard.press("ArrowLeft")
    assert label.get_attribute("data-index") == "0"
    page.locator("#move-list button[data-frame='5']").click()  # the numbered move list
    assert label.get_attribute("data-index") == "5"
    assert page.get_attribute("#move-list button[data-frame='5']", "aria-current") == "step"
    assert page.locator("#replay-board .last-move").count() >= 1  # the last move, marked
    page.select_option("#speed", "100")  # play at 8x, then pause
    page.click("#play")
    page.wait_for_function("Number(document.getElementById('frame-label').dataset.index) >= 8")
    page.click("#play")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    paused = label.get_attribute("data-index")
    page.click("#prev")
    assert label.get_attribute("data-index") == str(int(paused) - 1)
    for link, starts in (("#download-jsonl", '{"'), ("#download-thesis", "<GameSettings")):
        text = page.evaluate("url => fetch(url).then(r => r.text())", page.get_attribute(link, "href"))
        assert text.startswith(starts), link
    page.click("#first")
    assert label.get_attribute("data-index") == "0"
    assert "Start of the game" in label.inner_text()
    assert page.inner_text("#frame-notes") == ""
    page.click("#next")
    assert label.get_attribute("data-index") == "1"
    assert f"Turn 1 of {2 * MOVES}" in label.inner_text()
    assert page.inner_text("#frame-notes") == "alpha: alpha's debug line"  # next to the move
    page.click("#next")
    assert page.inner_text("#frame-notes") == ""
    page.click("#prev")
    assert label.get_attribute("data-index") == "1"
    page.click("#last")
    assert label.get_attribute("data-index") == str(2 * MOVES)
    assert page.locator("#breakdown").is_visible()
    page.fill("#slider", "4")
    assert label.get_attribute("data-index") == "4"
    no_overflow(page)
    shot(page, "replay")
    page.click("#first")
    assert label.get_attribute("data-index") == "0"


def test_the_replay_viewer_reads_an_uploaded_thesis_log(page: Any, server: dict[str, Any],
                                                        tmp_path: Path) -> None:
    from arena.games.substitution.thesis_log import write_thesis_log

    from .test_api import _played

    path = tmp_path / "game.log"
    # a 1000-turn game, uploaded as the body of one POST
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
    page.expected_console = [r"status of 409 .*/api/grammars"]  # a name saved already: asked
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    # a page of the substitution game's renderer (its `pages`), linked in the header
    page.click("nav a:text('Grammar editor')")
    wait_phase(page, "editor")
    assert page.url.endswith("#/editor")
    assert page.get_attribute("nav a[href='#/editor']", "aria-current") == "page"
    assert page.title().startswith("Grammar editor")
    page.fill("#editor-text", "S->AB\nA->a\nB=>b\n")
    page.wait_for_function("document.body.dataset.checked === 'error'")
    status = page.inner_text("#editor-status")
    assert status.startswith("Line 3:"), status
    assert page.inner_text("#bad-line") == "3 │ B=>b"
    page.fill("#preset-name", "mine")
    assert page.is_disabled("#save")
    shot(page, "editor-error")
    for text, reason in (("S->a\nB->->c\n", "Line 2: a second '->'"),
                         ("S->a||b\n", "Line 1: an empty alternative")):
        page.fill("#editor-text", text)
        page.wait_for_function("reason => document.getElementById('editor-status').innerText"
                               ".startsWith(reason)", arg=reason)
    page.fill("#editor-text", "S->aA\nA->bA\n")  # valid, but no word ever ends
    page.wait_for_function("document.body.dataset.checked === 'warning'")
    assert "no word can ever be finished" in page.inner_text("#grammar-warnings")
    page.fill("#editor-text", "S->AB|aS\nA->a\nB->b\n")
    page.wait_for_function("document.body.dataset.checked === 'ok'")
    page.click("#save")
    page.wait_for_selector("#save-message.ok")
    page.fill("#editor-text", "S->a\n")  # the same name again: asked before it is replaced
    page.wait_for_function("document.getElementById('editor-status').innerText.startsWith('OK: 1 ')")
    page.click("#save")
    page.wait_for_selector("#confirm-yes")
    assert "is saved already" in page.inner_text("#save-message")
    page.click("#confirm-no")
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    assert page.locator("#grammar option[value=mine]").count() == 1
    page.goto(server["url"] + "/#/editor")
    wait_phase(page, "editor")
    page.select_option("#start-from", "mine")
    page.wait_for_function("document.body.dataset.checked === 'ok'")
    assert page.input_value("#editor-text") == "S->AB|aS\nA->a\nB->b\n"  # not replaced
    page.click("#delete")
    page.click("#confirm-yes")
    page.wait_for_selector("#save-message.ok")
    page.wait_for_selector("#start-from option[value=mine]", state="detached")  # the list reloaded


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
    assert re.fullmatch(r"game 0-1-0: (a won|b won|Draw).*", page.inner_text("#cell-games li"))
    page.click("#cell-games a")
    wait_phase(page, "replay")
    page.click("#last")
    assert page.get_attribute("#frame-label", "data-index") == "6"
    page.click("#back-to-table")  # from a game back to its table
    wait_phase(page, "tournament")
    assert page.locator("#cell-games").count() == 1
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    assert page.locator("#leaderboard tr").count() == 3
    assert page.locator("#rating-chart polyline").count() == 2
    shot(page, "ladder")


def test_a_tournament_s_elo_tables(page: Any, server: dict[str, Any]) -> None:
    """The page shows what the runner's JSON says: Elo per bot and per pairing."""
    from arena.tournament import TournamentSpec, run_tournament, to_json

    spec = TournamentSpec("sim", {"vertices": 5}, ("sim-perfect", "sim-random", "sim-mc:trials=5"),
                          4, 1, format="gauntlet")
    result = run_tournament(spec, out=server["tournaments"] / "gauntlet", processes=1)
    data = to_json(result)
    page.goto(server["url"] + "/#/tournament?name=gauntlet/tournament.json")
    wait_phase(page, "tournament")
    rows = page.locator("#tournament-pairings tr")
    assert rows.count() == 1 + 2
    first = data["pairings"][0]
    cells = rows.nth(1).locator("td")
    assert cells.nth(0).inner_text() == "sim-perfect vs sim-random"
    assert cells.nth(2).inner_text() == " · ".join(map(str, first["pentanomial"]))
    assert cells.nth(6).inner_text() == f"{100 * first['los']:.1f}%"
    row = page.locator("#summary tr").nth(1)
    assert row.locator("th").inner_text() == "sim-perfect"
    summary = row.locator("td")  # games, wins, losses, draws, win rate, mean score, Elo, nElo, LOS
    assert summary.nth(8).inner_text() == f"{100 * data['summary']['sim-perfect']['los']:.1f}%"
    shot(page, "tournament-elo")


def test_artifacts_directory_is_ignored_by_git() -> None:
    assert shutil.which("git") is None or "test-artifacts" in (ROOT / ".gitignore").read_text()


# -- every other game: play by hand from the lobby, replay a stored game -----------------------


@BOTH
def test_sim_by_hand(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "sim", choose={"#sim-vertices": "5", "#bot": "sim-random"})
    assert my_turn(page)
    no_overflow(page)
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
    assert page.locator("#result-scores").count() == 0  # Sim's 1 : 0 says nothing
    if result.startswith("Draw"):
        assert red + green == 10 and page.locator("#sim-board .triangle").count() == 0
    else:
        assert result in ("You won", "You lost")
        assert page.locator("#sim-board .triangle").count() == 1
        assert page.locator("#sim-board .edge.losing").count() == 3
        assert "completed the triangle" in page.inner_text("#status-line")
    assert page.locator("#sim-board [data-move]").count() == 0  # nothing to click any more
    no_overflow(page)
    shot(page, "sim-result")


def heap_sizes(page: Any) -> list[int]:
    return [int(size) for size in data_of(page, "#play-area .heap .size", "size")]


@BOTH
def test_heaps_by_hand(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "heaps", choose={"#bot": "heaps-random"})  # task 49932
    assert my_turn(page)
    no_overflow(page)
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
            assert page.locator("#play-area .heap.last-move").count() == 1  # its move, marked
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
    assert page.inner_text("#result h2") in ("You won", "You lost")
    no_overflow(page)
    shot(page, "heaps-result")


def hand(page: Any, seat: int) -> list[int]:
    return [int(card) for card in data_of(page, f"#play-area #hand-{seat} .playing-card", "card")]


@BOTH
def test_durak_by_hand_with_a_spectator(page: Any, browser: Any,
                                        server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "durak", choose={"#durak-deal": "given", "#bot": "durak-greedy"},
                     fill={"#durak-cards": "01101001"})
    assert my_turn(page)
    no_overflow(page)
    assert hand(page, 0) == [1, 4, 6, 7] and hand(page, 1) == [2, 3, 5, 8]
    assert moves_offered(page) == ["lay 1", "lay 4", "lay 6", "lay 7"]
    assert page.locator("#play-area #table .playing-card").count() == 0
    game_id = re.search(r"id=(g[0-9a-f]+)$", page.url)
    assert game_id is not None
    context = browser.new_context(viewport=VIEWPORTS[page.viewport_name])
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
    assert page.inner_text("#result-scores").startswith("payoff (the cards left in the loser's hand")
    no_overflow(page)
    shot(page, "durak-result")
    try:
        watcher.wait_for_selector("#watch-area #result")
        same_result(page.inner_text("#result h2"), watcher.inner_text("#result h2"))
        assert "ran out of cards" in watcher.inner_text("#watch-area #status-line")
        assert watcher.locator("#watch-area .playing-card").count() == 0  # the final position
        shot(watcher, "durak-watch")
    finally:
        context.close()


@BOTH
def test_tiles_by_hand(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "tiles", choose={"#bot": "tiles-random"},
                     fill={"#tiles-count": "12"})
    down: set[int] = set()
    turns = 0
    while turns < 4 and my_turn(page):
        assert page.locator("#tiles-0 .tile").count() == 12
        if turns == 0:  # a phone shows a row of 12 tiles in at most two lines
            tops = {round(box["y"]) for box in page.locator("#tiles-0 .tile").evaluate_all(
                "els => els.map(e => e.getBoundingClientRect().toJSON())")}
            assert len(tops) <= 2, tops
            no_overflow(page)
        assert {int(t) for t in data_of(page, "#tiles-0 .tile.down", "tile")} == down
        x, y = sorted(int(d) for d in data_of(page, "#dice svg", "die"))
        up = set(range(1, 13)) - down
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
        assert page.inner_text("#result-scores").startswith("tiles left face up (fewer is better): You ")
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
        if index == 1 and expected[1]["move"] != "pass":  # the move, marked on the board
            assert page.locator("#replay-board :is(.last-move, .edge.last)").count() >= 1
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
        "Draw" if record.outcome.winner is None else f"{record.players[record.outcome.winner]} won")


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
    page.wait_for_function("document.getElementById('events').innerText.includes('reconnected')")
    assert len(routes) == 2
    assert my_turn(page)  # the server resent the game and our turn
    assert page.locator("#sim-board [data-edge='0 1'].red").count() == 1
    while my_turn(page):  # by vertices: an edge drawn flat has no height to click
        page.locator("#sim-board .vertex.clickable").first.click()
        page.locator("#sim-board .vertex.target").first.click()
    result = page.inner_text("#result h2")
    assert re.match(r"You won|You lost|Draw", result), result
    assert "left" not in result
    shot(page, "play-reconnected")


@BOTH
def test_a_reload_rejoins_the_game(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "sim", choose={"#sim-vertices": "5", "#bot": "sim-random"})
    assert my_turn(page)
    page.click("#sim-board .hit[data-move='0 1']")
    assert my_turn(page)
    address = page.url
    assert re.search(r"#/play\?id=g[0-9a-f]+$", address)
    page.reload()  # the same guest (its cookie), the same game
    assert my_turn(page)
    assert page.url == address
    assert page.locator("#sim-board [data-edge='0 1'].red").count() == 1
    assert page.locator("#log li").count() == 2  # the moves before the reload
    no_overflow(page)
    while my_turn(page):
        page.locator("#sim-board .vertex.clickable").first.click()
        page.locator("#sim-board .vertex.target").first.click()
    result = page.inner_text("#result h2")
    assert re.fullmatch(r"You won|You lost|Draw", result), result  # not lost to the reload
    page.reload()  # after the end: its result, not a new game
    wait_phase(page, "over")
    assert page.inner_text("#result h2") == result
    shot(page, "play-reloaded")


PAGES = ("/", "/bots", "/replay", "/tournaments", "/tournament?name=round-robin/tournament.json&cell=0-1",
         "/ladder", "/editor")


@BOTH
def test_no_page_overflows(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/editor")
    wait_phase(page, "editor")
    page.evaluate("""() => document.getElementById('main').append(Object.assign(
        document.createElement('div'), {id: 'wide', style: 'width: 2000px; height: 1px'}))""")
    assert page.evaluate(OVERFLOW)[0].startswith("the page is")  # the check can fail
    for path in PAGES:
        page.goto(server["url"] + "/#" + path)
        assert settle(page) != "error", path
        no_overflow(page)
    for game_id in (server["games"][0], *(r.id for r in server["others"].values())):
        page.goto(f"{server['url']}/#/replay?id={game_id}")
        wait_phase(page, "replay")
        page.click("#last")
        no_overflow(page)
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    size = page.evaluate("getComputedStyle(document.querySelector('#rating-chart text')).fontSize")
    shown = page.evaluate("""() => { const t = document.querySelector('#rating-chart text');
        return t.getBoundingClientRect().height; }""")
    assert float(size.removesuffix("px")) >= 11 and shown >= 10  # readable on a phone too
    shot(page, "ladder-chart")


@BOTH
def test_a_tournament_started_from_the_browser(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/bots")
    wait_phase(page, "bots")
    no_overflow(page)
    page.select_option("#bots-game", "sim")
    page.select_option("#sim-vertices", "5")
    page.fill("#tournament-bots", "sim-random\nsim-safe-random")
    page.fill("#tournament-games", "3")
    page.click("#start-tournament")
    wait_phase(page, "running", "tournament")
    wait_phase(page, "tournament")  # followed to its table
    assert page.locator("#crosstable th[scope=col]").count() == 3
    summary = page.inner_text("#summary")
    assert "win rate (95% CI)" in summary and "mean score (95% CI)" in summary
    assert re.search(r"\d+\.\d% \(\d+\.\d%–\d+\.\d%\)", summary)
    no_overflow(page)
    shot(page, "tournament-run")
    page.locator("#crosstable td a").nth(1).click()
    page.wait_for_selector("#cell-games li")
    assert page.locator("#cell-games li").count() == 3
    assert re.fullmatch(r"game 0-1-0: (sim-\S+ won|Draw).*", page.locator("#cell-games li").first.inner_text())
    page.locator("#cell-games a").first.click()
    wait_phase(page, "replay")
    page.click("#back-to-table")
    wait_phase(page, "tournament")


def test_two_bots_play_a_game_started_from_the_browser(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/bots")
    wait_phase(page, "bots")
    page.select_option("#bots-game", "heaps")
    page.fill("#bot-first", "heaps-random")
    page.fill("#bot-second", "heaps-perfect")
    page.click("#start-match")
    # A short game may end before the watcher subscribes: the watch page then opens its replay.
    page.wait_for_selector("#watch-area #result, #replay-result")
    result = page.locator("#watch-area #result h2")
    if not result.count():
        assert page.url.startswith(server["url"] + "/#/replay?id=")
        result = page.locator("#replay-result")
    assert re.match(r"heaps-(random|perfect) \(house bot\) won|Draw", result.inner_text())


def test_an_edited_log_shows_the_claim_beside_the_verdict(page: Any, server: dict[str, Any],
                                                          tmp_path: Path) -> None:
    replay_edited_log(page, server, tmp_path)
    assert page.inner_text("#claimed").startswith(("alpha won", "beta won", "Draw"))
    assert page.inner_text("#referee-verdict").startswith("Turn 3 is illegal: alpha played")
    page.click("#last")
    assert page.get_attribute("#frame-label", "data-index") == "2"  # the viewer's turn 2
    assert page.inner_text("#rejected-move").startswith("rejected by the referee")
    assert page.get_attribute("#rejected-move", "value") == "3"
    shot(page, "replay-verdict")


def _colour(page: Any, selector: str) -> tuple[int, int, int]:
    """The colour drawn along an edge, from a screenshot (what the emulation shows)."""
    import io

    from PIL import Image

    points = page.evaluate("""sel => { const el = document.querySelector(sel);
      const m = el.getScreenCTM(); const out = [];
      const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((k) => Number(el.getAttribute(k)));
      for (let t = 0.3; t <= 0.7; t += 0.02) {
        const p = new DOMPoint(x1 + (x2 - x1) * t, y1 + (y2 - y1) * t).matrixTransform(m);
        out.push([Math.round(p.x), Math.round(p.y)]);
      }
      return out; }""", selector)
    image = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    found = [image.getpixel((x, y)) for x, y in points]
    inked = [c for c in found if max(c) - min(c) > 40 or max(c) < 150]  # not paper or grey
    assert inked, (selector, found)
    inked.sort()
    return inked[len(inked) // 2]


def _lab_distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """CIE76 colour difference (about 2.3 is just noticeable)."""
    def lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
        def linear(c: float) -> float:
            c /= 255
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b = (linear(c) for c in rgb)
        x, y, z = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.9505, \
            0.2126 * r + 0.7152 * g + 0.0722 * b, (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.089

        def f(t: float) -> float:
            return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
        return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))
    return float(sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True)) ** 0.5)


def test_sims_colours_survive_red_green_colour_blindness(page: Any, server: dict[str, Any]) -> None:
    record = server["others"]["sim"]
    page.goto(f"{server['url']}/#/replay?id={record.id}")
    wait_phase(page, "replay")
    page.click("#last")
    red, green = "#replay-board .edge.red", "#replay-board .edge.green"
    styles = [page.evaluate(f"getComputedStyle(document.querySelector('{sel}')).strokeDasharray")
              for sel in (red, green)]
    assert styles[0] != styles[1]  # line styles tell them apart as well
    client = page.context.new_cdp_session(page)
    client.send("Emulation.setEmulatedVisionDeficiency", {"type": "deuteranopia"})
    seen = _colour(page, red), _colour(page, green)
    shot(page, "sim-deuteranopia")
    client.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
    normal = _colour(page, red), _colour(page, green)
    assert seen != normal  # the emulation was on
    assert _lab_distance(*seen) > 25, seen  # the old red and green differed by about 10


def test_accessibility_labels_contrast_title_announcements_and_focus(
        page: Any, server: dict[str, Any]) -> None:
    unlabelled = """() => [...document.querySelectorAll('input, select, textarea')].filter((el) =>
      el.type !== 'hidden' && !el.labels?.length && !el.getAttribute('aria-label')
      && !el.getAttribute('aria-labelledby')).map((el) => el.id || el.outerHTML.slice(0, 60))"""
    contrast = """() => {
      const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
      const lum = ([r, g, b]) => [r, g, b].map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; })
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
      const background = (el) => {
        for (let up = el; up; up = up.parentElement) {
          const c = rgb(getComputedStyle(up).backgroundColor);
          if (c.length === 3 || c[3] > 0.9) return c.slice(0, 3);
        }
        return [255, 255, 255];
      };
      const bad = [];
      const walker = document.createTreeWalker(document.getElementById('main'), NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        if (!node.textContent.trim() || !el.getClientRects().length || el.closest('svg, button:disabled, [disabled], option')) continue;
        const style = getComputedStyle(el);
        if (style.visibility === 'hidden' || Number(style.opacity) < 1) continue;
        const [a, b] = [lum(rgb(style.color).slice(0, 3)), lum(background(el))];
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (ratio < 4.5) bad.push(`${node.textContent.trim().slice(0, 30)}: ${ratio.toFixed(2)}`);
      }
      return bad.slice(0, 8);
    }"""
    pages = ("/", "/bots", "/editor", "/ladder", f"/replay?id={server['games'][0]}",
             "/tournament?name=round-robin/tournament.json&cell=0-1",
             f"/replay?id={server['others']['durak'].id}", f"/replay?id={server['others']['tiles'].id}")
    for path in pages:
        page.goto(server["url"] + "/#" + path)
        settle(page)
        assert page.evaluate(unlabelled) == [], path
        assert page.evaluate(contrast) == [], path
    page.evaluate("""() => document.getElementById('main').append(Object.assign(
        document.createElement('p'), {id: 'pale', textContent: 'pale text', style: 'color: #aaa; background: #fff'}),
        Object.assign(document.createElement('input'), {id: 'bare'}))""")
    assert page.evaluate(contrast) == ["pale text: 2.32"]  # the checks can fail
    assert page.evaluate(unlabelled) == ["bare"]
    start_from_lobby(page, server, "sim", seat=1, choose={"#sim-vertices": "5", "#bot": "sim-random"})
    assert my_turn(page)
    assert page.title().startswith("Your turn")
    page.wait_for_function("document.getElementById('announcer').textContent === 'Your turn'")
    assert page.evaluate(unlabelled) == [] and page.evaluate(contrast) == []
    vertex = page.locator("#sim-board .vertex.clickable").first
    number = vertex.get_attribute("data-vertex")
    vertex.focus()
    page.keyboard.press("Enter")  # picks the vertex: the board is drawn again
    page.wait_for_selector("#sim-board .vertex.selected")
    assert page.evaluate("document.activeElement.dataset.vertex") == number  # focus kept
    page.keyboard.press("Escape")


# -- a page of another site (issue 12; issue 11, finding 10) ------------------------------------

ATTACK = """async (arena) => {
  const results = {};
  const send = async (path, body) => {
    try {
      await fetch(arena + path, { method: "POST", mode: "no-cors", credentials: "include",
        headers: { "Content-Type": "text/plain" }, body });
      return "sent";
    } catch (error) { return "failed: " + error; }
  };
  results.guest = await send("/api/guest", "");
  results.grammar = await send("/api/grammars", JSON.stringify({ name: "evil", text: "S->a" }));
  results.image = await new Promise((resolve) => {  // a GET that would change something
    const img = new Image();
    img.onload = img.onerror = () => resolve("loaded");
    img.src = arena + "/api/guest";
  });
  results.ws = await new Promise((resolve) => {
    const ws = new WebSocket(arena.replace("http", "ws") + "/", "arena.v1.json");
    ws.onopen = () => { ws.close(); resolve("open"); };
    ws.onerror = () => resolve("refused");
  });
  return results;
}"""


def _accounts(server: dict[str, Any]) -> list[str]:
    import json

    with urllib.request.urlopen(server["url"] + "/api/bots", timeout=10) as answer:
        return sorted(bot["name"] for bot in json.loads(answer.read())["bots"])


def _presets(server: dict[str, Any]) -> list[str]:
    import json

    with urllib.request.urlopen(server["url"] + "/api/web/options", timeout=10) as answer:
        return [preset["name"] for preset in json.loads(answer.read())["presets"]]


@pytest.fixture
def foreign_site() -> Iterator[str]:
    """A page on another site (localhost, another port) that the attack runs from."""
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>elsewhere</title><p>another site</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{site.server_address[1]}/"
    site.shutdown()
    site.server_close()
    thread.join()


def test_a_page_of_another_site_changes_nothing_and_cannot_open_the_websocket(
        page: Any, server: dict[str, Any], foreign_site: str) -> None:
    before, presets = _accounts(server), _presets(server)
    page.expected_console = [r"status of (403|405|415) .*/api/(guest|grammars)", r"WebSocket .* 403"]
    page.goto(foreign_site)
    results = page.evaluate(ATTACK, server["url"])
    assert results == {"guest": "sent", "grammar": "sent", "image": "loaded", "ws": "refused"}
    assert _accounts(server) == before  # no guest account was made
    assert _presets(server) == presets  # no grammar was saved
    # the same script from the arena's own page: the guest is made, the WebSocket opens
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    results = page.evaluate(ATTACK, server["url"])
    assert results["ws"] == "open"
    assert len(_accounts(server)) == len(before) + 1  # so the check above could fail


def test_a_page_left_before_its_answer_never_draws_over_the_next(page: Any,
                                                                  server: dict[str, Any]) -> None:
    held: list[Any] = []
    page.route("**/api/replay?*", lambda route: held.append(route))  # answered later
    page.goto(f"{server['url']}/#/replay?id={server['games'][0]}")
    page.wait_for_function("document.body.dataset.phase === 'replay-empty'")
    page.goto(server["url"] + "/#/")  # left while its replay is still on its way
    wait_phase(page, "lobby")
    assert len(held) == 1
    with page.expect_response("**/api/replay?*"):
        held[0].continue_()
    page.unroute("**/api/replay?*")
    # the replay's answer comes, and is dropped: a later answer of the lobby still draws
    page.click("#tab-recent")
    page.wait_for_selector("#game-list li")
    assert page.evaluate("document.body.dataset.phase") == "lobby"
    assert page.locator("#viewer").count() == 0 and page.locator("h1").inner_text() == "Lobby"
