"""Russian and English (issue 28): a browser whose Accept-Language asks for Russian gets every
page in Russian (no English text of the catalogue, no text left out of it), the thesis's
strategies under their Russian names; the header's switch changes the language and is
remembered; a game without a Russian catalogue stays English."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .a11y_states import LOBBY, PAGES
from .browser import (
    browser,
    my_turn,
    no_overflow,
    open_page,
    replay_edited_log,
    server,
    settle,
    shot,
    start_from_lobby,
    visitor,
    wait_phase,
)

__all__ = ["browser", "server", "visitor"]  # the fixtures this module uses

NAMES = {"Anna", "Boris", "alpha", "beta", "random", "greedy", "JSON", "Lines", "nElo", "LOS", "DIR",
         "strict", "sqrt", "medium", "low", "trap", "classic", "chain"}
"""Latin words a Russian page may show: players' and bots' names, formats, abbreviations."""

LATIN = """names => {
  const found = [];
  const skip = 'code, pre, textarea, option, script, style, [lang=en], [translate=no], .visually-hidden, [hidden]';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest(skip) || !el.getClientRects().length) continue;
    const text = node.data.replace(/'[^']*'|«[^»]*»|“[^”]*”/g, ' ');
    for (const word of text.split(/[^A-Za-z0-9_.:/=|>-]+/)) {  // a token with symbols is notation
      if (!/^[A-Za-z]{2,}$/.test(word) || names.includes(word) || /[a-z][A-Z]/.test(word)) continue;
      found.push(`${word} (in ${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}: ${node.data.trim().slice(0, 60)})`);
    }
  }
  return found.slice(0, 10);
}"""


@pytest.fixture(params=["desktop", "phone"])
def russian(request: pytest.FixtureRequest, browser: Any, visitor: dict[str, str]) -> Iterator[Any]:
    """A page of a browser that asks for Russian (Accept-Language: ru-RU)."""
    yield from open_page(browser, visitor, request.param, locale="ru-RU")


def names_of(page: Any) -> list[str]:
    """The Latin words a Russian page may show: those of NAMES, every bot's name and param."""
    extra = page.evaluate("""() => fetch('/api/web/options').then((r) => r.json()).then((o) => o.games.flatMap(
        (g) => g.bots.flatMap((b) => [b.name, ...b.params.map((p) => p.name), ...b.params.flatMap((p) => p.choices)])))""")
    return sorted(NAMES | {part for name in extra for part in re.split(r"[^A-Za-z]+", str(name)) if part})


def reads_russian(page: Any, names: list[str], where: str) -> None:
    latin = page.evaluate(LATIN, names)
    assert latin == [], (where, latin)
    no_overflow(page)


def test_every_page_in_russian(russian: Any, server: dict[str, Any]) -> None:
    page = russian
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    assert page.evaluate("document.documentElement.lang") == "ru"
    assert page.inner_text("nav a[href='#/']") == "Лобби" and page.inner_text("#start") == "Начать партию"
    names = names_of(page)
    for name in LOBBY:
        page.select_option("#game", name)
        reads_russian(page, names, f"lobby {name}")
    page.select_option("#game", "substitution")
    page.select_option("#bot", "search")  # the thesis's strategies by their Russian names
    assert "Переборная стратегия (search)" in page.inner_text("#bot")
    assert "Глупая стратегия коротких слов (stupid-short-words)" in page.inner_text("#bot")
    shot(page, "lobby-ru")
    for path in (*PAGES, *(f"/howto?game={name}" for name in LOBBY)):
        page.goto(server["url"] + "/#" + path)
        assert settle(page) != "error", path
        reads_russian(page, names, path)
        if path.startswith("/tournament?"):  # the thesis's strategies by their names in words
            assert page.inner_text("#cell-heading") == \
                "Случайная стратегия (random) (первый) против greedy (второй)"
    shot(page, "howto-ru")
    for record in (server["games"][0], *(r.id for r in server["others"].values())):
        for move in (0, 1, 2):
            page.goto(f"{server['url']}/#/replay?id={record}&move={move}")
            wait_phase(page, "replay")
            reads_russian(page, names, f"replay {record} at {move}")
        if record == server["games"][0]:  # a log format's name in words, its game's
            assert page.text_content("#download-thesis") == \
                "протокол в формате программы дипломной работы"
        page.click("#last")
        reads_russian(page, names, f"replay {record} at the end")
    shot(page, "replay-ru")
    for name, choose in LOBBY.items():
        start_from_lobby(page, server, name, choose=choose)
        assert my_turn(page)
        assert page.inner_text("#builder").startswith("Ваш ход") or page.locator("#finish").count()
        said = page.inner_text("main")  # the house bot's strategy by its name in words
        assert "(бот сервера)" in said and f"{choose['#bot']} (" not in said, said
        reads_russian(page, names, f"play {name}")
        shot(page, f"play-{name}-ru")
        page.click("#resign")
        wait_phase(page, "over")
        assert page.inner_text("#result h2").startswith("Вы проиграли")
        reads_russian(page, names, f"over {name}")
    untranslated = page.evaluate("import('/static/ui.js').then((m) => [...m.untranslated])")
    assert untranslated == []  # every text asked for is in the catalogue
    # the checks can fail: English text, a text the catalogue lacks
    page.evaluate("""() => document.getElementById('main').append(Object.assign(
        document.createElement('p'), {textContent: 'Waiting for nobody'}))""")
    assert page.evaluate(LATIN, names) != []
    assert page.evaluate("import('/static/ui.js').then((m) => { m.t('No such text'); return [...m.untranslated]; })") \
        == ["No such text"]


