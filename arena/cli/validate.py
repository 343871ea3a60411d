"""`arena validate LOG...`: replay logs through the referee and check every fact."""

from __future__ import annotations

import click

from arena.registry import default_registry
from arena.speech import command_speech
from arena.validate import FileReport, validate_file


@click.command()
@click.argument("logs", nargs=-1, required=True, type=click.Path(dir_okay=False))
def validate(logs: tuple[str, ...]) -> None:
    """Check each LOG (arena JSON Lines or thesis text log, detected automatically).

    Prints one line per file, OK or the first defect (turn, player, reason). Exits with
    0 if every log is valid, 1 if any is invalid, 2 if any could not be read. Why a file
    cannot be read, and the referee's verdict, are said in the command line's language
    (``arena --lang``); the words OK, INVALID and UNREADABLE, and a defect's code, stay
    as they are, for scripts.
    """
    registry = default_registry()
    speech = command_speech(registry)
    worst = 0
    for path in logs:
        try:
            report = validate_file(path, registry, say=speech.error)
        except Exception as error:  # noqa: BLE001 - a bug must not hide the other files' verdicts
            report = FileReport(path, error=f"internal error ({type(error).__name__}: {error})")
        game = report.game if report.game in registry.games else None
        click.echo(report.line(None if report.defect is None or game is None else speech.defect(
            report.defect, game, registry.game_class(game).type.chance_name)))
        worst = max(worst, report.status)
    raise SystemExit(worst)
