"""`arena tournament`: round robins between bots, and their stored games."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from arena.bots import parse_bot_list
from arena.errors import ArenaError
from arena.games.substitution.settings import load_settings
from arena.registry import default_registry


@click.group(invoke_without_command=True)
@click.option("--game", "game_name", default="substitution", show_default=True,
              help="Any game of the registry (sim, heaps, durak, tiles, ...).")
@click.option("--settings", "settings_json", default=None,
              help="The game's settings as JSON (other games; for the substitution game "
                   "--grammar and --moves).")
@click.option("--grammar", "grammar_spec", default="medium", show_default=True,
              help="A preset (medium, low, trap, classic, low-s, long-chain) or a grammar file.")
@click.option("--moves", default=None, type=click.IntRange(1, 100_000),
              help="Turns each player makes (default: a thesis XML file's NumberOfMoves, else 200).")
@click.option("--bank-rule", type=click.Choice(["strict", "thesis-program"]), default=None,
              help="strict: the rules as written (default, unless a thesis XML file says "
                   "otherwise); thesis-program: the thesis program's referee (docs/substitution.md).")
@click.option("--games", default=500, show_default=True, type=click.IntRange(1, 10_000_000),
              help="Games per ordered pair.")
@click.option("--bots", "bot_list", default=None,
              help="Comma-separated bot specs, e.g. random,search:depth=4,mixed:points=1,1,1,10.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seeds every game's dice.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Directory for the tables (Markdown, CSV, JSON) and every game's log.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the JSON table here.")
@click.option("--jobs", default=0, type=int, help="Worker processes (default: every core).")
@click.option("--no-self-play", is_flag=True, help="Leave out the pairings of a bot with itself.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--server", "server_url", default=None,
              help="Play on this arena server (ws://HOST:PORT/): bots given as ws:NAME are "
                   "its connected bots, the others its house bots.")
@click.option("--token", default=None, help="An operator account's token for --server.")
@click.pass_context
def tournament(ctx: click.Context, game_name: str, settings_json: str | None,
               grammar_spec: str, moves: int | None, bank_rule: str | None, games: int,
               bot_list: str | None,
               seed: int, out: Path | None, json_path: Path | None, jobs: int,
               no_self_play: bool, quiet: bool, server_url: str | None, token: str | None) -> None:
    """Play a round robin over every ordered pair of bots (rows: first player).

    Subcommands `show` and `validate` read a tournament directory written with --out.
    """
    if ctx.invoked_subcommand is not None:
        return
    if bot_list is None:
        raise click.UsageError("--bots is required (e.g. --bots random,search:depth=4)")
    from arena.tournament import TournamentSpec, markdown_table, run_tournament, to_json
    from arena.tournament.progress import progress_bar
    from arena.tournament.remote import REMOTE_PREFIX, remote_pairings, run_remote_tournament

    registry = default_registry()
    try:
        if settings_json is not None:
            try:
                game_settings = json.loads(settings_json)
            except json.JSONDecodeError as error:
                raise click.UsageError(f"--settings is not JSON: {error}") from None
        elif game_name == "substitution":
            game_settings = load_settings(grammar_spec, moves, bank_rule).to_json()
        else:
            game_settings = {}
        registry.load_game(game_name, game_settings)  # bad settings: a clear error now
        known = [f.name for f in registry.bot_factories(game_name)]
        specs = parse_bot_list(bot_list, [*known, REMOTE_PREFIX[:-1]])
        names = tuple(
            f"{REMOTE_PREFIX}{s.preset}" if s.name == REMOTE_PREFIX[:-1] else str(s) for s in specs
        )
        for spec_item in specs:
            if spec_item.name != REMOTE_PREFIX[:-1]:
                spec_item.resolve(registry.bot_factory(game_name, spec_item.name))
    except ArenaError as error:
        raise click.UsageError(str(error)) from None
    remote = any(name.startswith(REMOTE_PREFIX) for name in names)
    if remote and (server_url is None or token is None):
        raise click.UsageError("ws:NAME bots need --server URL and --token (an operator token)")
    pairs = None
    if remote:
        pairs = remote_pairings(names, self_play=not no_self_play)
    elif no_self_play:
        pairs = tuple((i, j) for i in range(len(names)) for j in range(len(names)) if i != j)
    spec = TournamentSpec(game_name, game_settings, names, games, seed, pairs)
    start = time.perf_counter()
    with progress_bar("tournament", enabled=not quiet and sys.stderr.isatty()) as update:
        if server_url is not None and token is not None:
            result = run_remote_tournament(spec, url=server_url, token=token, out=out, progress=update)
        else:
            result = run_tournament(spec, out=out, processes=jobs or None, progress=update)
    elapsed = time.perf_counter() - start
    click.echo(markdown_table(result))
    total = sum(cell.games for cell in result.cells.values())
    click.echo(f"{total} games in {elapsed:.1f} s ({total / elapsed:.0f} games/s)")
    if json_path is not None:
        json_path.write_text(json.dumps(to_json(result), indent=1) + "\n", encoding="utf-8")
    if out is not None:
        click.echo(f"tables and logs in {out}/ (game ids: first-second-index)")


@tournament.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("game_id", required=False)
def show(directory: Path, game_id: str | None) -> None:
    """Print the table of a tournament directory, or the JSON Lines log of one game."""
    from arena.tournament import read_game_log

    if game_id is None:
        click.echo((directory / "tournament.md").read_text(encoding="utf-8"))
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
