"""Built-in heap games, by EGE task number."""

from __future__ import annotations

from typing import Any

from arena.errors import SettingsError

__all__ = ["EXAMPLES", "example_rules"]

EXAMPLES: dict[str, dict[str, Any]] = {
    "49932": {
        "title": (
            "EGE 49932: two heaps; add 5 to the larger heap or double the smaller one; "
            "with equal heaps add 3 to either; the game ends when the product reaches N."
        ),
        "heaps": 2,
        "end": {"measure": "product", "at_least": 384},
        "moves": {"larger": ["+5"], "smaller": ["*2"], "equal": ["+3"]},
    },
}


def example_rules(name: str) -> dict[str, Any]:
    """The declarative rules of a built-in example (a copy)."""
    try:
        rules = EXAMPLES[name]
    except KeyError:
        raise SettingsError(
            f"heaps: no built-in example {name!r} (examples: {', '.join(sorted(EXAMPLES))})",
            code="example-unknown", params={"example": str(name)[:40], "known": ", ".join(sorted(EXAMPLES))}
        ) from None
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in rules.items()}
