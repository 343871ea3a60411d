"""Game settings (the thesis's `GameSettings`) and its XML format.

The XML is what the thesis's program reads, writes and puts at the top of its logs
(``NumberOfMoves`` is the number of turns each player makes)::

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

The bank rule (`bank_rule`): ``strict`` (the default) enforces the rules as the thesis
writes them; ``thesis-program`` is what the thesis program's `Game` class accepts (no
end-of-turn bank obligation, out-of-range word indexes tolerated; see `_core.pyx` and
docs/substitution.md). JSON settings record it as ``"bank_rule": "thesis-program"``, so
a log is judged by the rule it was played under; settings without the field are
``strict`` (the field is left out for ``strict``: every log and message from before
the setting stays valid and unchanged). In the XML it is an extra ``BankRule``
attribute, likewise written only for ``thesis-program`` (the program ignores attributes
it does not know).
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

__all__ = ["BANK_RULES", "DEFAULT_MOVES", "MAX_MOVES", "Settings", "load_grammar", "load_settings"]

MAX_MOVES = 100_000

DEFAULT_MOVES = 200
"""Turns per player when neither the command nor a thesis XML file says (the thesis's 200)."""

BANK_RULES = ("strict", "thesis-program")
"""The values of `Settings.bank_rule`: the rules as written, and the thesis program's."""


@dataclass(frozen=True)
class Settings:
    """A grammar with its chance weights, the number of turns each player makes, and
    the bank rule the referee enforces."""

    grammar: Grammar
    moves: int
    bank_rule: str = "strict"

    def __post_init__(self) -> None:
        if not isinstance(self.moves, int) or isinstance(self.moves, bool) or not 1 <= self.moves <= MAX_MOVES:
            raise SettingsError(f"number of moves {self.moves!r} is not an integer from 1 to {MAX_MOVES}",
                                code="moves-range", params={"maximum": MAX_MOVES})
        if self.bank_rule not in BANK_RULES:
            raise SettingsError(
                f"bank_rule {self.bank_rule!r} is not one of {', '.join(BANK_RULES)}",
                code="bank-rule", params={"value": str(self.bank_rule)[:40], "known": ", ".join(BANK_RULES)}
            )

    @classmethod
    def preset(cls, name: str, moves: int = DEFAULT_MOVES, bank_rule: str = "strict") -> Settings:
        return cls(preset(name), moves, bank_rule)

    @property
    def program_rule(self) -> bool:
        """True under the thesis program's bank rule."""
        return self.bank_rule == "thesis-program"

    # -- JSON (logs, wire) --------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "moves": self.moves,
            "groups": [
                {"left": g.left, "alternatives": list(g.alternatives)} for g in self.grammar.groups
            ],
            "weights": list(self.grammar.weights),
        }
        if self.bank_rule != "strict":
            data["bank_rule"] = self.bank_rule
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Settings:
        """Read settings as `to_json` writes them; raise `SettingsError` saying what is wrong."""
        if not isinstance(data, Mapping):
            raise SettingsError("settings must be an object", code="settings-not-object")
        groups_data = data.get("groups")
        if not isinstance(groups_data, list):
            raise SettingsError("settings.groups must be a list of {left, alternatives}",
                                code="groups-not-list")
        groups = []
        for index, item in enumerate(groups_data):
            if not isinstance(item, Mapping) or not isinstance(item.get("alternatives"), list):
                raise SettingsError(f"settings.groups[{index}] must be {{left, alternatives: [...]}}",
                                    code="group-shape", params={"index": index})
            left: Any = item.get("left")
            try:
                groups.append(ProductionGroup(left, tuple(item["alternatives"])))
            except GrammarError as error:
                raise SettingsError(f"settings.groups[{index}]: {error}", code=error.code,
                                    params=error.params) from None
        weights = data.get("weights")
        if not isinstance(weights, list):
            raise SettingsError("settings.weights must be a list of positive integers",
                                code="weights-not-list")
        bank_rule = data.get("bank_rule", "strict")  # logs from before the setting: strict
        if not isinstance(bank_rule, str):
            raise SettingsError(f"settings.bank_rule must be one of {', '.join(BANK_RULES)}",
                                code="bank-rule", params={"value": str(bank_rule)[:40], "known": ", ".join(BANK_RULES)})
        return cls(Grammar(tuple(groups), tuple(weights)), data.get("moves"), bank_rule)  # type: ignore[arg-type]

    # -- the thesis's XML -------------------------------------------------------------

    def to_xml(self) -> str:
        """The XML exactly as the thesis program's `WriteToStream` lays it out."""
        rule = f" BankRule={quoteattr(self.bank_rule)}" if self.program_rule else ""
        lines = [f'<GameSettings NumberOfMoves="{self.moves}"{rule}>', "  <Productions>"]
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
            raise GrammarError(f"not well-formed XML: {error.msg}", error.lineno or 0,
                               code="xml-not-well-formed") from None
        return _read_game_settings(root)


def _element(parent: Any, tag: str) -> Any:
    found = [child for child in parent if child.tag == tag]
    if not found:
        raise GrammarError(f"<{parent.tag}> has no <{tag}>", parent.sourceline or 0,
                           code="xml-missing-element", params={"parent": parent.tag, "tag": tag})
    if len(found) > 1:
        raise GrammarError(f"<{parent.tag}> has more than one <{tag}>", found[1].sourceline or 0,
                           code="xml-second-element", params={"parent": parent.tag, "tag": tag})
    return found[0]


