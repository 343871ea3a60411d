"""`arena serve --config FILE`: every option has a key, flags override the file, wrong
keys and values are errors naming the key, ``[[ladders]]`` run several ladders."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.config_file import (
    LADDER_KEYS,
    LADDERS_META,
    SEASONS_META,
    config_keys,
    ladder_configs,
)
from arena.cli.serve import serve
from arena.registry import default_registry
from arena.server import TimeControl
from arena.server.config import ServerConfig
from arena.server.ladder import check_ladders

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "arena.toml"


SEASON_ON_SIM_6 = ('[[seasons]]\nname = "s"\nladder = "sim-6"\n'
                   "start = 2026-01-01T00:00:00Z\nend = 2026-02-01T00:00:00Z")
"""A season on a ladder the server of the single-ladder flags does not run."""


def parse(tmp_path: Path, text: str, *args: str) -> click.Context:
    """The context `arena serve --config FILE *args` would run with (nothing started)."""
    path = tmp_path / "arena.toml"
    path.write_text(text, encoding="utf-8")
    return serve.make_context("serve", ["--config", str(path), *args])


def refused(tmp_path: Path, text: str) -> str:
    path = tmp_path / "arena.toml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["serve", "--config", str(path)])
    assert result.exit_code == 2, result.output
    return " ".join(result.output.split())


def configured_ladders(ctx: click.Context) -> tuple[Any, ...]:
    params = ctx.params
    return ladder_configs(
        ctx.meta[LADDERS_META], registry=default_registry(),
        time_control=TimeControl(params["move_ms"], params["bank_ms"], params["first_move_ms"],
                                 params["retries"], params["grace_ms"], kind=params["clock_kind"]),
        default_settings=lambda game: {},
        defaults={key: params[key] for key in ("house_vs_house", "max_games", "interval",
                                               "pairings_per_hour")})


def test_every_serve_option_has_a_key_and_docs_server_md_documents_it() -> None:
    text = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    section = text.split("## Configuration file", 1)[1].split("\n## ", 1)[0]
    keys = config_keys(serve)
    assert len(keys) == len([p for p in serve.params if isinstance(p, click.Option)]) - 1
    missing = [key for key in keys if f"`{key}`" not in section]
    assert not missing, f"docs/server.md's configuration file section leaves out {missing}"
    missing = [key for key in LADDER_KEYS if f"`{key}`" not in section]
    assert not missing, f"docs/server.md leaves out the [[ladders]] keys {missing}"


def test_the_file_gives_the_settings_and_flags_override_it(tmp_path: Path) -> None:
    ctx = parse(tmp_path, """
        port = 9000
        move_ms = 1500
        bank_ms = 3000
        ladder = false
        house = ["random", "greedy"]
        settings = { moves = 7 }
        origin = ["https://arena.example.org"]
        limit = { "heaps.positions" = 4000000 }
        message_rate = 10
    """, "--move-ms", "2500", "--ladder")
    params = ctx.params
    assert params["port"] == 9000 and params["bank_ms"] == 3000
    assert params["move_ms"] == 2500 and params["ladder"] is True  # the command line wins
    assert params["house"] == "random,greedy" and json.loads(params["settings_json"]) == {"moves": 7}
    assert params["origins"] == ("https://arena.example.org",)
    assert params["limits"] == ("heaps.positions=4000000",)
    assert params["message_rate"] == 10.0 and params["host"] == "127.0.0.1"  # default


@pytest.mark.parametrize("text, said", [
    ("move_mss = 2000", "unknown key 'move_mss' (did you mean 'move_ms'?)"),
    ('move_ms = "2000"', "move_ms must be an integer, not the string '2000'"),
    ("move_ms = 0", "move_ms: 0 is not in the range x>=1"),
    ("ladder = 1", "ladder must be true or false, not an integer"),
    ("origin = \"https://a.example\"", "origin must be an array of strings"),
    ("message_rate = true", "message_rate must be a number, not a boolean"),
    ("port = [", "not TOML"),
    ("[[ladders]]\nname = \"x\"", "ladders[0] has no game"),
    ("[[ladders]]\nname = \"x\"\ngame = \"sim\"\nrated = \"yes\"",
     "ladders[0].rated must be true or false, not the string 'yes'"),
    ("[[ladders]]\nname = \"x\"\ngame = \"sim\"\nsetings = {}",
     "unknown key 'ladders[0].setings' (did you mean 'ladders[0].settings'?)"),
    ("[[ladders]]\nname = \"x y\"\ngame = \"sim\"", "ladders[0].name 'x y'"),
    ("[[ladders]]\nname = \"x\"\ngame = \"sim\"\ntime_control = { move = 5 }",
     "unknown key 'ladders[0].time_control.move'"),
    ("[[ladders]]\nname = \"x\"\ngame = \"sim\"\ntime_control = { kind = \"CPU\" }",
     "ladders[0].time_control.kind must be \"wall\" or \"cpu\", not the string 'CPU'"),
    ('clock = "process"', "clock"),
    ("[[ladders]]\nname = \"x\"\ngame = \"sim\"\nsettings = {}\ngenerator = \"default\"",
     "gives both settings and generator"),
    ("game = \"sim\"\n[[ladders]]\nname = \"x\"\ngame = \"sim\"",
     "[[ladders]] define the ladders: leave out game"),
    ("[[ladders]]\nname = \"x\"\ngame = \"sim\"\n[[ladders]]\nname = \"x\"\ngame = \"sim\"",
     "two ladders are named 'x'"),
    ("[[ladders]]\nname = \"x\"\ngame = \"chess\"", "chess"),
    ("[[ladders]]\nname = \"x\"\ngame = \"sim\"\nhouse = [\"sim-nobody\"]", "sim-nobody"),
    ("[[ladders]]\nname = \"x\"\ngame = \"sim\"\nhouse = [\"exec:./bot\"]", "exec"),
    ("accounts = 1", "accounts must be a table ([accounts]), not an integer"),
    ("[accounts]\nsignups = \"open\"",
     "unknown key 'accounts.signups' (did you mean 'accounts.signup'?)"),
    ("[[seasons]]\nname = \"s\"\nladder = \"substitution\"\nstart = 2026-01-01T00:00:00Z",
     "season 's': the key 'end' is missing"),
    (SEASON_ON_SIM_6,
     "--config: season 's' is on the ladder 'sim-6', but this server's ladder is 'substitution'"),
])
def test_a_wrong_key_or_value_is_an_error_naming_it(tmp_path: Path, text: str, said: str) -> None:
    assert said in refused(tmp_path, text)


def test_the_accounts_table_gives_its_options(tmp_path: Path) -> None:
    """``[accounts]`` groups the accounts' options (``signup`` is ``--signup``), and a
    flag overrides it."""
    text = "[accounts]\nsignup = \"invite\"\n"
    assert parse(tmp_path, text).params["signup"] == "invite"
    assert parse(tmp_path, text, "--signup", "closed").params["signup"] == "closed"
    budgets = parse(tmp_path, "[accounts]\nbots_per_person = 2\nsession_lifetime = 60\n")
    assert budgets.meta["arena.config.accounts"] == {"bots_per_person": 2,
                                                     "session_lifetime": 60.0}
    assert "accounts.bots_per_person must be a positive integer, not" in refused(
        tmp_path, "[accounts]\nbots_per_person = 0\n")


def test_seasons_come_from_the_file_or_from_the_seasons_flag(tmp_path: Path) -> None:
    season = ('[[seasons]]\nname = "{name}"\nladder = "{ladder}"\n'
              "start = 2026-01-01T00:00:00Z\nend = 2026-02-01T00:00:00Z\n")
    ctx = parse(tmp_path, season.format(name="winter", ladder="substitution"))
    [winter] = ctx.meta[SEASONS_META]
    assert (winter.name, winter.ladder) == ("winter", "substitution")
    # the flag replaces the file's seasons: its season on another ladder is refused
    flagged = tmp_path / "seasons.toml"
    flagged.write_text(season.format(name="other", ladder="nowhere"), encoding="utf-8")
    (tmp_path / "arena.toml").write_text(season.format(name="winter", ladder="substitution"),
                                         encoding="utf-8")
    result = CliRunner().invoke(main, ["serve", "--config", str(tmp_path / "arena.toml"),
                                       "--seasons", str(flagged)])
    assert result.exit_code == 2
    assert f"--seasons {flagged}: season 'other' is on the ladder 'nowhere'" in " ".join(
        result.output.split())


def test_a_missing_file_is_said(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["serve", "--config", str(tmp_path / "none.toml")])
    assert result.exit_code == 2 and "none.toml" in result.output


def test_ladders_tables_make_ladders_with_the_server_s_defaults(tmp_path: Path) -> None:
    ctx = parse(tmp_path, """
        move_ms = 1500
        max_games = 4
        [[ladders]]
        name = "sim-6"
        game = "sim"
        settings = { vertices = 6 }
        house = "sim-random"
        time_control = { move_ms = 800 }
        [[ladders]]
        name = "short"
        game = "substitution"
        grammar = "low"
        moves = 9
        rated = false
        max_games = 2
    """)
    sim, short = configured_ladders(ctx)
    assert (sim.name, sim.game, dict(sim.settings), sim.house) == (
        "sim-6", "sim", {"vertices": 6}, ("sim-random",))
    assert sim.time_control is not None and sim.time_control.move_ms == 800
    assert sim.time_control.bank_ms == 10_000 and sim.max_games == 4 and sim.rated
    assert short.settings["moves"] == 9 and not short.rated and short.max_games == 2
    assert short.time_control is None  # the server's


def test_a_ladder_may_time_hosted_bots_by_cpu_time(tmp_path: Path) -> None:
    ctx = parse(tmp_path, """
        clock = "cpu"
        [[ladders]]
        name = "sim-cpu"
        game = "sim"
        time_control = { move_ms = 800 }
        [[ladders]]
        name = "sim-wall"
        game = "sim"
        time_control = { kind = "wall" }
    """)
    cpu, wall = configured_ladders(ctx)
    assert cpu.time_control is not None and cpu.time_control.kind == "cpu"  # the server's
    assert wall.time_control is not None and wall.time_control.kind == "wall"
    ctx = parse(tmp_path, '[[ladders]]\nname = "x"\ngame = "sim"\n'
                          'time_control = { kind = "cpu" }')
    [ladder] = configured_ladders(ctx)
    assert ladder.time_control is not None and ladder.time_control.kind == "cpu"
    assert ctx.params["clock_kind"] == "wall"


def test_the_example_file_runs_its_ladders() -> None:
    ctx = serve.make_context("serve", ["--config", str(EXAMPLE)])
    ladders = configured_ladders(ctx)
    assert [ladder.name for ladder in ladders] == ["substitution", "sim-6", "durak-practice",
                                                   "heaps-varied"]
    assert ladders[3].generator == {"start": [1, 20]}
    assert [(s.name, s.ladder) for s in ctx.meta[SEASONS_META]] == [("sim-6-winter", "sim-6")]
    check_ladders(default_registry(), ServerConfig(ladders=ladders))


def test_a_server_started_from_a_file_lists_its_ladders(tmp_path: Path) -> None:
    from tests.web.live import arena_serve

    path = tmp_path / "arena.toml"
    path.write_text("""
        workers = 1
        [[ladders]]
        name = "sim-6"
        game = "sim"
        settings = { vertices = 6 }
        [[ladders]]
        name = "sim-7"
        game = "sim"
        settings = { vertices = 7 }
        [[seasons]]
        name = "spring"
        ladder = "sim-7"
        start = 2026-03-01T00:00:00Z
        end = 2126-06-01T00:00:00Z
    """, encoding="utf-8")
    with arena_serve("--config", str(path), "--db", str(tmp_path / "a.sqlite")) as (url, process):
        listed = json.loads(urllib.request.urlopen(url + "/api/ladders", timeout=10).read())
        seasons = json.loads(urllib.request.urlopen(url + "/api/seasons", timeout=10).read())
    output = process.stdout.read().decode() if process.stdout else ""
    if process.stdout:
        process.stdout.close()
    assert "Traceback" not in output, output
    assert [(ladder["name"], ladder["settings"]) for ladder in listed["ladders"]] == [
        ("sim-6", {"vertices": 6}), ("sim-7", {"vertices": 7})]
    assert [(season["name"], season["ladder"]) for season in seasons["seasons"]] == [
        ("spring", "sim-7")]
