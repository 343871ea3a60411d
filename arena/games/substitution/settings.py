"""Game settings (the thesis's `GameSettings`) and its XML format.

The XML is what the thesis's program reads, writes and puts at the top of its logs::

    <GameSettings NumberOfMoves="200">
      <Productions>
        <Production Left="S">
          <Right>ABC</Right>
        </Production>
        ...
      </Productions>
      <RandomSettings TotalPossibility="36">
        <Possibilities>
          <Possibility>1</Possibility>
          ...
        </Possibilities>
      </RandomSettings>
    </GameSettings>
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from lxml import etree

from arena.errors import GrammarError, SettingsError
from arena.games.substitution.grammar import Grammar, ProductionGroup
from arena.games.substitution.presets import PRESETS, preset

__all__ = ["MAX_MOVES", "Settings", "load_grammar"]

MAX_MOVES = 100_000


@dataclass(frozen=True)
class Settings:
    """A grammar with its chance weights, and the number of turns each player makes."""

    grammar: Grammar
    moves: int

    def __post_init__(self) -> None:
        if not isinstance(self.moves, int) or isinstance(self.moves, bool) or not 1 <= self.moves <= MAX_MOVES:
            raise SettingsError(f"number of moves {self.moves!r} is not an integer from 1 to {MAX_MOVES}")

    @classmethod
    def preset(cls, name: str, moves: int = 200) -> Settings:
        return cls(preset(name), moves)

    # -- JSON (logs, wire) --------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "groups": [
                {"left": g.left, "alternatives": list(g.alternatives)} for g in self.grammar.groups
            ],
            "weights": list(self.grammar.weights),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        """Read settings as `to_json` writes them; raise `SettingsError` saying what is wrong."""
        if not isinstance(data, Mapping):
            raise SettingsError("settings must be an object")
        groups_data = data.get("groups")
        if not isinstance(groups_data, list):
            raise SettingsError("settings.groups must be a list of {left, alternatives}")
        groups = []
        for index, item in enumerate(groups_data):
            if not isinstance(item, Mapping) or not isinstance(item.get("alternatives"), list):
                raise SettingsError(f"settings.groups[{index}] must be {{left, alternatives: [...]}}")
            left: Any = item.get("left")
            try:
                groups.append(ProductionGroup(left, tuple(item["alternatives"])))
            except GrammarError as error:
                raise SettingsError(f"settings.groups[{index}]: {error}") from None
        weights = data.get("weights")
        if not isinstance(weights, list):
            raise SettingsError("settings.weights must be a list of positive integers")
        return cls(Grammar(tuple(groups), tuple(weights)), data.get("moves"))  # type: ignore[arg-type]

    # -- the thesis's XML -------------------------------------------------------------

    def to_xml(self) -> str:
        """The XML exactly as the thesis program's `WriteToStream` lays it out."""
        lines = [f'<GameSettings NumberOfMoves="{self.moves}">', "  <Productions>"]
        for group in self.grammar.groups:
            lines.append(f"    <Production Left={quoteattr(group.left)}>")
            lines.extend(f"      <Right>{escape(alt)}</Right>" for alt in group.alternatives)
            lines.append("    </Production>")
        lines += [
            "  </Productions>",
            f'  <RandomSettings TotalPossibility="{self.grammar.total_weight}">',
            "    <Possibilities>",
        ]
        lines.extend(f"      <Possibility>{w}</Possibility>" for w in self.grammar.weights)
        lines += ["    </Possibilities>", "  </RandomSettings>", "</GameSettings>"]
        return "\n".join(lines)

    @classmethod
    def from_xml(cls, text: str | bytes) -> Settings:
        """Read the thesis's XML; raise `GrammarError` naming the line and the problem."""
        parser = etree.XMLParser(
            resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
        )
        data = text.encode("utf-8") if isinstance(text, str) else text
        try:
            root = etree.fromstring(data, parser)
        except etree.XMLSyntaxError as error:
            raise GrammarError(f"not well-formed XML: {error.msg}", error.lineno or 0) from None
        return _read_game_settings(root)


def _element(parent: Any, tag: str) -> Any:
    found = [child for child in parent if child.tag == tag]
    if not found:
        raise GrammarError(f"<{parent.tag}> has no <{tag}>", parent.sourceline or 0)
    if len(found) > 1:
        raise GrammarError(f"<{parent.tag}> has more than one <{tag}>", found[1].sourceline or 0)
    return found[0]


def _int(value: str | None, what: str, line: int) -> int:
    if value is None:
        raise GrammarError(f"missing {what}", line)
    text = value.strip()
    if not text.lstrip("-").isdigit() or not text.isascii() or len(text) > 12:
        raise GrammarError(f"{what} {value!r} is not an integer", line)
    return int(text)


def _read_game_settings(root: Any) -> Settings:
    if root.tag != "GameSettings":
        raise GrammarError(f"the root element is <{root.tag}>, not <GameSettings>", root.sourceline or 0)
    line = root.sourceline or 0
    moves = _int(root.get("NumberOfMoves"), "NumberOfMoves attribute", line)
    if not 1 <= moves <= MAX_MOVES:
        raise GrammarError(f"NumberOfMoves {moves} is not from 1 to {MAX_MOVES}", line)
    groups = []
    for production in _element(root, "Productions"):
        if not isinstance(production.tag, str):
            continue  # comments
        where = production.sourceline or 0
        if production.tag != "Production":
            raise GrammarError(f"<{production.tag}> inside <Productions>", where)
        left = production.get("Left")
        if left is None:
            raise GrammarError("<Production> has no Left attribute", where)
        rights = []
        for right in production:
            if not isinstance(right.tag, str):
                continue
            if right.tag != "Right":
                raise GrammarError(f"<{right.tag}> inside <Production>", right.sourceline or 0)
            rights.append(right.text or "")
        try:
            groups.append(ProductionGroup(left, tuple(rights)))
        except GrammarError as error:
            raise GrammarError(error.reason, where) from None
    random_settings = _element(root, "RandomSettings")
    rline = random_settings.sourceline or 0
    total = _int(random_settings.get("TotalPossibility"), "TotalPossibility attribute", rline)
    weights = []
    for possibility in _element(random_settings, "Possibilities"):
        if not isinstance(possibility.tag, str):
            continue
        pline = possibility.sourceline or 0
        if possibility.tag != "Possibility":
            raise GrammarError(f"<{possibility.tag}> inside <Possibilities>", pline)
        weight = _int(possibility.text, "Possibility", pline)
        if weight <= 0:
            raise GrammarError(f"Possibility {weight} is not positive", pline)
        weights.append(weight)
    if len(weights) != len(groups):
        raise GrammarError(f"{len(weights)} possibilities for {len(groups)} productions", rline)
    if sum(weights) != total:
        raise GrammarError(f"the possibilities sum to {sum(weights)}, not TotalPossibility {total}", rline)
    if not groups:
        raise GrammarError("<Productions> is empty", line)
    return Settings(Grammar(tuple(groups), tuple(weights)), moves)


def load_grammar(spec: str) -> Grammar:
    """A grammar from a preset name, a text file or a thesis XML settings file."""
    if spec in PRESETS:
        return preset(spec)
    path = Path(spec)
    if not path.is_file():
        raise SettingsError(f"{spec!r} is neither a grammar preset ({', '.join(PRESETS)}) nor a file")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise GrammarError(f"{spec}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    try:
        if text.lstrip().startswith("<"):
            return Settings.from_xml(text.encode("utf-8")).grammar
        return Grammar.from_text(text)
    except GrammarError as error:
        raise GrammarError(f"{spec}: {error.reason}", error.line) from None
