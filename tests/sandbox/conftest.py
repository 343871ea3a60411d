"""What the sandbox tests share: the sandbox itself (root and bubblewrap; `make test`
installs bubblewrap and sets ARENA_REQUIRE_SANDBOX, so CI never skips them), builds of
the honest and hostile bots, a game between two bots, and the check that nothing of a
sandbox is left behind."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from arena.clock import TimeControl
from arena.match import play_match
from arena.record import MatchRecord
from arena.registry import default_registry
from arena.sandbox import tree
from arena.sandbox.build import build_bot
from arena.sandbox.cgroups import cgroup_layout
from arena.sandbox.host import SandboxUnavailable, probe_host
from arena.sandbox.hosted import HostedBot
from arena.sandbox.manifest import MANIFEST
from arena.sandbox.spec import SandboxSpec

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
HOSTILE = HERE / "hostile"
BOTS = HERE / "bots"
FAST = TimeControl(move_ms=1000, bank_ms=1000, first_move_ms=3000)
"""A time control short enough for hostile bots that never move."""
GENEROUS = TimeControl(move_ms=10_000, bank_ms=10_000, first_move_ms=60_000)
"""A time control no honest bot runs out of, however loaded the machine (and hostile
programs that report what they found, then end their game themselves)."""

_REQUIRED = os.environ.get("ARENA_REQUIRE_SANDBOX", "") not in ("", "0")


def require_sandbox() -> None:
    """Skip (fail, with ARENA_REQUIRE_SANDBOX) where this machine cannot run sandboxes."""
    try:
        probe_host()
    except SandboxUnavailable as error:
        if _REQUIRED:
            raise
        pytest.skip(f"the sandbox is not available here: {error}")


@contextmanager
def reachable_directory(prefix: str) -> Iterator[Path]:
    """A directory the sandboxes' uids can reach (pytest's own temporary directories are
    private to root), removed afterwards; without a sandbox here, the test fails or skips
    (`require_sandbox`)."""
    require_sandbox()
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def builds() -> Iterator[Path]:
    """A directory for builds that the sandboxes' uids can reach."""
    with reachable_directory("arena-sandbox-builds-") as path:
        yield path


@pytest.fixture(scope="session")
def honest(builds: Path) -> Path:
    """The honest Python bot, built."""
    return build_bot(BOTS / "python", "python", builds / "honest").bot.directory


def build_hostile(builds: Path, name: str, *args: str) -> Path:
    """Build the hostile program `name` (tests/sandbox/hostile/NAME.py); the test, which
    is trusted, gives it `args` in its manifest's command."""
    out = builds / f"hostile-{name}-{len(list(builds.iterdir()))}"
    source = builds / f"source-{out.name}"
    source.mkdir()
    shutil.copy(HOSTILE / f"{name}.py", source / "bot.py")
    build_bot(source, "python", out)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["command"] += list(args)
    (out / MANIFEST).write_text(json.dumps(manifest))
    return out


def play(bots: Sequence[Any], *, game: str = "sim", seed: int = 1) -> MatchRecord:
    """One game between `bots`, then every hosted bot closed."""
    try:
        loaded = default_registry().load_game(game, {})
        return play_match(loaded, list(bots), seed=seed,
                          names=[repr(bot) for bot in bots]).record()
    finally:
        for bot in bots:
            close = getattr(bot, "close", None)
            if close is not None:
                close()


def hosted(directory: Path, time_control: TimeControl = GENEROUS,
           spec: SandboxSpec | None = None) -> HostedBot:
    return HostedBot(directory, time_control=time_control, spec=spec)


def reports(record: MatchRecord, seat: int) -> list[str]:
    """A hostile program's REPORT lines (its standard error, kept with the game)."""
    return [note.text.removeprefix("stderr: REPORT ") for note in record.notes
            if note.player == seat and note.text.startswith("stderr: REPORT ")]


def leftovers() -> dict[str, Any]:
    """Whatever of any sandbox is still there: processes of the sandbox uids, and
    sandbox cgroups made by this process."""
    spec = SandboxSpec()
    with os.scandir("/proc") as entries:
        pids = [int(entry.name) for entry in entries if entry.name.isdigit()]
    processes = {pid for pid, uids in tree.process_uids(pids).items()
                 if any(spec.uid_base <= uid < spec.uid_base + spec.uids for uid in uids)
                 and not tree.is_zombie(pid)}
    groups = [str(child) for hierarchy in cgroup_layout() if hierarchy.parent.is_dir()
              for child in hierarchy.parent.iterdir()
              if child.is_dir() and child.name.startswith(f"{os.getpid()}-")]
    return {"processes": sorted(processes), "cgroups": groups}


@pytest.fixture
def no_leftovers() -> Iterator[None]:
    """The test leaves no process and no cgroup of a sandbox behind."""
    yield
    assert leftovers() == {"processes": [], "cgroups": []}
