"""What a person sees challenging a bot with one of their own, in a real Chromium: the
form on "My bots" for a connected bot only, the challenge's state as it changes, the
links to its two games once accepted, the reason once declined; in Russian too."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from arena.errors import ArenaError, SettingsError
from arena.server.challenges import Challenge
from arena.service import ChallengeError
from arena.storage.sqlite import SQLiteDatabase
from clients import ArenaClient, BuiltinBot

from .browser import accessible, browser, no_overflow, open_page, shot, visitor, wait_phase
from .live import arena_serve, bots_in_background
from .test_browser_accounts import sign_up

__all__ = ["browser", "server", "visitor"]  # the fixtures this module uses


def _new_bot(url: str, cookie: dict[str, str], name: str) -> str:
    """A bot of the person whose session `cookie` is: its token."""
    request = urllib.request.Request(
        url + "/api/account/bots", method="POST", data=json.dumps({"name": name}).encode(),
        headers={"Content-Type": "application/json",
                 "Cookie": f"{cookie['name']}={cookie['value']}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)["token"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with its default (rated) ladder, people signing up freely, and two
    connected bots out of the pairing: alpha accepting every challenge, carol none; ann
    (signed up) has ann-bot, connected, and ann-off, not."""
    base = tmp_path_factory.mktemp("account-challenge")
    database = SQLiteDatabase(base / "arena.sqlite")
    tokens = {"alpha": database.add_bot("alpha"), "carol": database.add_bot("carol")}
    database.close()
    with arena_serve("--db", str(base / "arena.sqlite"), "--signup", "open",
                     "--guests-per-client", "1000") as (url, process):
        cookie = sign_up(url, "ann")
        tokens["ann-bot"] = _new_bot(url, cookie, "ann-bot")
        _new_bot(url, cookie, "ann-off")
        url_ws = "ws" + url.removeprefix("http") + "/"
        accept = {"alpha": "auto", "carol": "decline", "ann-bot": "decline"}
        clients = [ArenaClient(url_ws, tokens[name], BuiltinBot("random"),
                               accept={"mode": accept[name]}, seek=False, reconnect_delay=0.05)
                   for name in accept]
        with bots_in_background(clients):
            yield {"url": url, "cookie": cookie}
    if process.stdout:
        process.stdout.close()


def test_a_person_challenges_a_bot_with_their_own(browser: Any, server: dict[str, Any],
                                                  visitor: dict[str, str]) -> None:
    for page in open_page(browser, visitor, "desktop"):
        page.context.add_cookies([server["cookie"]])
        page.goto(server["url"] + "/#/mine")
        wait_phase(page, "mine")
        # a connected bot has the form; one not connected has none
        assert page.locator("form.challenge-form").count() == 1
        form = page.locator("form.challenge-form[data-bot='ann-bot']")
        assert "Challenge a bot with ann-bot" in form.inner_text()
        assert not form.locator(".challenge-rated").is_disabled()  # the ladder is rated
        form.locator(".challenge-opponent").fill("alpha")
        form.locator(".challenge-rated").check()
        form.locator("button[type=submit]").click()
        page.wait_for_selector("form.challenge-form .challenge-status[data-status='accepted']")
        status = form.locator(".challenge-status")
        assert status.inner_text().startswith("Challenge to alpha: accepted")
        links = status.locator("a")
        assert links.count() == 2
        assert all(link.get_attribute("href").startswith("#/watch?id=")
                   for link in links.all())
        accessible(page)
        no_overflow(page)
        shot(page, "my-bots-challenge")
        form.locator(".challenge-opponent").fill("carol")
        form.locator("button[type=submit]").click()
        page.wait_for_selector("form.challenge-form .challenge-status[data-status='declined']")
        assert status.inner_text() == (
            "Challenge to carol: declined (the bot declines challenges)")
        assert status.locator("a").count() == 0
        form.locator(".challenge-opponent").fill("ann-bot")
        page.expected_console.append("409")  # the refused challenge's request
        form.locator("button[type=submit]").click()
        page.wait_for_function("() => !document.querySelector('.challenge-status')"
                               ".dataset.status")
        assert "cannot challenge itself" in status.inner_text()


def test_the_challenge_form_speaks_russian(browser: Any, server: dict[str, Any],
                                          visitor: dict[str, str]) -> None:
    for page in open_page(browser, visitor, "phone", locale="ru-RU"):
        page.context.add_cookies([server["cookie"]])
        page.goto(server["url"] + "/#/mine")
        wait_phase(page, "mine")
        form = page.locator("form.challenge-form[data-bot='ann-bot']")
        assert "Вызвать бота ботом ann-bot" in form.inner_text()
        assert "Соперник (имя бота)" in form.inner_text()
        no_overflow(page)


