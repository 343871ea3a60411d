"""The texts the web interface's JavaScript asks its catalogue for: the string literals of
the first argument of every `t(...)` call (both branches of a `cond ? "a" : "b"`, not a
literal compared with `===`), as `arena.web.catalogue` keys them (the English text)."""

from __future__ import annotations

import json
import re
from pathlib import Path

_CALL = re.compile(r"(?<![\w$])(?:ctx\.)?(?:t|gt|N_|gameT\([^()]*\))\(")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _first_argument(text: str, start: int) -> str:
    """The source of the call's first argument (up to a top-level ',' or ')')."""
    depth, i, quote = 0, start, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return text[start:i]
            depth -= 1
        elif c == "," and depth == 0:
            return text[start:i]
        i += 1
    return text[start:]


def keys_in(source: str) -> set[str]:
    """Every catalogue key `source` (a JavaScript file) asks for."""
    found = set()
    for call in _CALL.finditer(source):
        argument = _first_argument(source, call.end())
        for literal in _STRING.finditer(argument):
            if re.search(r"[!=]==\s*$", argument[:literal.start()]):
                continue  # a literal compared with, not a text
            found.add(json.loads(f'"{literal[1]}"'))
        # string concatenation in the argument: "a " + "b" is one key
        if re.fullmatch(r'\s*(?:"(?:[^"\\]|\\.)*"\s*\+\s*)+"(?:[^"\\]|\\.)*"\s*', argument):
            parts = [json.loads(f'"{m[1]}"') for m in _STRING.finditer(argument)]
            found -= set(parts)
            found.add("".join(parts))
    return found


def keys_of(path: Path) -> set[str]:
    return keys_in(path.read_text(encoding="utf-8"))
