"""Strict tooling is part of the suite: ruff, mypy --strict and the import-linter layers."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


PACKAGES = ("arena", "bots", "protocol", "clients")
"""The root packages of the import-linter contracts (pyproject.toml)."""


def run(*command: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


def test_ruff() -> None:
    result = run(sys.executable, "-m", "ruff", "check", "arena", "protocol", "bots", "clients", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict() -> None:
    result = run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def _lint_imports(cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """lint-imports on the packages found in `cwd` (it puts `cwd` first on sys.path),
    with the contracts of `cwd`'s pyproject.toml."""
    return run(str(Path(sys.executable).parent / "lint-imports"), "--no-cache", "--no-logo",
               cwd=cwd)


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the Python sources and the contracts: the tests that plant a violation
    plant it there, never in the checkout, which the tests running alongside (ruff, mypy,
    the doctests, the build; pytest -n) read at the same time."""
    copy = tmp_path_factory.mktemp("sources")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def test_the_layers_contract_holds() -> None:
    """The import-linter contracts in pyproject.toml: games never import bots, the match
    loop or the server; generic layers never name a game; the core and the protocol never
    import what is built on them; bots never import the tournaments, and nothing imports
    the experiments; the server and the web never import each other (arena.app wires
    them, and alone starts the port, arena.server.dispatch), and the web reaches the
    server through arena.service alone."""
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


TYPE_CHECKING_ONLY = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import {}\n"
"""A planted import of types only: it counts too (exclude_type_checking_imports = false)."""


@pytest.mark.parametrize("where, module, imported, text", [
    ("arena/games", "arena.games", "bots.sim.plugin", "import {}\n"),  # a game that imports a bot
    ("bots", "bots", "arena.tournament.report", "import {}\n"),  # a bot importing tournaments
    ("arena/tournament", "arena.tournament", "arena.experiments.thesis",
     "import {}\n"),  # an import circle
    # the server and the web are wired by arena.app alone; the web uses arena.service
    ("arena/server", "arena.server", "arena.web.routes", TYPE_CHECKING_ONLY),
    ("arena/web", "arena.web", "arena.server.live", TYPE_CHECKING_ONLY),
    ("arena/web", "arena.web", "arena.storage.sqlite", "import {}\n"),  # a concrete storage
    # the one port is the composition root's: the server core does not know it
    ("arena/server", "arena.server", "arena.server.dispatch", TYPE_CHECKING_ONLY),
])
def test_the_layers_contract_catches_an_import_across_the_layers(
    where: str, module: str, imported: str, text: str, sources: Path
) -> None:
    planted = sources / where / "_planted_layer_violation.py"
    planted.write_text(text.format(imported), encoding="utf-8")
    try:
        result = _lint_imports(sources)
    finally:
        planted.unlink()
    assert result.returncode != 0
    assert f"{module}._planted_layer_violation -> {imported}" in result.stdout
