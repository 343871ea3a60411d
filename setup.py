"""Build the compiled rule cores; everything else is declared in pyproject.toml."""

from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension("arena.games.substitution._core", ["arena/games/substitution/_core.pyx"]),
    Extension("arena.games.sim._search", ["arena/games/sim/_search.pyx"]),
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
    ),
)
