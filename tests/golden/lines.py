"""Golden transcripts of the line protocol (``v1-line-*.transcript``), played by the
local runner (``exec:``) with `line_program.py` in the program's place.

Besides the ``<`` (to the program) and ``>`` (from the program) lines, a line transcript
has ``! match {"game": ..., "settings": ..., "seed": N, "opponent": SPEC, "seat": S}``
lines: the games the one program plays, in order, and ``! runner {...}``: the
keywords of `arena.exec_bot.ExecBot` (``max_legal``...).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from arena.exec_bot import ExecBot
from arena.match import play_match
from arena.registry import default_registry

PROGRAM = Path(__file__).resolve().parent / "line_program.py"


def directives(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    runner: dict[str, Any] = {}
    matches = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("! match "):
            matches.append(json.loads(line[len("! match "):]))
        elif line.startswith("! runner "):
            runner = json.loads(line[len("! runner "):])
    return runner, matches


def transcript_lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith(("< ", "> "))]


def normalise(line: str, command: str) -> str:
    """A logged line without what differs from run to run: the runner's game ids
    (``local-PID-N``), the program's command line (``PROGRAM``), the time left."""
    line = re.sub(r"local-\d+-", "local-PID-", line)
    line = line.replace(json.dumps(command)[1:-1], "PROGRAM")
    return re.sub(r'"left_ms":\d+', '"left_ms":0', line)


def play(path: Path, log: Path) -> list[str]:
    """Play the transcript's games with the program in one seat; the lines it saw."""
    runner, matches = directives(path)
    command = f"{sys.executable} {PROGRAM} {path} {log}"
    bot = ExecBot(command, **runner)
    registry = default_registry()
    try:
        for spec in matches:
            game = registry.load_game(spec["game"], spec["settings"])
            other = registry.make_bot(game, spec["opponent"])
            bots = [bot, other] if spec["seat"] == 0 else [other, bot]
            play_match(game, bots, seed=spec["seed"])
    finally:
        bot.close()
    return [normalise(line, command) for line in log.read_text(encoding="utf-8").splitlines()]


def record(path: Path, log: Path) -> None:
    """Rewrite the transcript's lines from what the program saw and said now."""
    seen = play(path, log)
    kept = [line for line in path.read_text(encoding="utf-8").splitlines()
            if not line.startswith(("< ", "> "))]
    path.write_text("\n".join(kept + seen) + "\n", encoding="utf-8")
