"""What a person sees of their hosted bot in the browser ("My bots" on a server that hosts
bots): the upload form, a program that fails to build with its log, one that builds and
becomes the bot's next version and the program it plays; in Russian too."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any

import pytest

from tests.sandbox.conftest import reachable_directory

from .browser import accessible, browser, no_overflow, open_page, visitor, wait_phase
from .live import arena_serve
from .test_browser_accounts import sign_up

__all__ = ["browser", "server", "visitor"]  # the fixtures this module uses


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server that hosts bots and lets people sign up: its URL."""
    base = tmp_path_factory.mktemp("hosting")
    database = base / "arena.sqlite"
    config = base / "arena.toml"  # each test signs people up
    config.write_text("[accounts]\nsignups_per_client_minute = 10\n")
    with reachable_directory("arena-hosting-web-") as hosted:
        with arena_serve("--config", str(config), "--db", str(database), "--signup", "open",
                         "--no-ladder",
                         "--guests-per-client", "1000", "--hosted-dir", str(hosted)) as (url, process):
            yield {"url": url}
        if process.stdout:
            process.stdout.close()


def upload(page: Any, bot: str, name: str, text: str, speaks: str = "lines") -> None:
    page.set_input_files(f"#upload-file-{bot}", files=[
        {"name": name, "mimeType": "text/x-python", "buffer": text.encode()}])
    page.select_option(f"#upload-lang-{bot}", "python")
    page.select_option(f"#upload-speaks-{bot}", speaks)
    page.click(f"form.upload-form[data-bot='{bot}'] button")


def new_bot(page: Any, hosting: str, person: str) -> str:
    """`person` signs up, opens "my bots" and makes the bot ``PERSON-bot``: its card."""
    page.context.add_cookies([sign_up(hosting, person)])
    page.goto(hosting + "/#/mine")
    wait_phase(page, "mine")
    page.fill("#new-bot", f"{person}-bot")
    page.click("#create-bot")
    page.wait_for_selector("#token")
    return f"section.bot[data-bot='{person}-bot']"


def test_a_person_uploads_their_bots_program_and_reads_its_build_log(
        browser: Any, server: dict[str, Any], visitor: dict[str, str]) -> None:
    hosting = server["url"]
    for page in open_page(browser, visitor, "desktop"):
        card = new_bot(page, hosting, "hana")
        assert "20 uploads a day" in page.inner_text("#account-limits")
        assert "No uploads yet." in page.inner_text(card)
        upload(page, "hana-bot", "bot.py", "def broken(:\n")
        page.wait_for_selector(f"{card} table.builds tr[data-status='failed']")
        page.click(f"{card} button.build-log-button")
        page.wait_for_selector(f"{card} pre.build-log:not([hidden])")
        assert "SyntaxError" in page.inner_text(f"{card} pre.build-log")
        upload(page, "hana-bot", "bot.py", "print('pass')\n", "ws")  # a WebSocket program
        page.wait_for_selector(f"{card} table.builds tr[data-status='ok']")
        rows = page.locator(f"{card} table.builds tr").all_inner_texts()
        assert rows[1].split("\t")[1:3] == ["python · WebSocket", "built · playing"], rows
        assert rows[2].split("\t")[1:3] == [
            "python", "failed: The build failed (exit status 1): its log says why."], rows
        page.reload()
        wait_phase(page, "mine")
        assert "Version 2" in page.inner_text(card)  # the build is the bot's next version
        versions = page.locator(f"{card} table.versions tr").all_inner_texts()
        assert versions[2].split("\t")[1].startswith("build ") and "(python)" in versions[2]
        no_overflow(page)
        accessible(page)
    for page in open_page(browser, visitor, "phone", locale="ru-RU"):
        card = new_bot(page, hosting, "gleb")
        assert "Загрузок пока нет." in page.inner_text(card)
        assert page.inner_text(f"{card} form.upload-form button") == "Загрузить и собрать"
        no_overflow(page)
        accessible(page)


def test_upload_refusals_and_failed_builds_read_in_russian(
        browser: Any, server: dict[str, Any], visitor: dict[str, str]) -> None:
    """Why an upload is refused and why a build failed read in the page's language (issue
    28): an empty file, sources that break a rule (their entry named), a program that does
    not compile; no sentence of the server's English is left on the card."""
    hosting = server["url"]
    for page in open_page(browser, visitor, "desktop", locale="ru-RU"):
        card = new_bot(page, hosting, "vera")
        page.expected_console.append("400")  # the refused upload's request
        upload(page, "vera-bot", "bot.py", "")
        page.wait_for_function("() => document.querySelector('#message-vera-bot').textContent")
        assert page.inner_text("#message-vera-bot") == "Файл пуст."
        escaping = io.BytesIO()
        with zipfile.ZipFile(escaping, "w") as archive:
            archive.writestr("../bot.py", "print('out')\n")
        page.set_input_files("#upload-file-vera-bot", files=[
            {"name": "bot.zip", "mimeType": "application/zip", "buffer": escaping.getvalue()}])
        page.click("form.upload-form[data-bot='vera-bot'] button")
        page.wait_for_selector(f"{card} table.builds tr[data-status='failed']")
        upload(page, "vera-bot", "bot.py", "def broken(:\n")
        page.wait_for_function(
            "card => document.querySelectorAll(card + ' table.builds tr[data-status=failed]')"
            ".length === 2", arg=card)
        states = [row.split("\t")[2] for row in
                  page.locator(f"{card} table.builds tr").all_inner_texts()[1:]]
        assert states == [
            "не удался: Сборка не удалась (код завершения 1): причина — в журнале.",
            "не удался: Исходники отклонены: в пути «../bot.py» есть '..'."], states
        page.locator(f"{card} button.build-log-button").first.click()
        page.wait_for_selector(f"{card} pre.build-log:not([hidden])")
        log = page.inner_text(f"{card} pre.build-log")
        assert log.startswith("Сборка не удалась (код завершения 1): причина — в журнале.")
        assert "SyntaxError" in log  # the compiler's own words, as it wrote them
        assert page.locator(f"{card} [lang=en]").count() == 0
        upload(page, "vera-bot", "bot.py", "print('pass')\n")  # a version of its own
        page.wait_for_selector(f"{card} table.builds tr[data-status='ok']")
        page.reload()
        wait_phase(page, "mine")
        versions = page.locator(f"{card} table.versions tr").all_inner_texts()
        note = versions[2].split("\t")[1]
        assert note.startswith("сборка ") and note.endswith(" (python)"), versions
        no_overflow(page)
        accessible(page)
