"""The substitution game's move string: the thesis's `Move.ToString` / `FromString`.

A move is a list of steps separated by commas; a step is three 0-based integers
separated by spaces, ``word group production``. Word ``-1`` starts a new derivation.
The empty string is the empty move: nothing was applied and the rolled group goes to
the bank. The thesis program writes steps joined by ``", "``; so do we.

    >>> MoveString.parse("-1 0 1, 0 3 0")
    MoveString.parse('-1 0 1, 0 3 0')
    >>> str(MoveString.parse("  "))
    ''
"""

from __future__ import annotations

import re
from typing import NamedTuple, TypeAlias

from arena.errors import MalformedMove

__all__ = ["MAX_STEPS", "MoveString", "Step"]

MAX_STEPS = 100_000
"""Longer moves are refused unread; a legal turn can't use more steps than the bank holds."""

_NUMBER = r"(-?[0-9]{1,9})"
_STEP = re.compile(rf"{_NUMBER}[ \t]+{_NUMBER}[ \t]+{_NUMBER}")


Step: TypeAlias = tuple[int, int, int]
"""One application: ``(word, group, production)``, production `production` of group
`group` applied to derivation `word` (``-1``: a new derivation)."""


class MoveString(NamedTuple):
    """A whole turn as the thesis writes it (an immutable value)."""

    steps: tuple[Step, ...] = ()

    @classmethod
    def parse(cls, text: str) -> MoveString:
        """Read a move string; raise `MalformedMove` saying which step is wrong and why."""
        if not isinstance(text, str):
            raise MalformedMove(f"a move must be a string, not {type(text).__name__}")
        stripped = text.strip()
        if not stripped:
            return cls()
        parts = stripped.split(",")
        if len(parts) > MAX_STEPS:
            raise MalformedMove(f"too many steps ({len(parts)}; at most {MAX_STEPS})")
        steps = []
        for index, part in enumerate(parts):
            item = part.strip()
            match = _STEP.fullmatch(item)
            if match is None:
                raise MalformedMove(_explain(index, item), index)
            steps.append((int(match[1]), int(match[2]), int(match[3])))
        return cls(tuple(steps))

    def __str__(self) -> str:
        return ", ".join([f"{w} {g} {p}" for w, g, p in self.steps])

    def __repr__(self) -> str:
        return f"MoveString.parse({str(self)!r})"



def _explain(index: int, item: str) -> str:
    where = f"step {index}"  # 0-based, as `Rejection.step` and the wire's step
    if not item:
        return f"{where} is empty (stray comma?)"
    fields = item.split()
    if len(fields) != 3:
        return f"{where} {item!r} has {len(fields)} field(s); a step is 'word group production'"
    for name, value in zip(("word", "group", "production"), fields, strict=True):
        if not re.fullmatch(r"-?[0-9]+", value):
            return f"{where} {item!r}: {name} {value!r} is not an integer"
        if len(value.lstrip("-")) > 9:
            return f"{where}: {name} has more than 9 digits"
    return f"{where} {item!r}: fields must be separated by spaces"