def test_the_language_switch_is_remembered(russian: Any, server: dict[str, Any]) -> None:
    page = russian
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    assert page.inner_text("main h1") == "Рейтинг"
    page.select_option("#lang", "en")  # the page loads again in English
    page.wait_for_function("document.documentElement.lang === 'en'")
    wait_phase(page, "ladder")
    assert page.inner_text("main h1") == "Ladder"
    page.reload()
    wait_phase(page, "ladder")
    assert page.inner_text("main h1") == "Ladder" and page.input_value("#lang") == "en"
    page.select_option("#lang", "ru")
    page.wait_for_function("document.documentElement.lang === 'ru'")
    wait_phase(page, "ladder")
    assert page.inner_text("main h1") == "Рейтинг"


def test_a_game_without_russian_stays_english(russian: Any, server: dict[str, Any]) -> None:
    page = russian
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    shown = page.evaluate("""() => import('/static/ui.js').then((m) => {
      const game = m.localise({ name: 'third-sim', title: 'Third Sim', description: 'Sim from outside',
        bots: [{ name: 'third-random', description: 'Any free edge.', params: [] }] });
      const known = m.localise({ name: 'sim', title: 'Sim', description: '', bots: [] });
      return [game.title, game.description, game.bots[0].label, game.bots[0].description, known.title, [...m.untranslated]]; })""")
    assert shown == ["Third Sim", "Sim from outside", "third-random", "Any free edge.", "Сим", []]


def test_a_refused_setting_reads_in_russian_with_the_rules_words(russian: Any,
                                                                 server: dict[str, Any]) -> None:
    """A grammar the game's rules refuse, on Start: the page's own words lead, the rules'
    reason (from its code) follows in Russian too, and the two are one text (not
    "…,[object …]")."""
    page = russian
    page.expected_console = [r"status of 400 .*/api/settings/check"]  # the refusal shown
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    page.select_option("#grammar", "")
    page.fill("#grammar-text", "S->a||b\n")
    page.wait_for_selector("#grammar-message.error")  # the checker's reason, said from its code
    checked = page.inner_text("#grammar-message")
    assert "пустая альтернатива" in checked and not english_left(page, "#grammar-message"), checked
    page.click("#start")
    wait_phase(page, "lobby-error")
    said = page.inner_text("#lobby-message")
    assert said.startswith("Эти настройки не подходят: ") and "[object" not in said, said
    assert "пустая альтернатива" in said and not english_left(page, "#lobby-message"), said
    reads_russian(page, names_of(page), "a refused setting")


