"""Build the compiled modules; everything else is declared in pyproject.toml.

Two kinds of module are compiled (Cython):

* the Cython cores (``.pyx``): C-level rules and solvers; those of Sim, the heaps,
  Durak and the tiles have pure-Python twins, the substitution game's has none;
* plain ``.py`` modules, compiled only where ``bench/bench_compiled.py`` shows that it
  pays (docs/development.md has the figures); the ``.py`` file stays the source, and a
  ``.pxd`` beside it may declare its classes as extension types.

``ARENA_PURE=1`` builds the cores only: every plain module then runs as Python.

Every build records the SHA-256 of each source an extension was built from in
``arena/_extensions.json``; `arena.compiled` keeps an extension whose sources changed
since from loading. The build itself goes by those digests too: an extension whose
sources differ from the record is rebuilt whatever the files' times say. In an in-place
build, extensions of modules that are no longer compiled are deleted.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from Cython.Build import cythonize
from Cython.Build.Dependencies import create_dependency_tree
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGES = ("arena", "bots", "protocol", "clients")
MANIFEST = Path("arena") / "_extensions.json"
PURE = os.environ.get("ARENA_PURE", "") not in ("", "0")

CORES = [
    Extension("arena.games.substitution._core", ["arena/games/substitution/_core.pyx"]),
    Extension("arena.games.sim._search", ["arena/games/sim/_search.pyx"]),
    Extension("arena.games.heaps._forward", ["arena/games/heaps/_forward.pyx"]),
    Extension("arena.games.tiles._race", ["arena/games/tiles/_race.pyx"]),
    Extension("arena.games.durak._core", ["arena/games/durak/_core.pyx"], language="c++"),
]

PYTHON_MODULES = [
    # Instructions saved by compiling, from bench/bench_compiled.py --instructions (the
    # figures and the modules left out are in docs/development.md):
    "arena.match",  # with arena.referee: random-vs-random play 1.76x (match.pxd, referee.pxd)
    "arena.referee",
    "arena.chance",  # the dice, cimported by the compiled match loop (chance.pxd)
    "bots.substitution.common",  # the turn drafts: smart-random ~1.3x, search-4 1.09x
    "bots.substitution.search",  # search-4 1.88x
    "bots.substitution.deep",  # deep-search 1.14x
    "bots.substitution.program.strategies",  # the thesis program's strategies 2.3x
    "protocol.schema",  # validating a frame: a your_turn 1.86x (the SDK), a move 1.20x
]
"""Plain modules compiled, because a benchmark shows that it pays (at least 10%)."""


def _module_source(name: str) -> str:
    return name.replace(".", "/") + ".py"


EXTENSIONS = CORES + ([] if PURE else [Extension(n, [_module_source(n)]) for n in PYTHON_MODULES])


def _digest(path: str) -> str:
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


def _record(extension: Extension) -> dict[str, object]:
    """The manifest entry of `extension`: its sources' digests and what it cimports."""
    source = extension.sources[0]
    tree = create_dependency_tree()
    files = sorted(p for p in tree.all_dependencies(source) if not os.path.isabs(p))
    compiled = {e.name for e in EXTENSIONS}
    cimports = sorted(
        name for p in files if p.endswith(".pxd")
        and (name := p[:-4].replace("/", ".")) in compiled and name != extension.name
    )
    return {
        "sources": {p: _digest(p) for p in files},
        "cimports": cimports,
        "python": source.endswith(".py"),
    }


def _read_manifest(path: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


RECORDS = {e.name: _record(e) for e in EXTENSIONS}
_BUILT = _read_manifest(ROOT / MANIFEST)
CHANGED = {name for name in RECORDS if _BUILT.get(name, {}).get("sources") != RECORDS[name]["sources"]}
"""Extensions whose sources differ from the last build's record (or that it does not
list): rebuilt, whatever the files' modification times say."""


class BuildExt(build_ext):
    """``build_ext`` on every core that writes the manifest and, in place, deletes the
    extensions of modules that are no longer compiled. (An extension whose sources
    changed is rebuilt because `_cythonize` regenerated its C file.)"""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        super().run()
        base = ROOT if self.inplace else Path(self.build_lib)
        manifest = base / MANIFEST
        manifest.parent.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps(RECORDS, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        if self.inplace:
            self._delete_leftovers()

    def _delete_leftovers(self) -> None:
        suffix = self.get_ext_filename("x")[1:]  # e.g. ".cpython-311-x86_64-linux-gnu.so"
        for package in PACKAGES:
            for path in (ROOT / package).rglob(f"*{suffix}"):
                name = ".".join(path.relative_to(ROOT).parts)[: -len(suffix)]
                if name not in RECORDS:
                    print(f"deleting {path.relative_to(ROOT)} ({name} is no longer compiled)")
                    path.unlink()


def _cythonize(extensions: list[Extension]) -> list[Extension]:
    """Cython's C files, regenerated by time stamps and, for `CHANGED`, unconditionally."""
    directives = {
        "language_level": "3",
        # Plain .py modules keep exact Python semantics: annotations are not C types.
        "annotation_typing": False,
    }
    changed = [e for e in extensions if e.name in CHANGED]
    others = [e for e in extensions if e.name not in CHANGED]
    built = []
    for group, force in ((changed, True), (others, False)):
        if group:
            built += cythonize(group, compiler_directives=directives, force=force, quiet=True,
                               nthreads=os.cpu_count() or 1)
    return built


setup(ext_modules=_cythonize(EXTENSIONS), cmdclass={"build_ext": BuildExt})
