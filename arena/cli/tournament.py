"""`arena tournament`: round robins, gauntlets and Swiss between bots, and their stored games.

The game options (`game_options`) and where games run (`executor_options`) are shared
with `arena match` (`arena.cli.match`).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from arena.bots import parse_bot_list
from arena.errors import ArenaError
from arena.registry import Registry, default_registry
from arena.speech import command_speech

F = Callable[..., Any]


def game_options(function: F) -> F:
    """--game, --settings, --grammar, --moves, --bank-rule, --seed, --json, --out."""
    for option in reversed([
        click.option("--game", "game_name", default="substitution", show_default=True,
                     help="Any game of the registry (sim, heaps, durak, tiles, ...)."),
        click.option("--settings", "settings_json", default=None,
                     help="The game's settings as JSON (other games; for the substitution "
                          "game --grammar and --moves)."),
        click.option("--grammar", "grammar_spec", default="medium", show_default=True,
                     help="A preset (medium, low, trap, classic, low-s, long-chain) or a "
                          "grammar file."),
        click.option("--moves", default=None, type=click.IntRange(1, 100_000),
                     help="Turns each player makes (default: a thesis XML file's "
                          "NumberOfMoves, else 200)."),
        click.option("--bank-rule", type=click.Choice(["strict", "thesis-program"]),
                     default=None,
                     help="strict: the rules as written (default, unless a thesis XML file "
                          "says otherwise); thesis-program: the thesis program's referee "
                          "(docs/substitution.md)."),
        click.option("--seed", default=0, show_default=True, type=int,
                     help="Seeds every game's dice."),
        click.option("--out", type=click.Path(file_okay=False, path_type=Path),
                     help="Directory for the reports and every game's log."),
        click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
                     help="Also write the JSON report here."),
    ]):
        function = option(function)
    return function


def executor_options(function: F) -> F:
    """--jobs, --cluster, --quiet."""
    for option in reversed([
        click.option("--jobs", default=0, type=click.IntRange(0, 4096),
                     help="Worker processes (default: every core; 1 plays in this process)."),
        click.option("--cluster", default=None, metavar="ADDRESS",
                     help="Play on a Ray cluster: ray://HOST:PORT, HOST:PORT, or auto "
                          "(inside the cluster). Needs pip install 'arena[cluster]'."),
        click.option("--quiet", is_flag=True, help="No live progress."),
    ]):
        function = option(function)
    return function


def game_settings(registry: Registry, game_name: str, settings_json: str | None,
                  grammar_spec: str, moves: int | None,
                  bank_rule: str | None = None) -> dict[str, Any]:
    """The game's settings from the options; a bad value is a usage error now."""
    try:
        if settings_json is not None:
            try:
                settings = json.loads(settings_json)
            except json.JSONDecodeError as error:
                raise click.UsageError(f"--settings is not JSON: {error}") from None
        else:
            settings = registry.cli_settings(game_name, {
                "grammar": grammar_spec, "moves": moves, "bank_rule": bank_rule,
                "default_moves": 200})
        registry.load_game(game_name, settings)
    except ArenaError as error:  # said in the command line's language (a grammar's reason)
        raise click.UsageError(command_speech(registry).error(error, game=game_name)) from None
    if not isinstance(settings, dict):
        raise click.UsageError("--settings must be a JSON object")
    return settings


