"""A built bot on disk: the directory `arena bots build` makes and ``hosted:DIR`` runs.

    DIR/manifest.json   what to run (written last: no manifest, no build)
    DIR/build.log       the build's output, bounded (for the bot's owner)
    DIR/bot/            the bot's files, read-only, at /bot in its sandbox

The manifest is written by the arena (never by the build, which only produces
``bot/``), so what runs is always one of the documented recipes' commands. It also
says what the program speaks (`SPEAKS`, chosen by its owner at upload): the line
protocol on its standard streams (``lines``, the default), or WebSocket to
``ws://127.0.0.1:8765/`` behind its relay (``ws``: the starter kits, unchanged).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError

__all__ = ["FILES", "HEAP", "LOG", "MANIFEST", "MANIFEST_FORMAT", "SPEAKS", "BuiltBot",
           "NotABuild", "load_build"]

MANIFEST = "manifest.json"
LOG = "build.log"
FILES = "bot"
MANIFEST_FORMAT = 1
HEAP = "{heap_mib}"
"""In a run command or its environment: replaced, when the bot starts, by the heap its
runtime may use (MiB: three quarters of its sandbox's memory), for runtimes that do not
see the sandbox's limit (the JVM, V8, Go)."""
MAX_MANIFEST_BYTES = 64 * 1024
SPEAKS = ("lines", "ws")
"""What a built program speaks: the line protocol on its standard streams (started for
its games), or WebSocket through its relay (a connected bot that keeps running)."""


class NotABuild(ArenaError, ValueError):
    """A directory that is no finished build (`arena bots build` makes them)."""


@dataclass(frozen=True)
class BuiltBot:
    """A finished build: its language, the command that runs it (inside the sandbox,
    from ``/bot``) with its environment, and where its files are."""

    directory: Path
    lang: str
    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    source_sha256: str = ""
    built_at: str = ""
    speaks: str = "lines"
    """One of `SPEAKS`."""

    @property
    def files(self) -> Path:
        return self.directory / FILES

    @property
    def log(self) -> Path:
        return self.directory / LOG

    def to_json(self) -> dict[str, Any]:
        return {"format": MANIFEST_FORMAT, "lang": self.lang, "command": list(self.command),
                "env": dict(self.env), "source_sha256": self.source_sha256,
                "built_at": self.built_at, "speaks": self.speaks}

    def write_manifest(self) -> None:
        """Write the manifest (atomically: a reader sees the whole of it or none)."""
        temporary = self.directory / f".{MANIFEST}.{os.getpid()}"
        temporary.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        temporary.chmod(0o644)
        temporary.replace(self.directory / MANIFEST)


def load_build(directory: str | os.PathLike[str]) -> BuiltBot:
    """The build in `directory`.

    Raises:
        NotABuild: no manifest, or one this arena cannot read.
    """
    path = Path(directory).resolve()
    manifest = path / MANIFEST
    try:
        if manifest.stat().st_size > MAX_MANIFEST_BYTES:
            raise NotABuild(f"{manifest} is too large for a build's manifest")
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotABuild(f"{path} is not a built bot (no {MANIFEST}: make one with "
                        "'arena bots build PATH --lang LANG --out DIR')") from None
    except (OSError, ValueError) as error:
        raise NotABuild(f"cannot read {manifest}: {error}") from None
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise NotABuild(f"{manifest} is not a build manifest of format {MANIFEST_FORMAT}")
    command, env = data.get("command"), data.get("env", {})
    if (not isinstance(command, list) or not command
            or not all(isinstance(part, str) for part in command)
            or not isinstance(env, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
            or not isinstance(data.get("lang"), str)):
        raise NotABuild(f"{manifest}: 'lang', 'command' (strings) or 'env' is malformed")
    speaks = data.get("speaks", "lines")
    if speaks not in SPEAKS:
        raise NotABuild(f"{manifest}: 'speaks' must be one of {', '.join(SPEAKS)}")
    if not (path / FILES).is_dir():
        raise NotABuild(f"{path} has no {FILES}/ directory: the build is incomplete")
    return BuiltBot(path, data["lang"], tuple(command), env,
                    str(data.get("source_sha256", "")), str(data.get("built_at", "")), speaks)
