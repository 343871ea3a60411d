"""The `arena` command line, in process (click's runner) and as the installed script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_play_prints_derivations_scores_and_winner(tmp_path):
    log, thesis = tmp_path / "g.jsonl", tmp_path / "g.txt"
    result = run("play", "--grammar", "medium", "--moves", "30", "--p1", "random", "--p2", "random",
                 "--seed", "7", "--log", str(log), "--thesis-log", str(thesis))
    assert result.exit_code == 0, result.output
    assert "Player 0 (random)" in result.output and "Player 1 (random)" in result.output
    assert "Scores: " in result.output
    assert ("Winner: player" in result.output) or ("Result: draw" in result.output)
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert header["seed"] == 7 and header["settings"]["moves"] == 30
    assert thesis.read_text(encoding="utf-8").startswith('<GameSettings NumberOfMoves="30">')
    # same seed, same game
    again = run("play", "--moves", "30", "--seed", "7")
    assert again.output == result.output


def test_play_rejects_bad_arguments(tmp_path):
    result = CliRunner().invoke(main, ["play", "--grammar", "nope"])
    assert result.exit_code == 2 and "neither a grammar preset" in result.output
    result = CliRunner().invoke(main, ["play", "--p1", "nobody"])
    assert result.exit_code == 2 and "unknown substitution bot 'nobody'" in result.output
    bad = tmp_path / "bad.txt"
    bad.write_text("S->A\nA a\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["play", "--grammar", str(bad)])
    assert result.exit_code == 2 and "line 2" in result.output


def test_a_thesis_xml_file_sets_the_moves_and_the_rule(tmp_path):
    from arena.games.substitution import Settings

    xml = tmp_path / "seven.xml"
    xml.write_text(Settings.preset("low-s", 7).to_xml(), encoding="utf-8")
    log = tmp_path / "g.jsonl"
    assert run("play", "--grammar", str(xml), "--log", str(log)).exit_code == 0
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert header["settings"]["moves"] == 7 and "bank_rule" not in header["settings"]   # strict
    assert len(log.read_text(encoding="utf-8").splitlines()) == 2 + 14      # 7 turns each
    run("play", "--grammar", str(xml), "--moves", "3", "--log", str(log))   # --moves wins
    assert json.loads(log.read_text(encoding="utf-8").splitlines()[0])["settings"]["moves"] == 3


def test_thesis_program_games_validate_only_under_their_rule(tmp_path):
    log = tmp_path / "p.jsonl"
    result = run("play", "--grammar", "classic", "--moves", "40", "--bank-rule", "thesis-program",
                 "--p1", "thesis-short-words", "--p2", "thesis-stupid-short-words", "--seed", "3",
                 "--log", str(log))
    assert result.exit_code == 0, result.output
    assert CliRunner().invoke(main, ["validate", str(log)]).output == f"{log}: OK\n"
    text = log.read_text(encoding="utf-8").replace('"bank_rule":"thesis-program"', '"bank_rule":"strict"')
    assert '"bank_rule":"strict"' in text
    strict = tmp_path / "s.jsonl"
    strict.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(strict)])
    assert result.exit_code == 1 and "bank-group-applicable" in result.output


def test_validate_exit_codes(tmp_path):
    good, thesis = tmp_path / "good.jsonl", tmp_path / "good.txt"
    run("play", "--moves", "20", "--seed", "1", "--log", str(good), "--thesis-log", str(thesis))
    bad = tmp_path / "bad.jsonl"
    lines = good.read_text(encoding="utf-8").splitlines()
    result_line = json.loads(lines[-1])
    result_line["scores"] = [999, 0]
    bad.write_text("\n".join(lines[:-1] + [json.dumps(result_line)]), encoding="utf-8")
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x00\x01\xff" * 100)

    result = CliRunner().invoke(main, ["validate", str(good), str(thesis)])
    assert result.exit_code == 0
    assert result.output.splitlines() == [f"{good}: OK", f"{thesis}: OK"]

    result = CliRunner().invoke(main, ["validate", str(good), str(bad)])
    assert result.exit_code == 1
    assert f"{bad}: INVALID score-mismatch" in result.output

    result = CliRunner().invoke(main, ["validate", str(good), str(bad), str(garbage), str(tmp_path / "missing")])
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert len(lines) == 4
    assert lines[2].startswith(f"{garbage}: UNREADABLE") and "not UTF-8" in lines[2]
    assert lines[3].startswith(f"{tmp_path / 'missing'}: UNREADABLE")


def test_bots_lists_every_bot():
    result = run("bots")
    assert "substitution:" in result.output and "random" in result.output


def test_grammar_commands(tmp_path):
    result = run("grammar", "convert", "trap", "--to", "xml", "--moves", "50")
    assert result.output.startswith('<GameSettings NumberOfMoves="50">')
    xml = tmp_path / "trap.xml"
    xml.write_text(result.output, encoding="utf-8")
    assert run("grammar", "convert", str(xml), "--to", "text").output.splitlines()[0] == "S->ABC|T"
    bad = tmp_path / "bad.txt"
    bad.write_text("S->A\nweights: 1 2\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["grammar", "check", str(bad)])
    assert result.exit_code == 1 and "line 2" in result.output


def test_installed_console_script():
    script = Path(sys.executable).parent / "arena"
    assert script.exists(), "the package is not installed (run `make test`)"
    completed = subprocess.run([str(script), "play", "--moves", "5", "--seed", "2"],
                               capture_output=True, text=True, check=True)
    assert "Scores:" in completed.stdout


def test_serve_refuses_an_origin_that_is_not_one() -> None:
    for origin in ("ftp://arena.example.org", "arena.example.org", "https://a.example/page"):
        result = CliRunner().invoke(main, ["serve", "--no-ladder", "--origin", origin])
        assert result.exit_code == 2 and "--origin" in result.output, result.output


def test_serve_takes_server_names_and_refuses_what_is_not_one(monkeypatch, tmp_path) -> None:
    for name in ("https://arena.example.org", "arena.example.org:8080", "a b", "-a.example"):
        result = CliRunner().invoke(main, ["serve", "--no-ladder", "--server-name", name])
        assert result.exit_code == 2 and "--server-name" in result.output, result.output
    import arena.app

    configs = []

    class Recorded(Exception):
        pass

    class Server:  # records the configuration instead of serving
        def __init__(self, config, registry=None):
            configs.append(config)

        async def start(self):
            raise Recorded

    monkeypatch.setattr(arena.app, "Arena", Server)
    result = CliRunner().invoke(main, ["serve", "--no-ladder", "--db", str(tmp_path / "a.db"),
                                       "--server-name", "Arena.Example.org",
                                       "--server-name", "play.example.org"])
    assert isinstance(result.exception, Recorded), result.output
    assert configs[0].web.server_names == ("arena.example.org", "play.example.org")


def test_tournament_and_match_take_the_bank_rule(tmp_path):
    # The program's strategies under its rule: every move legal, the rule in the spec.
    table = tmp_path / "t.json"
    result = run("tournament", "--grammar", "classic", "--moves", "12", "--games", "2",
                 "--bank-rule", "thesis-program", "--bots", "thesis-random,thesis-short-words",
                 "--jobs", "1", "--quiet", "--json", str(table))
    assert result.exit_code == 0, result.output
    data = json.loads(table.read_text(encoding="utf-8"))
    assert data["spec"]["settings"]["bank_rule"] == "thesis-program"
    assert sum(cell["forfeits"] for cell in data["cells"].values()) == 0
    # The same bots under the strict rules (the default) leave bank groups unused: forfeits.
    run("tournament", "--grammar", "classic", "--moves", "12", "--games", "2",
        "--bots", "thesis-random,thesis-short-words", "--jobs", "1", "--quiet", "--json", str(table))
    strict = json.loads(table.read_text(encoding="utf-8"))
    assert "bank_rule" not in strict["spec"]["settings"]
    assert sum(cell["forfeits"] for cell in strict["cells"].values()) > 0
    report = tmp_path / "m.json"
    result = run("match", "thesis-search:depth=1", "thesis-random", "--grammar", "classic",
                 "--moves", "12", "--games", "2", "--bank-rule", "thesis-program", "--jobs", "1",
                 "--quiet", "--json", str(report))
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text(encoding="utf-8"))["spec"]["settings"]["bank_rule"] == \
        "thesis-program"
