"""What a person sees of their account in the browser: signing up, their bots, a token
shown once and replaced, a new version in the versions' table, a game's own debug lines
(never the opponent's), signing out; the pages read well, pass axe-core and speak
Russian too."""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.game import Outcome, Termination
from arena.record import MatchRecord, Note
from arena.storage.sqlite import SQLiteDatabase

from .browser import accessible, browser, no_overflow, open_page, shot, visitor, wait_phase
from .live import arena_serve

__all__ = ["browser", "server", "visitor"]  # the fixtures this module uses

PASSWORD = "a long enough secret"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("accounts")
    database = base / "arena.sqlite"
    SQLiteDatabase(database).close()
    with arena_serve("--db", str(database), "--signup", "open", "--no-ladder",
                     "--guests-per-client", "1000") as (url, process):
        yield {"url": url, "db": database}
    if process.stdout:
        process.stdout.close()


def store_game(database: Path, bot: str, rival: str = "house:sim-random") -> str:
    """A finished game of `bot` against `rival` with a debug line of each seat."""
    game_id = f"g{random.randrange(10**9)}"
    record = MatchRecord(game="sim", settings={"vertices": 5}, players=(bot, rival), turns=(),
                         outcome=Outcome(0, None, Termination.NORMAL), seed=1, id=game_id,
                         notes=(Note(0, 0, "my own line"), Note(0, 1, "the rival's secret")))
    storage = SQLiteDatabase(database)
    try:
        storage.start_game(MatchRecord(game="sim", settings={"vertices": 5}, players=(bot, rival),
                                       turns=(), outcome=None, seed=1, id=game_id),
                           ladder=False, pair=None)
        storage.finish_game(record)
    finally:
        storage.close()
    return game_id


def owner_of(database: Path, token: str) -> str | None:
    storage = SQLiteDatabase(database)
    try:
        account = storage.authenticate(token)
        return None if account is None else account.owner
    finally:
        storage.close()


def test_a_person_signs_up_makes_a_bot_and_reads_its_versions_and_debug_lines(
        browser: Any, server: dict[str, Any], visitor: dict[str, str]) -> None:
    for page in open_page(browser, visitor, "desktop"):
        page.goto(server["url"] + "/#/mine")
        wait_phase(page, "signed-out")
        assert "Sign in to see your bots." in page.inner_text("main")
        page.click("main a[href='#/account']")
        wait_phase(page, "account")
        no_overflow(page)
        accessible(page)
        page.fill("#signup-name", "ann")
        page.fill("#signup-password", PASSWORD)
        page.click("#signup")
        wait_phase(page, "mine")
        assert page.inner_text("#signed-in").startswith("Signed in as ann.")
        assert page.inner_text("#no-bots") == "You have no bots yet."
        page.fill("#new-bot", "ann-bot")
        page.click("#create-bot")
        page.wait_for_selector("#token")
        token = page.inner_text("#token")
        assert "shown once" in page.inner_text("#token-box")
        assert owner_of(server["db"], token) == "ann"
        store_game(server["db"], "ann-bot")
        page.fill("#note-ann-bot", "deeper search")
        page.click("form.version-form[data-bot='ann-bot'] button")
        page.wait_for_function("() => document.querySelectorAll('table.versions tr').length === 3")
        rows = page.locator("table.versions tr").all_inner_texts()
        assert rows[1].split("\t")[:4] == ["1", "", "1", "0"]  # version 1 played the game
        assert rows[2].split("\t")[:2] == ["2", "deeper search"]
        assert "Version 2" in page.inner_text("section.bot[data-bot='ann-bot']")
        played = page.locator("table.games tr").nth(1).inner_text().split("\t")
        assert played[3] == "ann-bot won"
        assert played[1] == "ann-bot vs sim-random (house bot)"  # no raw account name
        page.click("button.debug")
        page.wait_for_selector("pre.debug-lines:not([hidden])")
        lines = page.inner_text("pre.debug-lines")
        assert lines == "turn 0: my own line" and "secret" not in lines
        no_overflow(page)
        accessible(page)
        shot(page, "my-bots")
        page.click("button.rotate[data-bot='ann-bot']")
        page.wait_for_function("old => { const box = document.getElementById('token');"
                               " return box && box.textContent !== old; }", arg=token)
        assert owner_of(server["db"], token) is None  # the old token stopped working
        assert owner_of(server["db"], page.inner_text("#token")) == "ann"
        page.click("#signout")
        wait_phase(page, "account")
        page.goto(server["url"] + "/#/mine")
        wait_phase(page, "signed-out")
        page.goto(server["url"] + "/#/account")
        wait_phase(page, "account")
        page.fill("#signin-name", "ann")
        page.fill("#signin-password", "not the password")
        page.expected_console.append("401")  # the refused sign-in's request
        page.click("#signin")
        page.wait_for_selector("#signin-message.error")
        assert "wrong name or password" in page.inner_text("#signin-message")
        page.fill("#signin-password", PASSWORD)
        page.click("#signin")
        wait_phase(page, "mine")
        assert page.locator("section.bot").count() == 1


def sign_up(url: str, name: str) -> dict[str, str]:
    """A new person, signed up over HTTP: their session cookie, for a browser context."""
    request = urllib.request.Request(
        url + "/api/account/signup", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"name": name, "password": PASSWORD}).encode())
    with urllib.request.urlopen(request, timeout=30) as answer:
        cookie, _, value = answer.headers["Set-Cookie"].split(";")[0].partition("=")
    return {"name": cookie, "value": value, "url": url, "httpOnly": True, "sameSite": "Strict"}


def test_the_account_pages_speak_russian_on_a_phone(browser: Any, server: dict[str, Any],
                                                    visitor: dict[str, str]) -> None:
    for page in open_page(browser, visitor, "phone", locale="ru-RU"):
        page.goto(server["url"] + "/#/account")
        wait_phase(page, "account")
        assert page.inner_text("#signin-title") == "Войти"
        assert page.inner_text("#signup-title") == "Зарегистрироваться"
        assert "Мои боты" in page.inner_text("header nav")
        no_overflow(page)
        page.context.add_cookies([sign_up(server["url"], "boris")])
        page.goto(server["url"] + "/#/mine")
        wait_phase(page, "mine")
        assert page.inner_text("#no-bots") == "У вас пока нет ботов."
        page.expected_console = [r"status of 400 .*/api/account/bots"]  # the refusals shown
        refusals = [("my bot!", ("Имя «my bot!» не подходит: в имени от 1 до 40 латинских "
                                 "букв, цифр, «_», «.» или «-», и начинается оно с буквы или "
                                 "цифры.")),
                    ("house:mine", ("Имена, начинающиеся с house:, зарезервированы для "
                                    "учётных записей самого сервера: выберите другое."))]
        for bad, said in refusals:
            page.fill("#new-bot", bad)
            page.click("#create-bot")
            page.wait_for_function("(said) => document.querySelector('#create-message')"
                                   ".innerText === said", arg=said)
            assert page.locator("#create-message.error [lang=en]").count() == 0
        page.fill("#new-bot", "boris-bot-with-a-long-name")
        page.click("#create-bot")
        page.wait_for_selector("#token")
        assert "показывается один раз" in page.inner_text("#token-box")
        assert "Версия 1" in page.inner_text("section.bot")
        no_overflow(page)  # the token, the tables: nothing sticks out of a phone's screen
        accessible(page)
        shot(page, "my-bots-ru")
