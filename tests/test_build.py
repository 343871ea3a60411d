"""The build never lets stale compiled code run, and the build in use is the one asked for.

`setup.py` compiles some modules and records their sources' digests; `arena.compiled`
refuses (or, for a plain ``.py`` module, bypasses) an extension whose sources changed
since; `make` rebuilds on every `make setup`/`test`/`run`. Each test edits a copy of the
project, never the checkout.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import compiled

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "bots", "protocol", "clients")
MANIFEST = json.loads(compiled.MANIFEST.read_text(encoding="utf-8"))
PLAIN = sorted(name for name, entry in MANIFEST.items() if entry["python"])
CORES = sorted(name for name, entry in MANIFEST.items() if not entry["python"])
PURE = compiled.pure_modules() is True
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # ".cpython-311-x86_64-linux-gnu.so"


def copy_project(target: Path, *, build_tree: bool = False) -> Path:
    """The packages (with their extensions and the manifest) and the build files; with
    `build_tree`, what an incremental build compares with (C files, ``build/lib.*``)."""
    skip = ["__pycache__"] + ([] if build_tree else ["*.c", "*.cpp"])
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns(*skip))
    for name in ("setup.py", "pyproject.toml", "README.md", "Makefile"):
        shutil.copy2(ROOT / name, target / name)
    if build_tree:
        for built in (ROOT / "build").glob("lib.*"):
            shutil.copytree(built, target / "build" / built.name)
    return target


def run_python(root: Path, code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("ARENA_PURE", "PYTHONPATH")}
    environment.update(PYTHONPATH=str(root), **env)
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=environment,
                          capture_output=True, text=True, timeout=120, check=False)


def edit(path: Path, addition: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + addition, encoding="utf-8")


def test_the_build_in_use_is_the_one_asked_for() -> None:
    """The main run loads every compiled module compiled; the ARENA_PURE=1 run (a separate
    build, see the Makefile) has no plain module compiled and loads each from source."""
    assert CORES, "the Cython cores are always compiled"
    for name in CORES:
        assert importlib.import_module(name).__file__.endswith(SUFFIX), name
    for package in PACKAGES:
        for extension in (ROOT / package).rglob(f"*{SUFFIX}"):
            name = ".".join(extension.relative_to(ROOT).parts)[: -len(SUFFIX)]
            assert name in MANIFEST, f"{extension} was not built by setup.py"
    if PURE:
        assert not PLAIN, "an ARENA_PURE=1 build compiles no plain module"
        for name in ("arena.match", "arena.referee", "protocol.schema"):
            assert importlib.import_module(name).__file__.endswith(".py"), name
    else:
        assert {"arena.match", "arena.referee"} <= set(PLAIN)
        for name in PLAIN:
            assert importlib.import_module(name).__file__.endswith(SUFFIX), name


@pytest.mark.skipif(not PLAIN, reason="no plain module is compiled in this build (ARENA_PURE)")
def test_an_edited_plain_module_runs_from_its_source_until_rebuilt(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    edit(root / "arena" / "referee.py", "\nEDITED = 'new-behaviour'\n")
    probe = ("import arena.referee as r, arena.match as m, bots.substitution.search as s;"
             "print(getattr(r, 'EDITED', None), r.__file__, m.__file__, s.__file__)")
    result = run_python(root, probe)
    assert result.returncode == 0, result.stderr
    edited, referee, match, search = result.stdout.split()
    assert edited == "new-behaviour"
    assert referee.endswith("referee.py")
    # match's extension types are built against the referee's: it runs from source too
    assert match.endswith("match.py")
    assert search.endswith(SUFFIX)  # untouched modules stay compiled
    assert "StaleExtensionWarning: arena/referee.py changed since arena.referee was compiled" \
        in result.stderr and "make setup" in result.stderr

    # An edit to a .pxd alone makes its module (and those that cimport it) stale too.
    root_pxd = copy_project(tmp_path / "pxd")
    edit(root_pxd / "arena" / "referee.pxd", "\n# edited\n")
    result = run_python(root_pxd, "import arena.match as m, arena.referee as r;"
                                  "print(m.__file__, r.__file__)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(root_pxd / "arena" / "match.py"),
                                     str(root_pxd / "arena" / "referee.py")]


def test_an_edited_core_is_refused_or_replaced_by_its_pure_twin(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    edit(root / "arena" / "games" / "substitution" / "_core.pyx", "\n# edited\n")
    edit(root / "arena" / "games" / "sim" / "_search.pyx", "\n# edited\n")
    result = run_python(root, "import arena.games.substitution")
    assert result.returncode != 0
    assert ("ImportError: arena/games/substitution/_core.pyx changed since "
            "arena.games.substitution._core was compiled") in result.stderr
    assert "rebuild it with `make setup`" in result.stderr
    result = run_python(root, "from arena.games.sim import solver; print(solver.compiled)")
    assert result.returncode == 0 and result.stdout.split() == ["False"], result.stderr


def test_arena_pure_loads_plain_modules_from_source_without_a_warning(tmp_path: Path) -> None:
    result = run_python(ROOT, "import arena.match as m, arena.games.substitution._core as c;"
                              "print(m.__file__, c.__file__)", ARENA_PURE="1")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    match, core = result.stdout.split()
    assert match == str(ROOT / "arena" / "match.py") and core.endswith(SUFFIX)


@pytest.mark.skipif(PURE, reason="needs the compiled build (the main run)")
@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_rebuilds_an_edited_source_even_if_its_time_says_it_is_old(tmp_path: Path) -> None:
    """`make setup`/`test`/`run` run the incremental build: an edit takes effect, even when
    the file's time is older than the extension's (cp -p, an editor that keeps times)."""
    root = copy_project(tmp_path, build_tree=True)
    path = root / "arena" / "referee.py"
    times = path.stat()
    edit(path, "\nEDITED = 42\n")
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))  # as old as it was
    venv = Path(sys.executable).parent.parent
    stamp = venv / ".installed"  # not remade: this venv is the checkout's
    result = subprocess.run(  # -O0: this is about what gets rebuilt, not its speed
        ["make", "-C", str(root), "build", f"VENV={venv}", "-o", str(stamp)],
        env={**os.environ, "CFLAGS": "-O0"}, capture_output=True, text=True, timeout=600,
        check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    probe = run_python(root, "import arena.referee as r, arena.match as m;"
                             "print(r.EDITED, r.__file__, m.__file__)", PYTHONWARNINGS="error")
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == [
        "42", str(root / "arena" / f"referee{SUFFIX}"), str(root / "arena" / f"match{SUFFIX}")]