@pytest.mark.parametrize("russian", ["desktop"], indirect=True)
def test_the_lobby_s_refusals_read_in_russian(russian: Any, server: dict[str, Any]) -> None:
    """What the lobby's Start is refused for (POST /api/settings/check): a bot's
    parameter out of its range, a deal the game's rules refuse, a game beyond a guest's
    limits, each said in Russian from its reason code, none of the server's English left."""
    page = russian
    page.expected_console = [r"status of 400 .*/api/settings/check"]  # the refusals shown

    def refused(game: str, choose: dict[str, str], fill: dict[str, str]) -> str:
        page.goto("about:blank")  # the lobby anew
        start_from_lobby(page, server, game, choose=choose, fill=fill)
        wait_phase(page, "lobby-error")
        assert not english_left(page, "#lobby-message"), page.inner_text("#lobby-message")
        reads_russian(page, names_of(page), f"the lobby's refusal ({game})")
        return str(page.inner_text("#lobby-message"))

    said = refused("sim", {"#bot": "sim-mc"}, {"[data-param=trials]": "0"})
    assert said == "Параметр бота trials — не меньше 1 (а не 0).", said
    said = refused("sim", {"#bot": "sim-mc"}, {"[data-param=trials]": "1.5"})
    assert said == "Параметр бота trials — целое число, а не «1.5».", said
    said = refused("durak", {"#durak-deal": "given"}, {"#durak-cards": "0000"})
    assert said == ("Эти настройки не подходят: в раскладе «0000» у одного из игроков нет "
                    "карт: каждому нужна хотя бы одна"), said
    said = refused("durak", {"#durak-deal": "given"}, {"#durak-cards": "01" * 14})
    assert said == ("Одномастка Дурак: карт в раскладе — не больше 24 в партии гостя "
                    "(в этих настройках: 28)."), said


def test_hand_written_heaps_rules_are_refused_in_russian(russian: Any,
                                                         server: dict[str, Any]) -> None:
    """The heaps game's own rules written as JSON (issue 28): a key the rules do not have
    is refused by the server and said in Russian from its code; text that is not JSON is
    refused by the page, which leads the browser's own English words with Russian."""
    page = russian
    page.expected_console = [r"status of 400 .*/api/settings/check"]  # the refusal shown
    rules = '{"heaps": 1, "moves": {"any": ["+1", "*2"]}, "end": {"at_least": 20}, "heap": 2}'
    start_from_lobby(page, server, "heaps", choose={"#heaps-rules": ""},
                     fill={"#heaps-rules-json": rules, "#heaps-start": "3"})
    wait_phase(page, "lobby-error")
    assert page.inner_text("#lobby-message") == (
        "Эти настройки не подходят: в правилах нет ключей heap (их ключи: heaps, end, moves, "
        "min_heap)")
    assert not english_left(page, "#lobby-message")
    page.fill("#heaps-rules-json", '{"heaps": 1, "moves": ')
    page.click("#start")
    page.wait_for_function("() => document.querySelector('#lobby-message').textContent"
                           ".startsWith('правила — не JSON: ')")
    assert page.locator("#lobby-message [lang=en]").count() == 1  # the browser's words
    no_overflow(page)


@pytest.mark.parametrize("russian", ["desktop"], indirect=True)
def test_a_bad_bot_name_on_the_bots_page_reads_in_russian(russian: Any,
                                                          server: dict[str, Any]) -> None:
    """A bot the /bots page names that no bot of the game is, or a spec that cannot be
    read: said in Russian from the refusal's reason code."""
    page = russian
    page.expected_console = [r"status of 400 .*/api/(match|tournaments/run)"]
    page.goto(server["url"] + "/#/bots")
    wait_phase(page, "bots")
    page.select_option("#bots-game", "sim")
    page.fill("#bot-first", "nobody")
    page.click("#start-match")
    page.wait_for_selector("#match-message.error")
    said = page.inner_text("#match-message")
    assert said.startswith("Здесь нет бота «nobody», играющего в игру «Сим» (боты этой игры: "), said
    assert not english_left(page, "#match-message")
    page.fill("#tournament-bots", "sim-random\nsim-mc:=3")
    page.click("#start-tournament")
    page.wait_for_selector("#tournament-message.error")
    said = page.inner_text("#tournament-message")
    assert said == "В «=3» перед «=» не указан параметр.", said
    reads_russian(page, names_of(page), "the bots page's refusals")


ONE_PAGE = pytest.mark.parametrize("russian", ["desktop"], indirect=True)
"""A Russian page at the desktop's size only (what is read does not change with it)."""


def english_left(page: Any, selector: str) -> list[str]:
    """Text marked English (the server's own words) inside `selector`."""
    return list(page.locator(f"{selector} [lang=en]").all_inner_texts())


