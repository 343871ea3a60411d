"""Built-in grammars: those of the thesis's text and those built into its program.

The thesis's program ships grammars that differ from the ones its text describes;
its result tables were made with the program's (`classic`, `low-s`). Source of
`classic`, `low-s` and `long-chain`: the program's public repository,
https://github.com/Nasochec/ProductsGame (`ProductionsGameLauncher/MainWindow.xaml.cs`,
the grammars "classic", "low frequency of S" and "long chain"; weights 1 2 3 4 5 6 5 4
3 2 1 out of 36, as `RandomSettings` there).
"""

from __future__ import annotations

from arena.errors import SettingsError
from arena.games.substitution.grammar import Grammar

__all__ = ["PRESETS", "preset"]

_MEDIUM = (
    "S->ABC", "A->aA|B", "A->bc|CA", "A->a", "S->AB|AC", "B->b",
    "B->BBB", "C->AA|c", "C->A|B|c", "C->T|A", "B->abacabade",
)


def _with(changes: dict[int, str]) -> tuple[str, ...]:
    """The medium grammar with the given groups (1-based, as the thesis counts) replaced."""
    return tuple(changes.get(index, text) for index, text in enumerate(_MEDIUM, start=1))


PRESETS: dict[str, tuple[tuple[str, ...], str]] = {
    "medium": (_MEDIUM, "the grammar of section 1: medium chance of S (thesis text)"),
    "low": (_with({5: "A->AB|AC"}), "medium with group 5's left side S changed to A (section 6)"),
    "trap": (
        _with({1: "S->ABC|T", 5: "S->AB|AC|T"}),
        "medium with a useless T added to both S groups, a trap for stupid-short-words",
    ),
    "classic": (_with({8: "C->CC|c"}), "the thesis program's medium grammar (group 8 is C->CC|c)"),
    "low-s": (
        (
            "S->ABC", "A->aA|B", "A->bc|CA", "A->a", "B->AB|AC", "B->b",
            "B->BBB", "C->CC|c", "C->A|B|c", "C->B|A", "B->abacabade",
        ),
        "the thesis program's 'low frequency of S' grammar",
    ),
    "long-chain": (
        (
            "S->Arab", "A->Bernulli", "B->Ceoul", "C->Deli", "D->Exal", "E->Farid",
            "F->Jamal", "J->KKefteme|Cabaka", "K->Lorka", "L->Horse", "H->hallo",
        ),
        "the thesis program's long chain of single productions",
    ),
}


def preset(name: str) -> Grammar:
    """The built-in grammar `name` with the dice weights."""
    try:
        groups, _ = PRESETS[name]
    except KeyError:
        raise SettingsError(f"unknown grammar preset {name!r} (presets: {', '.join(PRESETS)})",
                            code="preset-unknown",
                            params={"name": str(name)[:40], "known": ", ".join(PRESETS)}) from None
    return Grammar.of(groups)
