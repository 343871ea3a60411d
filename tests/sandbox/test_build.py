"""Builds (`arena.sandbox.build`): every language's recipe, run in the sandbox, makes a
bot that passes validation games hosted; a failed build says why with its log; every
build limit holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bot_check import check_program
from arena.clock import TimeControl
from arena.registry import default_registry
from arena.sandbox.build import LANGS, BuildError, build_bot, find_entry
from arena.sandbox.manifest import LOG, MANIFEST, load_build
from arena.sandbox.spec import BuildLimits

from .conftest import BOTS, ROOT

pytestmark = pytest.mark.usefixtures("no_leftovers")

SOURCES = {
    "python": BOTS / "python", "c": ROOT / "examples" / "c", "cpp": BOTS / "cpp",
    "js": BOTS / "js", "go": BOTS / "go", "java": BOTS / "java",
    "binary": ROOT / "examples" / "perl" / "greedy_bot.pl",
}
"""A line-protocol bot per language: the fixtures, and the starter kits that speak lines
(the C kit, and the Perl kit as a program with a '#!' line), unchanged."""


def test_every_language_has_a_bot_to_build() -> None:
    assert set(SOURCES) == set(LANGS)


@pytest.mark.parametrize("lang", sorted(SOURCES))
def test_each_language_builds_and_passes_validation_games_hosted(builds: Path, lang: str) -> None:
    out = builds / f"lang-{lang}"
    result = build_bot(SOURCES[lang], lang, out)
    assert result.bot == load_build(out)
    assert (out / LOG).read_text() == result.log
    registry = default_registry()
    settings = {name: registry.cli_settings(name, {}) or {} for name in ("sim", "substitution")}
    report = check_program(registry, f"hosted:{out}", settings, games=2,
                           time_control=TimeControl(move_ms=5000, first_move_ms=20_000))
    assert report.passed, report.verdict() + "".join(
        f"\n{game.failure}: {game.notes()[-5:]}" for game in report.games if game.failure)


def test_a_build_that_fails_keeps_its_log_and_no_manifest(builds: Path, tmp_path: Path) -> None:
    source = tmp_path / "broken.c"
    source.write_text("int main(void) { return undeclared; }\n")
    out = builds / "broken"
    with pytest.raises(BuildError, match="exit status 1") as failure:
        build_bot(source, "c", out)
    assert "'undeclared' undeclared" in failure.value.log or "undeclared" in failure.value.log
    assert (out / LOG).read_text() == failure.value.log
    assert (failure.value.code, failure.value.params) == ("build-exit", {"status": 1})
    assert not (out / MANIFEST).exists()
    with pytest.raises(BuildError, match="exit status 1"):  # a failed build may be replaced
        build_bot(source, "c", out)


def test_a_build_over_its_time_is_killed(builds: Path, tmp_path: Path) -> None:
    source = tmp_path / "forever.c"
    source.write_text('#include "/dev/zero"\n')  # the compiler reads for ever
    with pytest.raises(BuildError, match="took more than 2 s|memory limit") as failure:
        build_bot(source, "c", builds / "forever", limits=BuildLimits(wall_seconds=2))
    assert failure.value.code in ("build-overtime", "build-memory")  # a page's words for it
    if failure.value.code == "build-overtime":
        assert failure.value.params == {"seconds": 2}


def test_a_result_over_its_size_is_refused(builds: Path, tmp_path: Path) -> None:
    source = tmp_path / "big.c"
    source.write_text("char big[4 << 20] = {1};\nint main(void) { return big[0]; }\n")
    with pytest.raises(BuildError, match="larger than 1 MiB|more than 1 MiB") as failure:
        build_bot(source, "c", builds / "big", limits=BuildLimits(output_bytes=1 << 20))
    assert failure.value.code in ("build-result-large", "build-result-refused")


def test_a_flood_of_compiler_messages_is_cut_in_the_middle(builds: Path, tmp_path: Path) -> None:
    source = tmp_path / "noisy.c"
    source.write_text("".join(f"int f{i}(void) {{ return x{i}; }}\n" for i in range(3000)))
    with pytest.raises(BuildError) as failure:
        build_bot(source, "c", builds / "noisy", limits=BuildLimits(log_bytes=8192))
    log = failure.value.log
    assert "bytes of the log cut" in log
    assert len(log.encode()) < 8192 + 200
    assert "x0" in log.split("[...")[0] and "exit status 1" in log.split("...]")[1]


@pytest.mark.parametrize(("lang", "files", "message", "code"), [
    ("python", {"a.py": "", "b.py": ""}, "2 candidates", "entry-ambiguous"),
    ("python", {"README": ""}, "no bot.py", "no-entry"),
    ("java", {"not-a-class.java": ""}, "not the name of a Java class", "not-a-java-class"),
    ("go", {"sub/main.go": ""}, "at the top", "no-source-file"),
    ("c", {"bot.py": ""}, r"no \*.c file", "no-source-file"),
    ("binary", {"a": "", "b": ""}, "2 candidates", "entry-ambiguous"),
    ("cobol", {"bot.cob": ""}, "unknown language 'cobol'", "upload-lang"),
])
def test_an_entry_that_cannot_be_found_is_named(tmp_path: Path, lang: str,
                                                 files: dict[str, str], message: str,
                                                 code: str) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    with pytest.raises(BuildError, match=message) as failure:
        find_entry(tmp_path, lang)
    assert failure.value.code == code  # a page's words for it


def test_a_binary_must_be_a_program(builds: Path, tmp_path: Path) -> None:
    (tmp_path / "bot").write_text("print('no #! line')\n")
    with pytest.raises(BuildError, match="not a program"):
        build_bot(tmp_path / "bot", "binary", builds / "not-a-program")


def test_an_output_directory_that_is_not_a_build_is_never_replaced(builds: Path,
                                                                   tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(BuildError, match="not an earlier build"):
        build_bot(BOTS / "python", "python", precious)
    assert (precious / "thesis.tex").read_text() == "years of work"