@ONE_PAGE
def test_the_referees_refusal_reads_in_russian(russian: Any, server: dict[str, Any],
                                               tmp_path: Path) -> None:
    """A move the referee refuses, live (the server's own `move_rejected` for an edge
    coloured twice) and in a replay's verdict on an edited log, and why a substitution
    turn cannot end yet, read in Russian: the rejection's code picks the text, and none of
    the referee's English is left."""
    page = russian
    sent: list[str] = []

    def moves_once_more(route: Any) -> None:  # the page's second move: its first again
        upstream = route.connect_to_server()

        def passed(message: str | bytes) -> None:
            if isinstance(message, str) and '"type":"move"' in message:
                sent.append(message)
                if len(sent) == 2:
                    message = message.replace(re.search(r'"move":"[^"]*"', message)[0],
                                              re.search(r'"move":"[^"]*"', sent[0])[0])
            upstream.send(message)
        route.on_message(passed)

    page.route_web_socket(re.compile(r"^ws://"), moves_once_more)
    start_from_lobby(page, server, "sim", choose=LOBBY["sim"])
    assert my_turn(page)
    names = names_of(page)
    page.click("#sim-board .hit[data-move='0 1']")
    assert my_turn(page)
    page.locator("#sim-board .hit").first.dispatch_event("click")  # sent as "0 1": taken already
    page.wait_for_function("document.getElementById('events').innerText.includes('судья')")
    said = page.inner_text("#events li:first-child")
    assert said == "судья отклонил ход «0 1»: это ребро уже закрашено", said
    assert english_left(page, "#events") == []
    reads_russian(page, names, "a move refused live")
    shot(page, "refused-move-ru")
    if page.locator("#resign:not([disabled])").count():
        page.click("#resign")
    wait_phase(page, "over")

    # every roll is an S group of two alternatives: it must be applied, and by hand
    start_from_lobby(page, server, "substitution", choose={"#grammar": "", "#bot": "random"},
                     fill={"#grammar-text": "S->aS|b\nS->c|d\n"})
    assert my_turn(page)
    assert page.inner_text("#problem") == "выпавшую группу нужно применить"
    assert english_left(page, "#play-area") == []
    reads_russian(page, names, "a turn that cannot end yet")
    page.click("#resign")
    wait_phase(page, "over")

    record = replay_edited_log(page, server, tmp_path)  # an edge coloured twice
    turns = record.turns
    mover = record.players[turns[2].player]
    verdict = page.inner_text("#referee-verdict")
    assert verdict == f"Ход 3 не по правилам: {mover} играет «{turns[0].move}»: это ребро уже закрашено", verdict
    page.click("#last")
    assert page.inner_text("#rejected-move") == (
        f"отклонён судьёй: {mover} играет «{turns[0].move}»: это ребро уже закрашено")
    assert english_left(page, "#viewer") == []
    assert "already" not in page.inner_text("#viewer")  # the referee's English: "is already red"
    reads_russian(page, names, "the verdict on an edited log")
    shot(page, "replay-verdict-ru")
    # a code the page does not know: the server's words, marked English
    unknown = page.evaluate("""() => import('/static/ui.js').then(async (m) => {
      const said = m.rejectionText({ code: 'edge-stolen', message: 'edge 0 1 was stolen', step: null },
        { game: 'sim', renderer: await m.rendererFor('sim'), chance: 'chance', players: ['a', 'b'] });
      const stepped = m.rejectionText({ code: 'not-in-bank', message: 'step 1: group 2 is not in the bank', step: 1 },
        { game: 'substitution', renderer: await m.rendererFor('substitution'), chance: 'roll', players: ['a', 'b'] });
      const rolled = m.rejectionText({ code: 'roll-mismatch', message: 'the roll 2 does not follow' },
        { game: 'substitution', renderer: null, chance: 'roll', players: ['a', 'b'] });
      const aborted = m.resultText({ result: 'aborted', termination: 'aborted', detail: 'the server shut down' }, ['a', 'b']);
      return [said.lang, said.textContent, stepped, rolled, aborted]; })""")
    assert unknown == ["en", "edge 0 1 was stolen", "шаг 2: этой группы нет в банке",
                       "бросок в записи не тот, что даёт зерно партии", "Прервана: сервер остановился"]