def _int(value: str | None, what: str, line: int) -> int:
    if value is None:
        raise GrammarError(f"missing {what}", line, code="xml-missing-value",
                           params={"what": what.removesuffix(" attribute")})
    text = value.strip()
    if not text.lstrip("-").isdigit() or not text.isascii() or len(text) > 12:
        raise GrammarError(f"{what} {value!r} is not an integer", line, code="xml-not-integer",
                           params={"what": what.removesuffix(" attribute"), "value": value[:40]})
    return int(text)


def _read_game_settings(root: Any) -> Settings:
    if root.tag != "GameSettings":
        raise GrammarError(f"the root element is <{root.tag}>, not <GameSettings>", root.sourceline or 0,
                           code="xml-root", params={"tag": str(root.tag)[:40]})
    line = root.sourceline or 0
    moves = _int(root.get("NumberOfMoves"), "NumberOfMoves attribute", line)
    if not 1 <= moves <= MAX_MOVES:
        raise GrammarError(f"NumberOfMoves {moves} is not from 1 to {MAX_MOVES}", line,
                           code="xml-moves-range", params={"value": moves, "maximum": MAX_MOVES})
    bank_rule = root.get("BankRule", "strict")
    if bank_rule not in BANK_RULES:
        raise GrammarError(f"BankRule {bank_rule!r} is not one of {', '.join(BANK_RULES)}", line,
                           code="xml-bank-rule",
                           params={"value": bank_rule[:40], "known": ", ".join(BANK_RULES)})
    groups = []
    for production in _element(root, "Productions"):
        if not isinstance(production.tag, str):
            continue  # comments
        where = production.sourceline or 0
        if production.tag != "Production":
            raise GrammarError(f"<{production.tag}> inside <Productions>", where,
                               code="xml-unexpected-element",
                               params={"tag": str(production.tag)[:40], "parent": "Productions"})
        left = production.get("Left")
        if left is None:
            raise GrammarError("<Production> has no Left attribute", where, code="xml-no-left")
        rights = []
        for right in production:
            if not isinstance(right.tag, str):
                continue
            if right.tag != "Right":
                raise GrammarError(f"<{right.tag}> inside <Production>", right.sourceline or 0,
                                   code="xml-unexpected-element",
                                   params={"tag": str(right.tag)[:40], "parent": "Production"})
            rights.append(right.text or "")
        try:
            groups.append(ProductionGroup(left, tuple(rights)))
        except GrammarError as error:
            raise GrammarError(error.reason, where, code=error.code, params=error.params) from None
    random_settings = _element(root, "RandomSettings")
    rline = random_settings.sourceline or 0
    total = _int(random_settings.get("TotalPossibility"), "TotalPossibility attribute", rline)
    weights = []
    for possibility in _element(random_settings, "Possibilities"):
        if not isinstance(possibility.tag, str):
            continue
        pline = possibility.sourceline or 0
        if possibility.tag != "Possibility":
            raise GrammarError(f"<{possibility.tag}> inside <Possibilities>", pline,
                               code="xml-unexpected-element",
                               params={"tag": str(possibility.tag)[:40], "parent": "Possibilities"})
        weight = _int(possibility.text, "Possibility", pline)
        if weight <= 0:
            raise GrammarError(f"Possibility {weight} is not positive", pline,
                               code="xml-weight-not-positive", params={"weight": weight})
        weights.append(weight)
    if len(weights) != len(groups):
        raise GrammarError(f"{len(weights)} possibilities for {len(groups)} productions", rline,
                           code="xml-weights-count",
                           params={"weights": len(weights), "groups": len(groups)})
    if sum(weights) != total:
        raise GrammarError(f"the possibilities sum to {sum(weights)}, not TotalPossibility {total}", rline,
                           code="xml-total", params={"sum": sum(weights), "total": total})
    if not groups:
        raise GrammarError("<Productions> is empty", line, code="xml-no-productions")
    return Settings(Grammar(tuple(groups), tuple(weights)), moves, bank_rule)


def load_grammar(spec: str) -> Grammar:
    """A grammar from a preset name, a text file or a thesis XML settings file."""
    return _load(spec)[0]


def load_settings(spec: str, moves: int | None = None, bank_rule: str | None = None,
                  default_moves: int = DEFAULT_MOVES) -> Settings:
    """Settings from a grammar spec (as `load_grammar`) and the command's options.

    The number of moves is `moves` if given, else the thesis XML file's
    ``NumberOfMoves``, else `default_moves`; the bank rule likewise (`bank_rule`, else
    the XML's ``BankRule``, else strict).
    """
    grammar, from_file = _load(spec)
    return Settings(
        grammar,
        moves if moves is not None else from_file.moves if from_file else default_moves,
        bank_rule if bank_rule is not None else from_file.bank_rule if from_file else "strict",
    )


def _load(spec: str) -> tuple[Grammar, Settings | None]:
    """The grammar of `spec`, and the whole settings when it is a thesis XML file."""
    if spec in PRESETS:
        return preset(spec), None
    path = Path(spec)
    if not path.is_file():
        raise SettingsError(f"{spec!r} is neither a grammar preset ({', '.join(PRESETS)}) nor a file",
                            code="grammar-spec", params={"spec": spec[:70], "known": ", ".join(PRESETS)})
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise GrammarError(f"{spec}: not UTF-8 text ({error.reason} at byte {error.start})",
                           code="file-not-utf8", params={"file": spec[:70], "byte": error.start}) from None
    try:
        if text.lstrip().startswith("<"):
            settings = Settings.from_xml(text.encode("utf-8"))
            return settings.grammar, settings
        return Grammar.from_text(text), None
    except GrammarError as error:
        raise GrammarError(f"{spec}: {error.reason}", error.line, code=error.code,
                           params=error.params) from None
