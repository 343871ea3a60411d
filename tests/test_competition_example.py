"""examples/competition.toml, docs/competitions.md's worked example, stays what the
arena reads: its seasons parse, each ranks one of its ladders, and its ``[accounts]``
keys are `AccountsConfig`'s. (The whole file is `arena serve --config`'s; the
configuration file's own tests read every key.)"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from arena.cli.config_file import ACCOUNTS_META, LADDERS_META, SEASONS_META
from arena.cli.serve import serve
from arena.config import AccountsConfig
from arena.seasons import seasons_from_toml

ROOT = Path(__file__).resolve().parents[1]


def test_the_competition_example_s_seasons_ladders_and_accounts() -> None:
    config = tomllib.loads((ROOT / "examples" / "competition.toml").read_text(encoding="utf-8"))
    ladders = {table["name"]: table for table in config["ladders"]}
    [season] = seasons_from_toml(config["seasons"])
    assert season.ladder in ladders and ladders[season.ladder]["rated"]
    assert (season.end - season.start).days == 14
    assert season.final is not None and season.final.top == 8 and season.final.wait == 600
    assert set(config["accounts"]) <= {field.name for field in fields(AccountsConfig)}
    assert config["accounts"]["signup"] == "invite"
    doc = (ROOT / "docs" / "competitions.md").read_text(encoding="utf-8")
    assert "examples/competition.toml" in doc


def test_arena_serve_reads_the_whole_example(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Every key of the worked example is one `arena serve --config` takes (from a
    directory with the ``results`` it names), its ``[accounts]`` budgets included."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    ctx = serve.make_context("serve", ["--config", str(ROOT / "examples" / "competition.toml")])
    assert ctx.params["signup"] == "invite"
    assert ctx.meta[ACCOUNTS_META] == {"bots_per_person": 3, "versions_per_day": 10}
    assert [table["name"] for table in ctx.meta[LADDERS_META]] == ["course", "practice"]
    assert [season.name for season in ctx.meta[SEASONS_META]] == ["course-2026"]
