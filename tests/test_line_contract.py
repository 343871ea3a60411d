"""The stdio bridge's line protocol in the machine-readable contract: every line the local
runner writes in a game of every game follows its schema, the docs' tables are the
schemas (alternatives shown as such), and the ``?legal`` error codes are the same in
the schema, the docs, the server and the runners."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from arena.bot_check import default_opponent
from arena.exec_bot import ExecBot
from arena.legal import LEGAL_ERROR_CODES
from arena.lines import LIMIT_FIELDS, LineProtocol
from arena.match import play_match
from arena.registry import default_registry
from arena.schema import _type_text, contract, lines_markdown, parts_markdown, update_docs

from .server.test_contract import GAMES  # a game of every game, as the messages' test plays

ROOT = Path(__file__).resolve().parents[1]

# Logs every line it gets; asks a bad ?legal first in each game, then plays the first
# legal move, or builds one step by step with ?legal when there is no list.
PROGRAM = r'''
import json, sys
log = open(sys.argv[1], "a")
asked = set()
def read():
    line = sys.stdin.readline()
    log.write(line); log.flush()
    return line
def ask(steps):
    print("?legal " + steps, flush=True)
    return json.loads(read()[6:])
while line := read():
    keyword, _, payload = line.partition(" ")
    if keyword.strip() == "quit":
        break
    if keyword != "turn":
        continue
    turn = json.loads(payload)
    if turn["game_id"] not in asked:
        asked.add(turn["game_id"])
        ask("99 99 99")
    if turn["legal"]:
        print(turn["legal"][0], flush=True)
        continue
    steps, sep = "", turn["legal_steps"]["separator"]
    while True:
        answer = ask(steps)["legal_steps"]
        if answer["can_end"] or not answer["steps"]:
            break
        steps = answer["steps"][0] if not steps else steps + sep + answer["steps"][0]
    print(steps, flush=True)
'''


def line_validator(game: str, keyword: str) -> jsonschema.Draft202012Validator:
    doc = contract(default_registry(), game)
    return jsonschema.Draft202012Validator({"$defs": doc["$defs"],
                                            "$ref": f"#/$defs/line-{keyword}"})


def check_lines(game: str, lines: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Validate every line against the contract; the payloads by keyword."""
    doc = contract(default_registry(), game)
    seen: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        keyword, _, payload = line.partition(" ")
        assert keyword in doc["x-lines"]["to_program"], line
        if keyword in ("arena", "quit"):
            assert line in ("arena 1", "quit"), line
            continue
        data = json.loads(payload)
        error = jsonschema.exceptions.best_match(line_validator(game, keyword).iter_errors(data))
        assert error is None, f"{game}: {line[:200]}: {error.message} at {list(error.path)}"
        seen.setdefault(keyword, []).append(data)
    return seen


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_line_of_a_local_game_follows_the_contract(game, tmp_path):
    program, log = tmp_path / "program.py", tmp_path / "lines.log"
    program.write_text(PROGRAM)
    registry = default_registry()
    rules = registry.load_game(game, GAMES[game])
    bot = ExecBot(f"{sys.executable} {program} {log}")
    try:
        for seat in (0, 1):
            other = registry.make_bot(rules, default_opponent(registry, game))
            match = play_match(rules, [bot, other] if seat == 0 else [other, bot], seed=seat)
            assert match.outcome.termination.value == "normal", match.outcome
    finally:
        bot.close()
    seen = check_lines(game, log.read_text().splitlines())
    assert {"limits", "start", "turn", "legal", "over"} <= set(seen)
    assert list(seen["limits"][0]) == list(LIMIT_FIELDS)
    errors = [answer["error"]["code"] for answer in seen["legal"] if "error" in answer]
    # the bad query of each game, with the server's code for it
    assert errors == ["illegal-steps" if game == "substitution" else "not-step-built"] * 2


def test_the_contract_lists_every_line_both_ways():
    doc = contract(default_registry())
    index = doc["x-lines"]
    jsonschema.Draft202012Validator.check_schema(doc)
    lines = LineProtocol()
    written = {"arena": lines.hello(), "quit": lines.quit()}
    assert set(index["to_program"]) == {"arena", "limits", "start", "turn", "legal",
                                        "rejected", "over", "quit"}
    for keyword, entry in index["to_program"].items():
        assert ("payload" in entry) == (keyword not in written), keyword
    assert set(index["from_program"]) == {"move", "comment", "legal-query"}
    assert index["from_program"]["move"]["payload"] == {"$ref": "#/$defs/game-move"}
    bad_turn = {"game_id": "g", "game": "sim", "turn": 0}  # most fields missing
    assert not line_validator("sim", "turn").is_valid(bad_turn)
    answer = {"game_id": "g", "turn": 0, "prefix": "", "legal_steps": {
        "steps": [], "can_end": True, "problem": None, "separator": ", "},
        "error": {"code": "game-over", "message": "over"}}
    assert not line_validator("sim", "legal").is_valid(answer)  # one or the other
    del answer["legal_steps"]
    assert line_validator("sim", "legal").is_valid(answer)
    answer["error"]["code"] = "oops"
    assert not line_validator("sim", "legal").is_valid(answer)


def test_the_line_tables_in_docs_server_md_are_the_schemas():
    text = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    assert "<!-- schema:line-protocol -->\n`limits {...}`" in text
    assert update_docs(default_registry(), text) == text, \
        "docs/server.md is stale: run 'arena schema --docs docs/server.md'"


def test_generated_tables_show_alternatives_as_alternatives():
    heaps = parts_markdown(default_registry(), "heaps")  # settings: 'rules' and/or 'example'
    assert "| `rules` (and/or `example`) | object |" in heaps
    assert "At least one of `rules` or `example` is given." in heaps
    lines = lines_markdown()  # a legal line: 'legal_steps' or 'error'
    assert "| `legal_steps` (or `error`) | object |" in lines
    assert "Exactly one of `legal_steps` or `error` is given." in lines
    assert _type_text({"oneOf": [{"type": "integer"}, {"const": "x"}, {"type": "null"}]}) == \
        "integer or `x` or null"
    assert _type_text({"$ref": "#/$defs/game-move"}) == "move string"


def test_legal_error_codes_are_the_same_everywhere():
    doc = contract(default_registry())
    enum = doc["$defs"]["line-legal"]["properties"]["error"]["properties"]["code"]["enum"]
    assert enum == list(LEGAL_ERROR_CODES)
    for guide in ("bots.md", "bots.ru.md"):  # the bot guide, in English and in Russian
        bots_md = (ROOT / "docs" / guide).read_text(encoding="utf-8")
        for code in LEGAL_ERROR_CODES:
            assert f"`{code}`" in bots_md, f"docs/{guide} does not list {code}"
    # every code the server's and the bridge's answers use is one of them
    sources = [ROOT / "arena" / "server" / "aids.py", ROOT / "clients" / "bridge.py",
               ROOT / "arena" / "legal.py"]
    used = set()
    for source in sources:
        text = source.read_text(encoding="utf-8")
        used |= set(re.findall(r'_error\(game_id, "([a-z-]+)"', text))
        used |= set(re.findall(r'"code": "([a-z-]+)"', text))
        used |= set(re.findall(r'return "([a-z-]+)", \(?f"', text))
        used |= set(re.findall(r'code = "([a-z-]+)" if', text))
        used |= set(re.findall(r'else "([a-z-]+)"\n', text))
    assert {"illegal-steps", "not-step-built", "game-over", "stale-turn", "no-server"} <= used
    assert used <= set(LEGAL_ERROR_CODES), used - set(LEGAL_ERROR_CODES)
