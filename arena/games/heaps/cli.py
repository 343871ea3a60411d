"""`arena solve heaps`: the retrograde colouring and the answers to EGE tasks 19-21."""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena.errors import SettingsError


@click.command("heaps")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Rules file: .toml or .json (declarative) or .py (moves as code).")
@click.option("--example", help="A built-in task instead of a rules file, e.g. 49932.")
@click.option("--target", type=click.IntRange(1), help="The target N (overrides the rules').")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve_heaps(rules_file: Path | None, example: str | None, target: int | None, as_json: bool) -> None:
    """Colour every position (win in 1, lose in 1, win in 2, ...) and answer tasks 19-21."""
    from arena.games.heaps.examples import example_rules
    from arena.games.heaps.files import load_rules_file
    from arena.games.heaps.rules import HeapRules, HeapSpec
    from arena.games.heaps.solver import solve_heaps as solve

    if (rules_file is None) == (example is None):
        raise click.UsageError("give either --rules FILE or --example NUMBER")
    try:
        spec: HeapSpec
        if rules_file is not None:
            spec = load_rules_file(rules_file, target)
        else:
            spec = HeapRules.from_mapping(example_rules(str(example)), target=target)
        report = solve(spec)
    except SettingsError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        data = report.to_json()
        data = {"game": "heaps", "target": getattr(spec, "target", target), **data}
        click.echo(json.dumps(data))
        return
    for line in report.summary_lines():
        click.echo(line)
