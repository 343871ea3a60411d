"""Strict tooling is part of the suite: ruff, mypy --strict and the import-linter layers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_ruff() -> None:
    result = run(sys.executable, "-m", "ruff", "check", "arena", "protocol", "bots", "clients", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict() -> None:
    result = run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def _lint_imports() -> subprocess.CompletedProcess[str]:
    return run(str(Path(sys.executable).parent / "lint-imports"), "--no-cache", "--no-logo")


def test_the_layers_contract_holds() -> None:
    """The import-linter contracts in pyproject.toml: games never import bots, the match
    loop or the server; generic layers never name a game; the core and the protocol never
    import what is built on them; bots never import the tournaments, and nothing imports
    the experiments; the server and the web never import each other (arena.app wires
    them), and the web reaches the server through arena.service alone."""
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
])
def test_the_layers_contract_catches_an_import_across_the_layers(
    where: str, module: str, imported: str, text: str
) -> None:
    planted = ROOT / where / "_planted_layer_violation.py"
    planted.write_text(text.format(imported), encoding="utf-8")
    try:
        result = _lint_imports()
    finally:
        planted.unlink()
    assert result.returncode != 0
    assert f"{module}._planted_layer_violation -> {imported}" in result.stdout
