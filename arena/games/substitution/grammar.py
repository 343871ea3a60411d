"""Grammars of the substitution game and their text format (thesis, section 5.3).

A grammar is an ordered list of production groups; a group has one left nonterminal
and one or more alternatives. Nonterminals are the letters A-Z, every other character
is a terminal, and an alternative may be empty (written first or last, ``A->|a`` or
``A->aA|``, or anywhere as ``ε``; ``S->a||b`` is refused as a typo, and so is a second
``->`` as in ``B->->c``). ``S`` is the start symbol. Each group
also has a positive integer chance weight: the roll picks a group with probability
weight / total (default: two dice, sums 2..12 mapped to groups 0..10).

The text format has one group per line, ``S->ABC|AB``. Blank lines and lines starting
with ``#`` are ignored, whitespace around ``->``, ``|`` and the line is ignored, and an
optional ``weights: 1 2 3 ...`` line gives the chance weights (default: the dice for 11
groups, equal weights otherwise).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from arena.errors import GrammarError

__all__ = [
    "DICE_WEIGHTS",
    "NONTERMINALS",
    "START",
    "Grammar",
    "GrammarWarning",
    "ProductionGroup",
    "default_weights",
]

NONTERMINALS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
START = "S"
EMPTY = "ε"
"""The empty alternative written in the middle of a group (``S->a|ε|b``)."""
DICE_WEIGHTS = (1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)
"""Two dice: sums 2..12 map to groups 0..10, out of 36."""

MAX_GROUPS = 1000
MAX_ALTERNATIVE = 10_000
MAX_TOTAL_WEIGHT = 2**31 - 1
"""The chance weights' largest sum: the thesis program's ``TotalPossibility`` (a .NET
``int``), and far inside what the dice's draw computes with (a C ``long``)."""

_WEIGHTS_LINE = re.compile(r"weights\s*[:=](.*)", re.IGNORECASE)


def default_weights(group_count: int) -> tuple[int, ...]:
    """The dice for 11 groups, as in the thesis; equal weights for any other count."""
    return DICE_WEIGHTS if group_count == len(DICE_WEIGHTS) else (1,) * group_count


@dataclass(frozen=True)
class ProductionGroup:
    """``left -> alternatives[0] | alternatives[1] | ...``"""

    left: str
    alternatives: tuple[str, ...]

    def __post_init__(self) -> None:
        if not (isinstance(self.left, str) and len(self.left) == 1 and self.left in NONTERMINALS):
            raise GrammarError(f"left side {self.left!r} is not one capital letter A-Z",
                               code="bad-left", params={"left": _shorten(str(self.left))})
        if not self.alternatives:
            raise GrammarError(f"group {self.left}-> has no alternatives", code="no-alternatives",
                               params={"left": self.left})
        for alternative in self.alternatives:
            if not isinstance(alternative, str):
                raise GrammarError(f"alternative {alternative!r} of {self.left}-> is not text",
                                   code="alternative-not-text", params={"left": self.left})
            if len(alternative) > MAX_ALTERNATIVE:
                raise GrammarError(
                    f"an alternative of {self.left}-> is longer than {MAX_ALTERNATIVE} symbols",
                    code="alternative-too-long", params={"left": self.left, "most": MAX_ALTERNATIVE})

    def __str__(self) -> str:
        return f"{self.left}->{'|'.join(self.alternatives)}"

    def text(self) -> str:
        """The group in the text format: an empty alternative that is neither first nor
        last is written as ε."""
        last = len(self.alternatives) - 1
        return f"{self.left}->" + "|".join(
            EMPTY if a == "" and 0 < i < last else a for i, a in enumerate(self.alternatives))

    @classmethod
    def parse(cls, text: str, line: int = 0) -> ProductionGroup:
        """Read ``S->ABC|AB``; raise `GrammarError` with `line` on bad input."""
        left, arrow, right = text.partition("->")
        if not arrow:
            raise GrammarError(f"no '->' in {_shorten(text)!r}", line, code="no-arrow",
                               params={"text": _shorten(text)})
        left = left.strip()
        if len(left) != 1 or left not in NONTERMINALS:
            raise GrammarError(f"left side {_shorten(left)!r} is not one capital letter A-Z", line,
                               code="bad-left", params={"left": _shorten(left)})
        if "->" in right:
            raise GrammarError(f"a second '->' in {_shorten(text.strip())!r}", line,
                               code="second-arrow", params={"text": _shorten(text.strip())})
        alternatives = tuple(part.strip() for part in right.split("|"))
        inner = alternatives[1:-1]
        if "" in inner:
            raise GrammarError(
                f"an empty alternative between two '|' in {_shorten(text.strip())!r}: write "
                f"the empty word as {EMPTY} (or first or last: 'S->|a', 'S->a|')", line,
                code="empty-between-bars", params={"text": _shorten(text.strip())})
        alternatives = tuple("" if a == EMPTY else a for a in alternatives)
        for alternative in alternatives:
            if any(ch.isspace() for ch in alternative):
                raise GrammarError(
                    f"alternative {_shorten(alternative)!r} contains whitespace "
                    "(terminals are single characters; use the XML format for spaces)",
                    line, code="whitespace", params={"alternative": _shorten(alternative)},
                )
        try:
            return cls(left, alternatives)
        except GrammarError as error:
            raise GrammarError(error.reason, line, code=error.code, params=error.params) from None

    def text_problem(self) -> str | None:
        """Why this group cannot be written in the text format, or ``None``."""
        for alternative in self.alternatives:
            if "|" in alternative:
                return f"alternative {alternative!r} of {self.left}-> contains '|'"
            if alternative != alternative.strip() or any(ch.isspace() for ch in alternative):
                return f"alternative {alternative!r} of {self.left}-> contains whitespace"
            if "->" in alternative or alternative == EMPTY:
                return f"alternative {alternative!r} of {self.left}-> would read differently"
        return None


