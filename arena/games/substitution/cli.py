"""The substitution game's commands (`arena.hookspecs.arena_cli_commands`): ``arena
grammar`` checks, shows and converts grammars; ``arena play`` plays one game between two
bots in process and prints it as the thesis program does."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.errors import ArenaError
from arena.games.substitution import PRESETS, Settings, SubstitutionGame, load_grammar
from arena.games.substitution.settings import load_settings
from arena.games.substitution.thesis_log import write_thesis_log
from arena.match import play_match
from arena.record import to_jsonl
from arena.registry import default_registry
from arena.speech import command_speech


def _said(error: ArenaError) -> str:
    """`error` in the command line's language (``arena --lang``; a grammar's reason in
    this game's words)."""
    return command_speech(default_registry()).error(error, game=SubstitutionGame.type.name)


@click.group()
def grammar() -> None:
    """Check, show and convert grammars (text format and the thesis's XML)."""


@grammar.command("list")
def list_presets() -> None:
    """The built-in grammars."""
    for name, (groups, description) in PRESETS.items():
        click.echo(f"{name:12s} {description}")
        click.echo(f"{'':12s} {'; '.join(groups)}")


@grammar.command("check")
@click.argument("spec")
def check(spec: str) -> None:
    """Check a grammar file (or preset); print it, or the error with its line number."""
    try:
        loaded = load_grammar(spec)
    except ArenaError as error:
        click.echo(f"{spec}: {_said(error)}", err=True)
        raise SystemExit(1) from None
    for index, (group, weight) in enumerate(zip(loaded.groups, loaded.weights, strict=True)):
        click.echo(f"{index:3d}  {group}  (weight {weight}/{loaded.total_weight})")


@grammar.command("convert")
@click.argument("spec")
@click.option("--to", "target", type=click.Choice(["text", "xml"]), required=True)
@click.option("--moves", default=200, show_default=True, type=click.IntRange(1, 100_000),
              help="NumberOfMoves written into the XML.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
def convert(spec: str, target: str, moves: int, out: Path | None) -> None:
    """Convert a grammar between the text format and the thesis's XML settings."""
    try:
        loaded = load_grammar(spec)
        text = loaded.to_text() if target == "text" else Settings(loaded, moves).to_xml() + "\n"
    except ArenaError as error:
        click.echo(f"{spec}: {_said(error)}", err=True)
        raise SystemExit(1) from None
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")


@click.command()
@click.option("--grammar", "grammar_spec", default="medium", show_default=True,
              help="A preset (medium, low, trap, classic, low-s, long-chain) or a grammar file "
                   "(text format or the thesis's XML).")
@click.option("--moves", default=None, type=click.IntRange(1, 100_000),
              help="Turns each player makes (default: a thesis XML file's NumberOfMoves, else 200).")
@click.option("--bank-rule", type=click.Choice(["strict", "thesis-program"]), default=None,
              help="strict: the rules as written (default, unless a thesis XML file says "
                   "otherwise); thesis-program: the thesis program's referee (docs/substitution.md).")
@click.option("--p1", default="random", show_default=True, help="Bot spec of player 0 (moves first).")
@click.option("--p2", default="random", show_default=True, help="Bot spec of player 1.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seeds the dice and the bots.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the arena's JSON Lines log here.")
@click.option("--thesis-log", "thesis_log_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the thesis program's text log here.")
def play(grammar_spec: str, moves: int | None, bank_rule: str | None, p1: str, p2: str, seed: int,
         log_path: Path | None, thesis_log_path: Path | None) -> None:
    """Play one game and print both players' derivations, the scores and the winner."""
    try:
        game = SubstitutionGame(load_settings(grammar_spec, moves, bank_rule))
        registry = default_registry()
        bots = [registry.make_bot(game, spec) for spec in (p1, p2)]
    except ArenaError as error:
        raise click.UsageError(_said(error)) from None
    match = play_match(game, bots, seed=seed, names=[p1, p2], match_id=f"play-{seed}")
    record = match.record()
    if log_path is not None:
        log_path.write_text(to_jsonl(record), encoding="utf-8")
    if thesis_log_path is not None:
        thesis_log_path.write_text(write_thesis_log(record), encoding="utf-8")
    outcome = match.outcome
    assert outcome is not None
    for seat, words in enumerate(match.state.derivations):
        click.echo(f"Player {seat} ({[p1, p2][seat]}): {len(words)} derivations")
        for index, word in enumerate(words):
            mark = f"+{word.score}" if word.finished else "  (unfinished, discarded)"
            click.echo(f"  {index:3d}  {word.text or '(empty word)'}  {mark}")
    scores = outcome.scores or (0, 0)
    click.echo(f"Scores: {scores[0]} - {scores[1]}")
    if outcome.winner is None:
        click.echo("Result: draw" + (f" ({outcome.detail})" if outcome.detail else ""))
    else:
        click.echo(f"Winner: player {outcome.winner} ({[p1, p2][outcome.winner]})"
                   + (f" -- {outcome.termination.value}: {outcome.detail}" if outcome.detail else ""))
    sys.stdout.flush()