def test_the_servers_refusals_read_in_russian(browser: Any, server: dict[str, Any],
                                              visitor: dict[str, str]) -> None:
    """Refusals of the server read in the page's language (issue 28): a challenge to a bot
    that is not connected, one to the challenger itself, a sign-in with a wrong password;
    no English sentence of the server is left (the refusals' params fill the names in)."""
    for page in open_page(browser, visitor, "desktop", locale="ru-RU"):
        page.context.add_cookies([server["cookie"]])
        page.goto(server["url"] + "/#/mine")
        wait_phase(page, "mine")
        form = page.locator("form.challenge-form[data-bot='ann-bot']")
        status = "form.challenge-form[data-bot='ann-bot'] .challenge-status"
        shows = "([selector, text]) => document.querySelector(selector).textContent === text"
        for opponent, said in [
                ("nobody-here", "Бот nobody-here не подключён: сейчас он не может принять вызов."),
                ("ann-bot", "Бот не может вызвать сам себя.")]:
            form.locator(".challenge-opponent").fill(opponent)
            page.expected_console.append("409")  # the refused challenge's request
            form.locator("button[type=submit]").click()
            page.wait_for_function(shows, arg=[status, said])
            assert page.locator(status + " [lang=en]").count() == 0  # no server words left over
        form.locator(".challenge-opponent").fill("carol")  # declines by its policy: why, in Russian
        form.locator("button[type=submit]").click()
        page.wait_for_selector(status + "[data-status='declined']")
        assert page.inner_text(status) == "Вызов carol: отклонён (бот отклоняет вызовы)"
        assert page.locator(status + " [lang=en]").count() == 0
        no_overflow(page)
        page.context.clear_cookies()
        page.goto(server["url"] + "/#/account")
        wait_phase(page, "account")
        page.fill("#signin-name", "ann")
        page.fill("#signin-password", "not the password")
        page.expected_console.append("401")  # the refused sign-in's request
        page.click("#signin")
        page.wait_for_selector("#signin-message.error")
        assert page.inner_text("#signin-message") == "Войти не удалось: неверное имя или пароль."


def _failed_status(challenger: str, opponent: str,
                   error: ArenaError | None = None) -> dict[str, Any]:
    """A challenge's status as the server gives it once an acceptance failed because the
    opponent was busy by then (`Challenge.status_fields`, with the refusal's code), or
    for `error`."""
    error = error or ChallengeError(
        "bad-challenge", f"bot {opponent!r} plays 4 games already; a pairing needs room "
        "for two (at most 4 at once)", reason="bot-busy", bot=opponent, count=4, limit=4)
    ended = Challenge("c0123456789ab", challenger, opponent, False, 0.0, ladder="sim",
                      status="failed", reason=str(error), error_code=error.code,
                      error_params=dict(error.params))
    return ended.status_fields()


def _failed_as(page: Any, server: dict[str, Any], mine: dict[str, Any],
               lobby: dict[str, Any]) -> tuple[str, str]:
    """What a Russian page says of a failed challenge: on "My bots" (ann-bot's challenge,
    answered with the status `mine`) and in the lobby (a guest's, answered `lobby`);
    neither with English left."""
    page.context.add_cookies([server["cookie"]])
    page.route("**/api/account/bots/ann-bot/challenges", lambda route: route.fulfill(json=mine))
    page.goto(server["url"] + "/#/mine")
    wait_phase(page, "mine")
    status = "form.challenge-form[data-bot='ann-bot'] .challenge-status"
    form = page.locator("form.challenge-form[data-bot='ann-bot']")
    form.locator(".challenge-opponent").fill("alpha")
    form.locator("button[type=submit]").click()
    page.wait_for_selector(status + "[data-status='failed']")
    assert page.locator(status + " [lang=en]").count() == 0
    account = page.inner_text(status)
    page.context.clear_cookies()
    page.route("**/api/challenges", lambda route: route.fulfill(json=lobby))
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    page.locator("button.challenge[data-bot='alpha']").click()
    page.wait_for_selector("#main .error")
    assert page.locator("#main .error [lang=en]").count() == 0
    return account, page.inner_text("#main .error")


def test_a_challenge_that_failed_reads_in_russian(browser: Any, server: dict[str, Any],
                                                  visitor: dict[str, str]) -> None:
    """Why an accepted challenge failed reads in the page's language from its code (issue
    28): on the account page and in the lobby's challenge, no English left. (A failure on
    acceptance is a race of the server's; the page is given the status the server sends.)"""
    for page in open_page(browser, visitor, "desktop", locale="ru-RU"):
        said = ("Бот alpha уже играет партий: 4; для вызова нужно место ещё для двух "
                "(не больше 4 одновременно).")
        assert _failed_status("ann-bot", "alpha")["error_params"]["reason"] == "bot-busy"
        account, lobby = _failed_as(page, server, _failed_status("ann-bot", "alpha"),
                                    _failed_status("guest-0", "alpha"))
        assert account == f"Вызов alpha: не удался ({said})"
        assert lobby == f"alpha не принял вызов: {said}"
        no_overflow(page)


def test_a_challenge_that_failed_for_its_games_reasons_reads_in_russian(
        browser: Any, server: dict[str, Any], visitor: dict[str, str]) -> None:
    """A challenge that failed for a reason of its game's own (a code of the game's
    `settingsReasons`, the game named in its params) reads in the game's Russian words on
    the account page; one whose games could not start for a reason without a code
    (``start-failed``) in the page's words in the lobby: no English left (issue 28)."""
    over = SettingsError("heaps generator: every start drawn in start [9, 9] is over already: "
                         "give smaller heaps or a larger target", code="generator-over",
                         params={"low": 9, "high": 9, "game": "heaps"})
    for page in open_page(browser, visitor, "desktop", locale="ru-RU"):
        account, lobby = _failed_as(page, server, _failed_status("ann-bot", "alpha", over),
                                    _failed_status("guest-0", "alpha", ChallengeError(
                                        "start-failed", "the server is not running")))
        assert account == (
            "Вызов alpha: не удался (Эти настройки не подходят: каждая начальная позиция, "
            "которую генератор вытянул от 9 до 9, уже достигла цели: задайте кучи поменьше "
            "или цель побольше)")
        assert lobby == (
            "alpha не принял вызов: Сервер не смог начать партии: вызовите ещё раз через минуту.")