class GrammarWarning(NamedTuple):
    """A warning: its code (for a page to say it in its language) and its English text."""

    code: str
    text: str


@dataclass(frozen=True)
class Grammar:
    """Production groups with their chance weights."""

    groups: tuple[ProductionGroup, ...]
    weights: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.groups:
            raise GrammarError("the grammar has no production groups", code="no-groups")
        if len(self.groups) > MAX_GROUPS:
            raise GrammarError(f"more than {MAX_GROUPS} production groups",
                               code="too-many-groups", params={"most": MAX_GROUPS})
        if len(self.weights) != len(self.groups):
            raise GrammarError(
                f"{len(self.weights)} weights for {len(self.groups)} production groups",
                code="weights-count", params={"weights": len(self.weights),
                                              "groups": len(self.groups)})
        for index, weight in enumerate(self.weights):
            if not isinstance(weight, int) or isinstance(weight, bool) or weight <= 0:
                raise GrammarError(f"weight {_shorten(repr(weight))} of group {index} is not "
                                   "a positive integer", code="group-weight-not-positive",
                                   params={"weight": _shorten(repr(weight)), "group": index})
        if sum(self.weights) > MAX_TOTAL_WEIGHT:
            raise GrammarError(f"the weights sum to {_shorten(str(sum(self.weights)))}; at "
                               f"most {MAX_TOTAL_WEIGHT}", code="weights-too-large",
                               params={"sum": _shorten(str(sum(self.weights))),
                                       "most": MAX_TOTAL_WEIGHT})

    @classmethod
    def of(cls, groups: list[str] | tuple[str, ...], weights: tuple[int, ...] | None = None) -> Grammar:
        """Build from group strings (``["S->ABC", "A->a"]``), default weights if none."""
        parsed = tuple(ProductionGroup.parse(text, line) for line, text in enumerate(groups, 1))
        return cls(parsed, tuple(weights) if weights is not None else default_weights(len(parsed)))

    @property
    def total_weight(self) -> int:
        return sum(self.weights)

    def probability(self, group: int) -> float:
        return self.weights[group] / self.total_weight

    @property
    def nonterminals(self) -> frozenset[str]:
        """Every nonterminal that appears anywhere in the grammar."""
        letters = {group.left for group in self.groups}
        for group in self.groups:
            for alternative in group.alternatives:
                letters.update(ch for ch in alternative if ch in NONTERMINALS)
        return frozenset(letters)

    def warnings(self) -> list[str]:
        """The English texts of `coded_warnings`."""
        return [warning.text for warning in self.coded_warnings()]

    def coded_warnings(self) -> list[GrammarWarning]:
        """What makes this grammar a poor game although it is valid: no group starts
        from S, or no word derived from S can ever be finished (every derivation keeps
        a nonterminal that no group rewrites into terminals)."""
        problems = []
        if not any(group.left == START for group in self.groups):
            problems.append(GrammarWarning(
                "no-start-group", f"no group starts from {START}: no derivation can begin"))
        finishing: set[str] = set()  # nonterminals that derive a word of terminals
        changed = True
        while changed:
            changed = False
            for group in self.groups:
                if group.left not in finishing and any(
                        all(ch not in NONTERMINALS or ch in finishing for ch in alternative)
                        for alternative in group.alternatives):
                    finishing.add(group.left)
                    changed = True
        if START not in finishing and any(group.left == START for group in self.groups):
            problems.append(GrammarWarning(
                "never-finished", f"no word can ever be finished: every derivation from "
                f"{START} keeps a nonterminal that no group turns into terminals"))
        return problems

    # -- text format -------------------------------------------------------------

    @classmethod
    def from_text(cls, text: str) -> Grammar:
        """Read the text format; raise `GrammarError` naming the line and the problem."""
        groups: list[ProductionGroup] = []
        weights: tuple[int, ...] | None = None
        weights_line = 0
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            match = _WEIGHTS_LINE.fullmatch(line)
            if match:
                if weights is not None:
                    raise GrammarError("a second weights line", number, code="second-weights-line")
                weights = _parse_weights(match[1], number)
                weights_line = number
                continue
            groups.append(ProductionGroup.parse(line, number))
        if not groups:
            raise GrammarError("the grammar has no production groups", code="no-groups")
        if weights is not None and len(weights) != len(groups):
            raise GrammarError(
                f"{len(weights)} weights for {len(groups)} production groups", weights_line,
                code="weights-count", params={"weights": len(weights), "groups": len(groups)})
        return cls(tuple(groups), weights if weights is not None else default_weights(len(groups)))

    def to_text(self) -> str:
        """The text format; raise `GrammarError` if a terminal cannot be written in it."""
        for group in self.groups:
            problem = group.text_problem()
            if problem:
                raise GrammarError(f"cannot write as text: {problem}", code="not-text-format",
                                   params={"group": group.left})
        lines = [group.text() for group in self.groups]
        if self.weights != default_weights(len(self.groups)):
            lines.append("weights: " + " ".join(str(w) for w in self.weights))
        return "\n".join(lines) + "\n"


def _parse_weights(text: str, line: int) -> tuple[int, ...]:
    items = [item for item in re.split(r"[\s,]+", text.strip()) if item]
    if not items:
        raise GrammarError("the weights line lists no weights", line, code="no-weights")
    weights = []
    for item in items:
        if not re.fullmatch(r"[0-9]{1,9}", item) or int(item) == 0:
            raise GrammarError(f"weight {_shorten(item)!r} is not a positive integer", line,
                               code="weight-not-positive", params={"weight": _shorten(item)})
        weights.append(int(item))
    return tuple(weights)


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
