"""The suite itself: on a machine without a browser it still runs, skipping the browser
tests with a reason (CI installs Chromium and sets ARENA_REQUIRE_BROWSER: no skip there)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROWSER_TESTS = "tests/web/test_browser.py"


def run_browser_tests(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("ARENA_REQUIRE_BROWSER", "ARENA_CHROMIUM", "PYTEST_ADDOPTS")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", "-p", "no:cov",
         BROWSER_TESTS, "tests/test_doctests.py::test_the_packages_have_examples"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300, check=False)


def test_without_chromium_the_browser_tests_are_skipped_with_a_reason(tmp_path: Path) -> None:
    missing = tmp_path / "no-chromium"
    result = run_browser_tests(tmp_path, ARENA_CHROMIUM=str(missing))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"browser tests need Chromium at {missing}" in result.stdout
    assert "1 passed, 1 skipped" in result.stdout  # the rest of the run goes on


def test_without_playwright_the_browser_tests_are_skipped_with_a_reason(tmp_path: Path) -> None:
    shadow = tmp_path / "playwright"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('no Playwright on this machine')\n")
    result = run_browser_tests(tmp_path, PYTHONPATH=str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "browser tests need Playwright (no Playwright on this machine)" in result.stdout
    assert "1 passed, 1 skipped" in result.stdout


def test_when_a_browser_is_required_its_absence_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-chromium"
    result = run_browser_tests(tmp_path, ARENA_REQUIRE_BROWSER="1", ARENA_CHROMIUM=str(missing))
    assert result.returncode != 0
    assert f"no Chromium at {missing}, and ARENA_REQUIRE_BROWSER is set" in result.stdout


SABOTAGE = '''
"""Break what the selected tests check, in the names their modules use."""
import pytest


class LenientMoveString:
    """Reads any text as the empty move: a parser that checks nothing."""

    @staticmethod
    def parse(text):
        from arena.games.substitution.movestring import MoveString
        return MoveString.parse("")


def pytest_configure(config):
    from hypothesis import settings  # the examples found here must not be replayed later
    settings.register_profile("sabotage", database=None)
    settings.load_profile("sabotage")


def pytest_collection_modifyitems(items):
    for module in {item.module for item in items}:
        if hasattr(module, "parse_log"):  # a log reader that accepts everything
            game = module.SubstitutionGame(module.Settings.preset("medium", moves=2))
            valid = module.parse_log(module.to_jsonl(module.random_record(game, 1)))
            module.parse_log = lambda text: valid
        if hasattr(module, "MoveString"):
            module.MoveString = LenientMoveString
'''


def test_the_tests_of_bad_input_fail_when_the_checks_they_test_are_broken(
        tmp_path: Path) -> None:
    """With the log reader accepting anything (or the move reader reading anything as a
    pass), every test that says bad input is refused, or never crashes, must fail: one
    that passed anyway could not fail (as `test_garbage_is_a_log_format_error` once)."""
    (tmp_path / "sabotage.py").write_text(SABOTAGE, encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    environment["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    selected = ["tests/substitution/test_logs.py::test_garbage_is_a_log_format_error",
                "tests/substitution/test_logs.py::test_random_text_never_crashes_the_reader",
                "tests/substitution/test_logs.py::test_random_json_lines_never_crash_validation",
                "tests/test_movestring.py::test_any_text_parses_or_raises_malformed",
                "tests/test_movestring.py::test_malformed_moves_say_why"]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "sabotage", "-p", "no:cacheprovider",
         "-p", "no:cov", "-o", "addopts=", *selected],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600, check=False)
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 1, result.stdout + result.stderr
    assert "passed" not in summary and "error" not in summary, result.stdout
    failed = {line.split(" ", 1)[1].split("[")[0].split(" - ")[0]
              for line in result.stdout.splitlines() if line.startswith("FAILED ")}
    assert failed == set(selected), result.stdout
