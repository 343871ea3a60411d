"""``python -m tests.golden.record [NAME...]``: rewrite the server's lines of the golden
transcripts from what the server of this checkout says (read the diff before committing:
every change there is a change bots see; see CHANGELOG.md)."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from tests.golden import lines
from tests.golden.session import rewrite, run
from tests.golden.transcript import TRANSCRIPTS


def main(names: list[str]) -> None:
    for path in TRANSCRIPTS:
        if names and path.stem not in names:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            if path.stem.startswith("v1-line"):
                lines.record(path, Path(tmp) / "program.log")
            else:
                replay = asyncio.run(run(path, Path(tmp) / "arena.sqlite", record=True))
                rewrite(path, replay.written)
        print(f"rewrote {path.name}")


if __name__ == "__main__":
    main(sys.argv[1:])
