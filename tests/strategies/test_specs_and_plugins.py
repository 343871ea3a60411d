"""Bot spec strings for the strategies, and a third-party bot package found by entry point."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.errors import BotSpecError
from arena.games.substitution import Settings, SubstitutionGame
from arena.match import play_match
from arena.registry import Registry, default_registry
from bots.substitution.adaptive import AdaptiveRandomBot, MixedBot
from bots.substitution.search import SearchBot
from bots.substitution.shortwords import ShortWordsBot

GAME = SubstitutionGame(Settings.preset("medium", moves=10))
ROOT = Path(__file__).resolve().parents[2]


def make(spec):
    return default_registry().make_bot(GAME, spec)


def test_spec_strings_select_bots_and_parameters():
    bot = make("search:depth=4")
    assert isinstance(bot, SearchBot) and bot.depth == 4
    assert make("search").depth == 4
    bot = make("adaptive-random:omega=10,finish=search")
    assert isinstance(bot, AdaptiveRandomBot) and bot.omega == 10
    assert isinstance(bot.finisher, SearchBot)
    bot = make("adaptive-random:omega=2.5,finish=short-words")
    assert bot.omega == 2.5 and isinstance(bot.finisher, ShortWordsBot)
    assert make("mixed:points=1,1,1,10").points == (1, 1, 1, 10)
    assert make("mixed:peaks").points == (1, 1, 1, 10)
    assert make("mixed:linear-1023").points == (1, 0, 2, 3)
    assert make("mixed:wins-low").points == (1890, 844, 2194, 2746)
    assert isinstance(make("mixed"), MixedBot)
    assert make("short-words:tolerance=1e-5").rules.metrics.tolerance == 1e-5


@pytest.mark.parametrize("spec, message", [
    ("search:depth=0", "below the minimum"),
    ("search:depth=x", "not an integer"),
    ("adaptive-random:finish=random", "not one of"),
    ("mixed:points=1,-1,1,1", "below the minimum"),
    ("mixed:nope", "no preset"),
    ("searc", "unknown substitution bot"),
    ("search:width=3", "no parameter"),
])
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(BotSpecError, match=message):
        make(spec)


def test_mixed_needs_four_points():
    with pytest.raises(ValueError):
        make("mixed:points=1,1,1")


def test_a_bot_list_as_the_tournament_reads_it():
    specs = default_registry().parse_bots(
        "substitution", "random,mixed:points=1,1,1,10,adaptive-random:omega=10,finish=search,search:depth=1")
    assert [str(s) for s in specs] == [
        "random", "mixed:points=1,1,1,10", "adaptive-random:omega=10,finish=search", "search:depth=1"]


def test_cli_lists_the_strategies_with_parameters():
    out = subprocess.run(
        [sys.executable, "-m", "arena", "bots", "--game", "substitution"],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    for name in ("adaptive-random", "better-smart-random", "mixed", "search", "stupid-short-words"):
        assert name in out
    assert "omega=10" in out and "preset mixed:peaks" in out


# -- a real third-party package, found through its entry point -----------------------

PLUGIN = '''
from arena.bots import BotFactory, Param
from arena.hookspecs import hookimpl
from arena.games.substitution.movestring import MoveString
from arena.games.substitution import random_turn


class FirstWordBot:
    """Plays the compiled random turn; proves that third-party bots plug in."""

    def __init__(self, game, params):
        self.compiled = game.compiled

    def choose_move(self, game, state, rng):
        return MoveString(random_turn(self.compiled, state, rng.random))


@hookimpl
def arena_bots():
    return [BotFactory("third-party", "substitution", "a bot from an installed package",
                       FirstWordBot, (Param("level", "int", 1, "unused", minimum=0),))]


@hookimpl
def arena_solvers():
    return {"demo": "arena_demo_bots.solver:solve_demo"}
'''

SOLVER = '''
import click


@click.command("demo")
@click.option("--size", type=int, default=3)
def solve_demo(size):
    """Solve the demo game."""
    click.echo(f"demo of size {size}: first player wins")
'''


@pytest.fixture
def installed_package(tmp_path, monkeypatch):
    """A distribution `arena-demo-bots` (code + dist-info) on sys.path, as pip installs it."""
    site = tmp_path / "site"
    package = site / "arena_demo_bots"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text(textwrap.dedent(PLUGIN))
    (package / "solver.py").write_text(textwrap.dedent(SOLVER))
    info = site / "arena_demo_bots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-demo-bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[arena.plugins]\ndemo = arena_demo_bots.plugin\n")
    (info / "RECORD").write_text("")
    monkeypatch.syspath_prepend(str(site))
    return site


def test_third_party_bot_package_registers_through_the_entry_point(installed_package):
    registry = Registry()
    factory = registry.bot_factory("substitution", "third-party")
    assert factory.description == "a bot from an installed package"
    game = SubstitutionGame(Settings.preset("classic", moves=20))
    bots = [registry.make_bot(game, "third-party:level=2"), registry.make_bot(game, "search:depth=1")]
    match = play_match(game, bots, seed=1)
    assert match.outcome is not None and match.outcome.detail == ""
    # and without entry points it is not there
    with pytest.raises(BotSpecError):
        Registry(entry_points=False).bot_factory("substitution", "third-party")


def test_third_party_bot_in_a_tournament_from_the_cli(installed_package, tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(installed_package)])}
    out = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "--grammar", "classic", "--moves", "8",
         "--games", "2", "--bots", "third-party,random", "--jobs", "1", "--quiet"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout
    assert "| **third-party** |" in out


def test_third_party_solver_is_an_arena_solve_subcommand(installed_package):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(installed_package)])}
    run = [sys.executable, "-m", "arena", "solve"]
    listed = subprocess.run([*run, "--help"], capture_output=True, text=True, env=env, check=True)
    assert "demo" in listed.stdout and "sim" in listed.stdout
    solved = subprocess.run([*run, "demo", "--size", "5"], capture_output=True, text=True, env=env,
                            check=True)
    assert solved.stdout == "demo of size 5: first player wins\n"
