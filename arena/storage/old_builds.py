"""Why a build stored before builds had codes failed, as a code (issue 28).

A build that failed keeps why in English (``bot_builds.detail``) and, since SQLite's
version 14 and PostgreSQL's 11, as a code and its values (``detail_code``,
``detail_params``) a page says in its language. The builds stored before then have the
English only: `old_detail` reads the code and values back from the English the build
gave (the messages of `arena.sandbox.build` and `arena.sandbox.unpack`, unchanged since),
so a page says those in its language too; a text none of `OLD_DETAILS` matches stays
English (the page marks it ``lang="en"``). Storage reads it on every build row
(`arena.storage.rows.build_row`), for SQLite and PostgreSQL alike: nothing is rewritten.
"""

from __future__ import annotations

import ast
import re

from arena.sandbox.unpack import shown_name

__all__ = ["OLD_DETAILS", "old_detail"]

_QUOTED = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""


def _q(name: str) -> str:
    """A group of a value the English gives as Python's repr (``'bot.py'``)."""
    return f"(?P<{name}>{_QUOTED})"


_FAILED = r"the build failed \((?:exit status -?\d+|killed by signal \d+)\)"

_BUILD = (
    ("upload-lang", rf"unknown language {_q('lang')} \(languages: (?P<known>.+)\)"),
    ("upload-speaks", rf"a program speaks one of .+, not {_q('speaks')}"),
    ("no-source-file", r"no (?P<files>\*\S+(?: or \*\S+)*) file in the sources(?: \(at the top\))?"),
    ("not-a-java-class", r"(?P<name>.+): not the name of a Java class"),
    ("entry-ambiguous", (r"no (?P<wanted>.+), and (?P<count>\d+) candidates at the top of the "
                        r"sources \((?P<candidates>.*)\): name the entry (?P<entry>\S+)")),
    ("no-entry", r"no (?P<wanted>.+) at the top of the sources"),
    ("not-a-program", (r"(?P<name>.+) is not a program: neither an ELF executable nor a script "
                      r"starting with '#!'")),
    ("build-directory-taken", (r"(?P<directory>.+) exists and is not an earlier build: give a "
                              r"new directory")),
    ("build-overtime", r"the build took more than (?P<seconds>\d+(?:\.\d+)?) s"),
    ("build-result-large", r"the build's result is larger than (?P<mib>\d+) MiB"),
    ("build-result-refused", r"the build's result is refused: .*"),
    ("build-memory", _FAILED + r": it reached its memory limit \((?P<mib>\d+) MiB\)"),
    ("build-processes", _FAILED + r": it reached its limit of (?P<most>\d+) processes"),
    ("build-killed", r"the build failed \(killed by signal (?P<signal>\d+)\)"),
    ("build-exit", r"the build failed \(exit status (?P<status>-?\d+)\)"),
    ("build-server-error", r"the server could not build it: .*"),
    ("build-interrupted", r"the server stopped during the build: upload it again"),
)
_RULES = (  # after "the sources are refused: "; NAME, PARENT, TARGET: quoted as Python wrote them
    ("source-nul", r"NAME: a NUL in a file name"),
    ("source-absolute", r"NAME: an absolute path"),
    ("source-dotdot", r"NAME: '\.\.' in a path"),
    ("source-path-long", r"NAME\.\.\.: a path longer than (?P<most>\d+) bytes"),
    ("source-deep", r"NAME: nested deeper than (?P<most>\d+) directories"),
    ("source-not-a-name", r"NAME: not a file name"),
    ("source-twice", r"NAME appears twice"),
    ("source-under-file", r"NAME is under PARENT, which is not a directory"),
    ("source-files", r"more than (?P<most>\d+) files and directories"),
    ("source-unpacked", rf"(?:{_QUOTED}: )?the files come to more than (?P<mib>\d+) MiB unpacked"),
    ("source-size-wrong", r"NAME holds more than the (?P<size>\d+) bytes it declares"),
    ("source-size-wrong", r"NAME holds \d+ bytes, not the (?P<size>\d+) it declares"),
    ("source-link-out", (r"NAME: a symbolic link may only point inside the sources \(to a "
                        r"relative path\), not to TARGET")),
    ("source-link-out", r"NAME: a symbolic link out of the sources \(TARGET\)"),
    ("source-archive-limit", r"the archive unpacks to more than its limit"),
    ("source-not-tar", r"not a readable tar archive: .*"),
    ("source-not-zip", r"not a readable zip archive: .*"),
    ("source-hard-link", (r"NAME: hard links are not taken \(use a copy or a relative symbolic "
                         r"link\)")),
    ("source-special", r"NAME: devices, pipes and sockets are not taken"),
    ("source-special", r"(?:.*/)?(?P<name>[^/]+): neither a file nor a directory"),
    ("source-link-long", r"NAME: a symbolic link too long"),
    ("source-too-large", r".+: \d+ MiB, more than the (?P<mib>\d+) MiB a bot's file may have"),
    ("source-empty", r".+: no files in it"),
)
OLD_DETAILS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (code, re.compile(pattern, re.DOTALL)) for code, pattern in (
        *_BUILD,
        *((code, "the sources are refused: " + re.sub(
            "NAME|PARENT|TARGET", lambda hole: _q(hole[0].lower()), pattern))
          for code, pattern in _RULES)))
"""Each code a build's English once gave, and the pattern of that English: its groups
are the code's params (a quoted one as Python wrote it)."""


def _value(code: str, key: str, text: str) -> str | int:
    if re.fullmatch(_QUOTED, text):
        try:
            text = str(ast.literal_eval(text))
        except (ValueError, SyntaxError):
            text = text[1:-1]
        # a path too long: the English quotes its first 80 characters, the params 79 and "…"
        return text[:79] + "…" if code == "source-path-long" else shown_name(text)
    if code == "no-source-file":  # "*.c or *.cc": the params list them as "*.c, *.cc"
        return text.replace(" or ", ", ")
    if re.fullmatch(r"-?\d+", text) and key != "name":
        return int(text)
    return text


def old_detail(detail: str | None) -> tuple[str, dict[str, str | int]] | None:
    """The code and params of a failed build's English `detail` from before codes, or
    None for a text no pattern of `OLD_DETAILS` knows."""
    if not detail:
        return None
    for code, pattern in OLD_DETAILS:
        found = pattern.fullmatch(detail)
        if found:
            return code, {key: _value(code, key, value)
                          for key, value in found.groupdict().items()}
    return None