def bot_names(registry: Registry, game_name: str, text: str,
              extra_prefixes: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The bot specs of a comma-separated list, each checked by the registry (specs with
    one of `extra_prefixes`, such as ``ws:``, are left to their runner)."""
    known = [f.name for f in registry.bot_factories(game_name)]
    try:
        specs = parse_bot_list(text, [*known, *(p.rstrip(":") for p in extra_prefixes)])
        names = []
        for spec in specs:
            name = str(spec)
            if not any(name.startswith(prefix) for prefix in extra_prefixes):
                registry.parse_bots(game_name, name)
            if name in names:
                raise click.UsageError(f"bot {name!r} is listed twice (its rows would be one)")
            names.append(name)
    except ArenaError as error:
        raise click.UsageError(command_speech(registry).error(error, game=game_name)) from None
    return tuple(names)


def progress_enabled(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


FORMAT_CHOICE = click.Choice(["round-robin", "gauntlet", "swiss"])
SPEC_OPTIONS = {"game_name": "--game", "settings_json": "--settings", "grammar_spec": "--grammar",
                "moves": "--moves", "bank_rule": "--bank-rule", "games": "--games", "bot_list": "--bots", "seed": "--seed",
                "no_self_play": "--no-self-play", "out": "--out", "format_name": "--format",
                "rounds": "--rounds"}
"""The options that define a tournament (what --resume takes from the directory)."""


@click.group(invoke_without_command=True)
@game_options
@click.option("--games", default=500, show_default=True, type=click.IntRange(1, 10_000_000),
              help="Pairs of dice per pairing (per round in a Swiss); each pair is played in "
                   "both seat orders.")
@click.option("--bots", "bot_list", default=None,
              help="Comma-separated bot specs, e.g. random,search:depth=4,mixed:points=1,1,1,10.")
@click.option("--format", "format_name", type=FORMAT_CHOICE, default="round-robin",
              show_default=True,
              help="round-robin: every pairing; gauntlet: the first bot against each other; "
                   "swiss: --rounds rounds paired by score.")
@click.option("--rounds", default=0, type=click.IntRange(0, 10_000),
              help="Rounds of a Swiss (at most half the bots, rounded up).")
@click.option("--no-self-play", is_flag=True, help="Leave out each bot against itself.")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Continue the tournament stored in this directory (by an interrupted "
                   "--out DIR run); its settings come from there.")
@executor_options
@click.option("--server", "server_url", default=None,
              help="Play on this arena server (ws://HOST:PORT/): bots given as ws:NAME are "
                   "its connected bots, the others its house bots.")
@click.option("--token", default=None, help="An operator account's token for --server.")
@click.pass_context
def tournament(ctx: click.Context, game_name: str, settings_json: str | None,
               grammar_spec: str, moves: int | None, bank_rule: str | None, seed: int,
               out: Path | None, json_path: Path | None, games: int, bot_list: str | None, format_name: str,
               rounds: int, no_self_play: bool, resume_dir: Path | None, jobs: int,
               cluster: str | None, quiet: bool, server_url: str | None,
               token: str | None) -> None:
    """Play a tournament between bots: a round robin (rows: first player), a gauntlet
    or a Swiss; Elo with 95% intervals from seat-swapped game pairs.

    Subcommands `show` and `validate` read a tournament directory written with --out.
    """
    if ctx.invoked_subcommand is not None:
        return
    from arena.tournament import TournamentSpec, markdown_table, run_tournament, to_json
    from arena.tournament.executors import Executor, make_executor
    from arena.tournament.progress import progress_bar
    from arena.tournament.remote import REMOTE_PREFIX, ServerExecutor, remote_pairings
    from arena.tournament.store import ResultStore

    if resume_dir is not None:
        given = [flag for name, flag in SPEC_OPTIONS.items()
                 if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE]
        if given:
            raise click.UsageError(
                f"--resume DIR takes the tournament from DIR; leave out {', '.join(given)}")
        try:
            spec = ResultStore.stored_spec(resume_dir)
        except ArenaError as error:
            raise click.UsageError(str(error)) from None
        out = resume_dir
    else:
        if bot_list is None:
            raise click.UsageError("--bots is required (e.g. --bots random,search:depth=4)")
        registry = default_registry()
        settings = game_settings(registry, game_name, settings_json, grammar_spec, moves,
                                 bank_rule)
        names = bot_names(registry, game_name, bot_list, (REMOTE_PREFIX,))
        pairs = None
        if any(name.startswith(REMOTE_PREFIX) for name in names) and format_name == "round-robin":
            pairs = remote_pairings(names, self_play=not no_self_play)
        elif no_self_play and format_name == "round-robin":
            pairs = tuple((i, j) for i in range(len(names)) for j in range(len(names)) if i != j)
        try:
            spec = TournamentSpec(game_name, settings, names, games, seed, pairs, format_name,
                                  rounds)
        except ValueError as error:
            raise click.UsageError(str(error)) from None
    remote = any(name.startswith(REMOTE_PREFIX) for name in spec.bots)
    if remote and (server_url is None or token is None):
        raise click.UsageError("ws:NAME bots need --server URL and --token (an operator token)")
    if cluster is not None and server_url is not None:
        raise click.UsageError("--cluster and --server are two places to play: choose one")
    try:
        executor: Executor = (ServerExecutor(server_url, token)
                              if server_url is not None and token is not None
                              else make_executor(jobs or None, cluster))
    except ArenaError as error:
        raise click.ClickException(str(error)) from None
    start = time.perf_counter()
    try:
        with executor, progress_bar("tournament", enabled=progress_enabled(quiet)) as update:
            result = run_tournament(spec, out=out, progress=update, resume=resume_dir is not None,
                                    executor=executor)
    except ArenaError as error:
        raise click.ClickException(str(error)) from None
    elapsed = time.perf_counter() - start
    click.echo(markdown_table(result))
    total = result.games()
    click.echo(f"{total} games in {elapsed:.1f} s ({total / max(elapsed, 1e-9):.0f} games/s) "
               f"on {executor.describe()}")
    if executor.retried:
        click.echo(f"{executor.retried} batches were played again after their worker was lost")
    if json_path is not None:
        json_path.write_text(json.dumps(to_json(result), indent=1) + "\n", encoding="utf-8")
    if out is not None:
        click.echo(f"reports and logs in {out}/ (game ids: first-second-pair)")
    crashed = report_forfeits(result)
    if crashed:
        click.echo(f"{crashed} game(s) lost because a program crashed (exit status "
                   f"{EXIT_CRASHED})", err=True)
        sys.exit(EXIT_CRASHED)


EXIT_CRASHED = 4
"""`arena tournament`'s exit status when a program bot crashed in at least one game
(killed by a signal, or exited with a non-zero status): the tables are printed, but a
bot did not play as itself (docs/tournaments.md)."""


def report_forfeits(result: Any) -> int:
    """Say every forfeited game and its cause on standard error; the number of those
    lost to a crash."""
    from arena.game import Termination

    forfeited = result.forfeited
    if not forfeited:
        return 0
    bots = result.spec.bots
    click.echo(f"{len(forfeited)} game(s) forfeited:", err=True)
    for game in forfeited:
        players = (bots[game.first], bots[game.second])
        cause = game.detail or "(its cause is in the game's log)"
        lost = ""
        if game.winner is not None:
            loser = players[1 - game.winner]
            lost = f"{loser} lost by "
            cause = cause.removeprefix(f"{loser}: ")
        click.echo(f"  game {game.first}-{game.second}-{game.index} ({players[0]} vs "
                   f"{players[1]}): {lost}{game.termination.value}: "
                   + cause.replace("\n", "\n    "), err=True)
    return sum(game.termination is Termination.CRASH for game in forfeited)


@tournament.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("game_id", required=False)
def show(directory: Path, game_id: str | None) -> None:
    """Print the table of a tournament directory, or the JSON Lines log of one game."""
    from arena.tournament import read_game_log

    if game_id is None:
        report = directory / "tournament.md"
        if not report.is_file():
            raise click.UsageError(f"{directory} has no report (an unfinished tournament? "
                                   f"arena tournament --resume {directory})")
        click.echo(report.read_text(encoding="utf-8"))
        return
    try:
        click.echo(read_game_log(directory, game_id), nl=False)
    except (KeyError, ValueError, FileNotFoundError) as error:
        raise click.UsageError(str(error)) from None


@tournament.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("game_ids", nargs=-1)
def validate(directory: Path, game_ids: tuple[str, ...]) -> None:
    """Replay stored games through the referee (all of them, or the given ids)."""
    from arena.record import read_jsonl
    from arena.tournament import iter_game_logs, read_game_log
    from arena.validate import validate_record

    items = ((gid, read_game_log(directory, gid)) for gid in game_ids) if game_ids \
        else iter_game_logs(directory)
    checked = bad = 0
    for gid, text in items:
        checked += 1
        defect = validate_record(read_jsonl(text.splitlines()))
        if defect is not None:
            bad += 1
            click.echo(f"{gid}: {defect}")
    click.echo(f"{checked} games checked, {bad} with defects")
    if bad:
        sys.exit(1)