@pytest.mark.parametrize("russian", ["desktop"], indirect=True)
def test_a_failed_tournament_reads_in_russian(russian: Any, server: dict[str, Any]) -> None:
    """A run that failed (/api/tournaments/progress's `error_code`, as
    tests/web/test_web_features.py has the server give it) reads in Russian; a code the
    page does not know keeps the server's English, marked lang=en."""
    page = russian
    answers = {"over": {"error_code": "overtime", "error_params": {"seconds": "600"},
                        "error": "it took longer than 600 s, the limit of a tournament from the web"},
               "odd": {"error_code": "something-new", "error_params": {},
                       "error": "something new went wrong"}}

    def progress(route: Any) -> None:
        run_id = route.request.url.rsplit("id=", 1)[1]
        route.fulfill(json={"id": run_id, "status": "failed", "done": 3, "total": 12,
                            "name": None, "game": "sim", "bots": ["sim-random", "sim-perfect"],
                            "games": 3, "ahead": 0, "eta_seconds": None, **answers[run_id]})

    page.route("**/api/tournaments/progress?*", progress)
    page.goto(server["url"] + "/#/run?id=over")
    wait_phase(page, "error")
    said = page.inner_text("#run-status")
    assert said == ("Турнир не удался: он шёл дольше 600 с — предела для турнира из "
                    "веб-интерфейса"), said
    assert not english_left(page, "#run-status")
    reads_russian(page, names_of(page), "a failed tournament")
    page.goto(server["url"] + "/#/run?id=odd")
    page.wait_for_function("document.querySelector('#run-status [lang=en]') !== null")
    assert english_left(page, "#run-status") == ["something new went wrong"]


@pytest.mark.parametrize("russian", ["desktop"], indirect=True)
def test_a_bad_thesis_log_reads_in_russian(russian: Any, server: dict[str, Any],
                                           tmp_path: Path) -> None:
    """A thesis log (its XML settings, its text lines) uploaded to the replay page with a
    defect: why it cannot be read, in Russian, with its line, from the answer's
    reason_code (the game's own words)."""
    from arena.games.substitution.game import SubstitutionGame
    from arena.games.substitution.settings import Settings
    from arena.games.substitution.thesis_log import write_thesis_log

    from .test_api import _played

    page = russian
    page.expected_console = [r"status of 400 .*/api/replay"]
    lines = write_thesis_log(_played(SubstitutionGame(Settings.preset("medium", 3)))).splitlines()
    at = {"xml": lines.index("    <Possibilities>") + 1, "player": lines.index("</GameSettings>") + 4}
    odd = [*lines[:at["xml"]], "      <Oops/>", *lines[at["xml"]:]]
    renamed = [*lines[:at["player"] - 1], "Player 2: b", *lines[at["player"]:]]
    assert lines[at["player"] - 1].startswith("Игрок 2: ")
    defects = [(odd, at["xml"] + 1, "<Oops> внутри <Possibilities>"),
               (renamed, at["player"], "ожидалось «Игрок 2: NAME», а найдено «Player 2: b»")]
    # the arena's own log (read by the server, not a game) and a file no log at all
    defects += [(['{"format": "arena-log"', "{}"], 0, "Строка 1 — не JSON."),
                (["hello"], 0, ("Это не запись, которую арена умеет читать: ни её собственный "
                               "JSON Lines, ни запись одной из её игр."))]
    for number, (log, line, why) in enumerate(defects):
        said = f"Эту запись нельзя прочитать: строка {line}: {why}" if line else why
        path = tmp_path / f"bad{number}.log"
        path.write_text("\n".join(log) + "\n", encoding="utf-8")
        page.goto("about:blank")
        page.goto(server["url"] + "/#/replay")
        wait_phase(page, "replay-empty")
        page.set_input_files("#upload", str(path))
        page.wait_for_selector("#viewer .error")
        shown = page.inner_text("#viewer .error")
        assert shown == said, shown
        assert not english_left(page, "#viewer")


@pytest.mark.parametrize("russian", ["desktop"], indirect=True)
def test_the_grammar_editor_s_refusals_read_in_russian(russian: Any, server: dict[str, Any]) -> None:
    """Saving or deleting a preset the server refuses (a built-in preset's name): why, in
    Russian, from the answer's reason code; none of the server's English left."""
    page = russian
    page.expected_console = [r"status of 400 .*/api/grammars"]
    page.goto(server["url"] + "/#/editor")
    wait_phase(page, "editor")
    page.fill("#editor-text", "S->AB|aS\nA->a\nB->b\n")
    page.wait_for_function("document.body.dataset.checked === 'ok'")
    page.fill("#preset-name", "medium")
    page.click("#save")
    page.wait_for_selector("#save-message.error")
    said = page.inner_text("#save-message")
    assert said.endswith("«medium» — встроенный набор: дайте сохраняемому другое имя"), said
    assert not english_left(page, "#save-message")
