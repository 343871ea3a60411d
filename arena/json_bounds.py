"""JSON from strangers, bounded: how deep it nests and how large its numbers are.

Whatever JSON reaches the arena from outside, an HTTP request's body or a log uploaded
for replay (read by `arena.record.read_jsonl`, which every log goes through), is
checked here, in one place, before anything reads it. JSON itself has no such bounds,
and Python's code has them where it is not ready for them: a value nested 10,000 deep
is a `RecursionError` in the parser or in any code that walks it later (``repr``,
``json.dumps``), and a number like ``10**300`` an `OverflowError` where it meets a C
integer or a float (the dice's weights). A value beyond the bounds is refused with a
`JsonBoundsError` (a `ValueError`, so a 400 at the HTTP API and a bad log elsewhere)
naming where it is:

    >>> check({"settings": {"weights": [1, 10**300]}})
    Traceback (most recent call last):
    ...
    arena.json_bounds.JsonBoundsError: the number 10000000000000...000 (301 digits) at \
$.settings.weights[1] is beyond +-2**53 (9007199254740992)
    >>> loads('{"a": ' + '[' * 50_000 + ']' * 50_000 + '}', "the body")
    Traceback (most recent call last):
    ...
    arena.json_bounds.JsonBoundsError: the body nests deeper than 32 levels

The number bound is what every JSON reader takes exactly: integers within +-2**53 (a
seed beyond it is written as its decimal text, `arena.seeds.seed_to_json`), floats
finite and no larger.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_NUMBER", "JsonBoundsError", "check", "loads"]

MAX_DEPTH = 32
"""Arrays and objects inside one another (a game's settings nest 4 deep; a log line 5)."""

MAX_NUMBER = 2**53
"""The largest magnitude of a number: the integers every JSON reader holds exactly."""


class JsonBoundsError(ValueError):
    """JSON nested too deep, or with a number too large (the message says where)."""


def _float(text: str) -> float:
    number = float(text)
    if not -MAX_NUMBER <= number <= MAX_NUMBER:
        raise JsonBoundsError(f"the number {text[:20]} is beyond +-2**53 ({MAX_NUMBER})")
    return number


def _constant(name: str) -> Any:
    raise JsonBoundsError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_float=_float, parse_constant=_constant)
_LONG_INTEGER = re.compile(r"[0-9]{16}")
"""What an integer beyond the bounds is written with (as a few strings are)."""


def loads(text: str, what: str = "the JSON") -> Any:
    """`text` parsed as JSON and held to the bounds, at nearly `json.loads`'s speed (a
    log's lines come here): its floats as they are parsed, and the nesting and integers
    of the value (`check`) only where the text has room for what the bounds refuse
    (more brackets than `MAX_DEPTH`, 16 digits in a row).

    Raises:
        JsonBoundsError: beyond the bounds (`what` names the text in the message).
        json.JSONDecodeError: not JSON.
    """
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise JsonBoundsError(f"{what} nests deeper than {MAX_DEPTH} levels") from None
    if text.count("[") + text.count("{") > MAX_DEPTH or _LONG_INTEGER.search(text):
        check(value, what)
    return value


def check(value: Any, what: str = "the JSON") -> None:
    """Check a parsed JSON value against the bounds, without recursion (however deep).

    Raises:
        JsonBoundsError: nested deeper than `MAX_DEPTH`, or a number beyond
            `MAX_NUMBER` (or not finite), naming where.
    """
    if not isinstance(value, dict | list):
        _check_number(value, (value, 0, None, None))
        return
    # (value, depth, key, parent entry): the path is built only for the message
    stack: list[tuple[Any, int, Any, Any]] = [(value, 0, None, None)]
    while stack:
        entry = stack.pop()
        item, depth = entry[0], entry[1]
        if depth >= MAX_DEPTH:
            raise JsonBoundsError(f"{what} nests deeper than {MAX_DEPTH} levels "
                                  f"(at {_path(entry)})")
        for key, child in item.items() if isinstance(item, dict) else enumerate(item):
            if isinstance(child, dict | list):
                stack.append((child, depth + 1, key, entry))
            elif isinstance(child, int | float):
                _check_number(child, (child, depth + 1, key, entry))


def _check_number(number: Any, entry: tuple[Any, int, Any, Any]) -> None:
    if isinstance(number, int | float) and not isinstance(number, bool) and not (
            -MAX_NUMBER <= number <= MAX_NUMBER):  # NaN is in no range
        raise JsonBoundsError(f"the number {_shown(number)} at {_path(entry)} is beyond "
                              f"+-2**53 ({MAX_NUMBER})")


def _shown(number: float) -> str:
    if isinstance(number, float):
        return repr(number)
    text = str(number)  # a decoded integer has at most 4300 digits (Python's own limit)
    return f"{text[:14]}...{text[-3:]} ({len(text.lstrip('-'))} digits)" if len(text) > 20 \
        else text


def _path(entry: tuple[Any, int, Any, Any]) -> str:
    keys = []
    while entry[3] is not None:
        keys.append(entry[2])
        entry = entry[3]
    path = "$" + "".join(f"[{key}]" if isinstance(key, int) else f".{str(key)[:40]}"
                         for key in reversed(keys))
    return path if len(path) <= 80 else path[:77] + "..."
