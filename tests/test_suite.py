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
