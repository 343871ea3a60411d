"""The command line says a log's and settings' reasons in a person's language (issue 28):
``arena --lang ru|en``, else the environment's as gettext reads it, from the catalogue
the pages use (`arena.speech`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import LogFormatError, SettingsError
from arena.registry import default_registry
from arena.speech import Speech, environment_language


@pytest.mark.parametrize(("environ", "lang"), [
    ({}, "en"),
    ({"LANG": "ru_RU.UTF-8"}, "ru"),
    ({"LANG": "de_DE.UTF-8"}, "en"),
    ({"LC_MESSAGES": "ru_RU.UTF-8", "LANG": "en_US.UTF-8"}, "ru"),
    ({"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8"}, "en"),
    ({"LANGUAGE": "de:ru", "LANG": "en_US.UTF-8"}, "ru"),
    ({"LANGUAGE": "ru", "LC_ALL": "C"}, "en"),  # gettext ignores LANGUAGE in the C locale
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LC_ALL": "ru"}, "ru"),
])
def test_the_environment_s_language_is_read_as_gettext_reads_it(environ: dict[str, str],
                                                                  lang: str) -> None:
    assert environment_language(environ) == lang


def _thesis_log(tmp_path: Path) -> tuple[Path, Path, int]:
    """A thesis log the substitution game wrote, a copy broken after its settings, and
    the number of the line broken."""
    good = tmp_path / "good.txt"
    played = CliRunner().invoke(main, ["play", "--moves", "4", "--seed", "7",
                                       "--thesis-log", str(good)], catch_exceptions=False)
    assert played.exit_code == 0, played.output
    lines = good.read_text(encoding="utf-8").splitlines()
    end = next(i for i, line in enumerate(lines) if line.strip().endswith("</GameSettings>"))
    lines[end + 1] = "garbage here"
    broken = tmp_path / "broken.txt"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return good, broken, end + 2


def test_validate_says_why_a_thesis_log_cannot_be_read_in_the_language_asked(
        tmp_path: Path) -> None:
    good, broken, line = _thesis_log(tmp_path)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n", encoding="utf-8")
    paths = [str(good), str(broken), str(empty)]
    runner = CliRunner()
    russian = runner.invoke(main, ["--lang", "ru", "validate", *paths], env={"LANG": "en_US.UTF-8"})
    assert russian.exit_code == 2
    assert russian.output.splitlines() == [
        f"{good}: OK",
        (f"{broken}: UNREADABLE Эту запись нельзя прочитать: строка {line}: ожидалось "
        "«Игрок 1: NAME», а найдено «garbage here»"),
        f"{empty}: UNREADABLE Файл пуст: записи партии в нём нет."]
    english = runner.invoke(main, ["--lang", "en", "validate", *paths], env={"LANG": "ru_RU.UTF-8"})
    assert english.output.splitlines()[1:] == [
        f"{broken}: UNREADABLE line {line}: expected 'Игрок 1: NAME', found 'garbage here'",
        f"{empty}: UNREADABLE the file is empty"]
    # without --lang: the environment's
    from_environment = runner.invoke(main, ["validate", str(broken)],
                                     env={"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "",
                                          "LANG": "ru_RU.UTF-8"})
    assert "строка" in from_environment.output and "expected" not in from_environment.output
    refused = runner.invoke(main, ["--lang", "de", "validate", str(good)])
    assert refused.exit_code == 2 and "'de' is not one of" in refused.output


def test_speech_says_a_code_s_text_or_the_english_without_one() -> None:
    registry = default_registry()
    speech = Speech("ru", {name: registry.game_class(name).web_renderer()
                           for name in registry.games})
    coded = SettingsError("durak settings must be a mapping", code="settings-not-object",
                          params={"game": "durak"})
    assert speech.error(coded) == "Эти настройки не подходят: настройки — объект именованных значений"
    too_short = LogFormatError("the log ends too early", 7, code="thesis-too-short",
                               params={"game": "substitution"})
    assert speech.error(too_short) == "Эту запись нельзя прочитать: строка 7: запись обрывается раньше времени"
    assert speech.error(LogFormatError("the log is empty")) == "the log is empty"  # no code
    assert Speech("en").error(coded) == "durak settings must be a mapping"


def test_the_grammar_commands_say_a_grammar_s_reason_in_the_language_asked(
        tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("S->A\nA a\n", encoding="utf-8")
    runner = CliRunner()
    russian = runner.invoke(main, ["--lang", "ru", "grammar", "check", str(bad)])
    assert russian.exit_code == 1
    assert russian.output.strip() == f"{bad}: Эти настройки не подходят: строка 2: нет «->» в «A a»"
    played = runner.invoke(main, ["--lang", "ru", "play", "--grammar", "nope"])
    assert played.exit_code == 2 and "«nope» — не встроенная грамматика" in played.output
    english = runner.invoke(main, ["--lang", "en", "grammar", "check", str(bad)])
    assert "line 2" in english.output and "строка" not in english.output


def test_a_tournament_s_grammar_and_bots_are_refused_in_the_language_asked(
        tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("S->A\nA a\n", encoding="utf-8")
    runner = CliRunner()
    grammar = runner.invoke(main, ["--lang", "ru", "tournament", "--grammar", str(bad),
                                   "--bots", "random,greedy"])
    assert grammar.exit_code == 2 and "строка 2: нет «->» в «A a»" in grammar.output
    bots = runner.invoke(main, ["--lang", "ru", "tournament", "--bots", "random,nobody:x=1"])
    assert bots.exit_code == 2
    assert "Здесь нет бота «nobody», играющего в игру «Игра в подстановки»" in bots.output


def test_validate_says_the_referee_s_verdict_in_the_language_asked(tmp_path: Path) -> None:
    """An edited log's defect reads as a page says it (its code kept, for scripts)."""
    good, _, _ = _thesis_log(tmp_path)
    lines = good.read_text(encoding="utf-8").splitlines()
    edited = tmp_path / "edited.txt"
    edited.write_text("\n".join("Счёт игрока 0: 999" if line.startswith("Счёт игрока 0:")
                                else line for line in lines) + "\n", encoding="utf-8")
    runner = CliRunner()
    russian = runner.invoke(main, ["--lang", "ru", "validate", str(edited)])
    assert russian.exit_code == 1
    assert russian.output == f"{edited}: INVALID score-mismatch: очки в записи не совпадают с очками судьи\n"
    english = runner.invoke(main, ["--lang", "en", "validate", str(edited)])
    assert english.output.startswith(f"{edited}: INVALID score-mismatch: the log says scores [999, ")
