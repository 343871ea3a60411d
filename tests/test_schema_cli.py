"""`arena schema`: the contract on the command line, and the per-game layouts of
docs/bots.md generated from it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game import Game
from arena.registry import default_registry
from arena.schema import contract, update_docs

DOC = Path(__file__).resolve().parents[1] / "docs" / "bots.md"
DOCS = (DOC, DOC.with_name("bots.ru.md"))
"""The bot guide in English and in Russian: both carry every game's layout."""


def test_arena_schema_prints_the_contract_for_one_game_or_all():
    generic = CliRunner().invoke(main, ["schema"])
    assert generic.exit_code == 0
    document = json.loads(generic.output)
    assert document == json.loads(json.dumps(contract(default_registry())))
    sim = json.loads(CliRunner().invoke(main, ["schema", "--game", "sim"]).output)
    jsonschema.Draft202012Validator.check_schema(sim)
    assert sim["x-game"]["name"] == "sim" and sim["$defs"]["game-settings"]["properties"]
    unknown = CliRunner().invoke(main, ["schema", "--game", "chess"])
    assert unknown.exit_code == 2 and "unknown game 'chess'" in unknown.output
    tables = CliRunner().invoke(main, ["schema", "--game", "durak", "--markdown"])
    assert "| `hands` | array of array of integer |" in tables.output


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_the_game_layouts_in_docs_bots_md_are_the_schemas(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for name in default_registry().games:
        assert f"<!-- schema:{name} -->" in text, f"{doc.name} has no layout of {name}"
    assert update_docs(default_registry(), text) == text, \
        f"docs/{doc.name} is stale: run 'arena schema --docs docs/{doc.name}'"


def test_a_game_without_its_own_schema_gets_the_default():
    class Bare(Game):  # type: ignore[type-arg]
        type = default_registry().game_class("sim").type

    parts = Game.json_schema.__func__(Bare)  # type: ignore[attr-defined]
    assert parts["settings"] == {"type": "object", "description": "Sim: settings"}
    assert parts["chance"]["not"] == {}  # sim has no chance events: chance is always null
    assert parts["move"]["description"] == Bare.type.move_syntax
