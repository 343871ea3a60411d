"""Build the compiled rule cores; everything else is declared in pyproject.toml."""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension("arena.games.substitution._core", ["arena/games/substitution/_core.pyx"]),
    Extension(
        "arena.games.durak._core", ["arena/games/durak/_core.pyx"], language="c++"
    ),
]
# Build what this checkout has (a worktree may lack another game's sources).
extensions = [ext for ext in extensions if all(Path(src).exists() for src in ext.sources)]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
    ),
)
