"""Build the compiled rule cores; everything else is declared in pyproject.toml."""

from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension("arena.games.substitution._core", ["arena/games/substitution/_core.pyx"]),
    # The game loop and the referee are plain Python; compiling them halves the per-turn
    # overhead of in-process play (tournaments, benchmarks). The .py files stay the source.
    Extension("arena.chance", ["arena/chance.py"]),
    Extension("arena.match", ["arena/match.py"]),
    Extension("arena.referee", ["arena/referee.py"]),
    Extension("arena.games.substitution.game", ["arena/games/substitution/game.py"]),
    Extension("bots.substitution.random_bot", ["bots/substitution/random_bot.py"]),
    # The thesis's strategies (plain Python, compiled like the game loop: about 1.5-2x).
    *(
        Extension(f"bots.substitution.{name}", [f"bots/substitution/{name}.py"])
        for name in ("common", "metrics", "weighted", "shortwords", "search", "adaptive", "deep")
    ),
    # The wire protocol runs on every message the server and the SDK exchange.
    *(
        Extension(f"protocol.{name}", [f"protocol/{name}.py"])
        for name in ("schema", "connection", "codec", "movestring")
    ),
    Extension("arena.games.sim._search", ["arena/games/sim/_search.pyx"]),
    Extension("arena.games.heaps._forward", ["arena/games/heaps/_forward.pyx"]),
    Extension("arena.games.tiles._race", ["arena/games/tiles/_race.pyx"]),
    Extension(
        "arena.games.durak._core", ["arena/games/durak/_core.pyx"], language="c++"
    ),
]
# Build what this checkout has (a worktree may lack another game's sources).

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": "3",
            # Plain .py modules keep exact Python semantics: annotations are not C types.
            "annotation_typing": False,
        },
    ),
)
