"""The machine-readable contract: the protocol's JSON Schema with the games' own parts.

Pure functions of the registry (no I/O): `arena schema [--game NAME]` prints them and
the server answers them at ``GET /api/schema[?game=NAME]``. Every game plugin provides
its parts through `Game.json_schema` (settings, state, chance outcome, move string);
the messages (`protocol.jsonschema`) refer to them.

* `contract(registry)`: the protocol with generic game parts, and every game's parts
  under ``x-games`` (name -> parts and facts);
* `contract(registry, "sim")`: the protocol with Sim's parts filled in, so that a
  validator checks Sim's settings, states and moves inside the messages.

Both also hold the stdio bridge's line protocol (`arena.lines`): the JSON of each line
the bridge (or the local runner) writes, as ``#/$defs/line-KEYWORD``, derived from the
messages it relays, and an index of every line both ways under ``x-lines``.

`parts_markdown` renders a game's settings and state as tables, the per-game layouts
in `docs/bots.md` (a test keeps the two equal; ``arena schema --docs`` rewrites them).
"""

from __future__ import annotations

import re
from typing import Any

from arena.legal import LEGAL_ERROR_CODES
from arena.lines import LIMIT_FIELDS, LINE_PROTOCOL_VERSION, MAX_LINE, TURN_FIELDS
from arena.registry import Registry
from protocol.jsonschema import protocol_schema

__all__ = ["contract", "game_facts", "game_parts", "line_schemas", "lines_markdown",
           "parts_markdown", "update_docs"]


def game_facts(registry: Registry, name: str) -> dict[str, Any]:
    """What a bot needs to know of a game besides its schemas, from its `GameType`."""
    kind = registry.game_class(name).type
    return {
        "name": kind.name, "title": kind.title, "description": kind.description,
        "move_syntax": kind.move_syntax, "players": [kind.min_players, kind.max_players],
        "chance": kind.chance, "chance_name": kind.chance_name,
        "step_separator": kind.step_separator,
    }


def game_parts(registry: Registry, name: str) -> dict[str, Any]:
    """The game's ``settings``, ``state``, ``chance`` and ``move`` schemas."""
    return dict(registry.game_class(name).json_schema())


def contract(registry: Registry, game: str | None = None) -> dict[str, Any]:
    """The JSON Schema (2020-12) document: generic, or for one game (see the module
    docstring). Raises `SettingsError` for an unknown game."""
    if game is not None:
        doc = protocol_schema(
            game_parts(registry, game), title=f"arena protocol 1 for the game {game!r}",
            extra={"x-game": game_facts(registry, game)})
    else:
        games = {name: {**game_facts(registry, name), "schema": game_parts(registry, name)}
                 for name in sorted(registry.games)}
        doc = protocol_schema(extra={"x-games": games})
    index, defs = line_schemas(doc["$defs"])
    doc["$defs"].update(defs)
    doc["x-lines"] = index
    return doc


def _fields(message: dict[str, Any], names: tuple[str, ...], *, optional: tuple[str, ...] = ()
            ) -> dict[str, Any]:
    """An object of some of a message's fields (all required but `optional`)."""
    properties = {name: message["properties"][name] for name in names}
    return {"type": "object", "properties": properties,
            "required": [name for name in names if name not in optional],
            "additionalProperties": False}


_LINE_DOCS = {
    # keyword: (when the program gets it, what it answers)
    "arena": ((f"once, first: 'arena {LINE_PROTOCOL_VERSION}', the line protocol's "
               "version (no JSON)"), "nothing"),
    "limits": (("once, right after 'arena': what the program may send and will get; the "
                "time it may take is each game's (start.time_control, turn.clock)"),
               "nothing"),
    "start": (("a game starts (or is resumed); a new process gets one for every game in "
               "progress"), "nothing"),
    "turn": ("the program must move",
             "any '# text' and '?legal STEPS' lines, then exactly one line: the move string"),
    "legal": ("the answer to a '?legal STEPS' line", "its next line"),
    "rejected": ("a move was refused; if retries are left a new 'turn' line follows",
                 "nothing"),
    "over": ("a game ended", "nothing"),
    "quit": ("the session ends (no JSON)", "exit"),
}


def line_schemas(defs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The line protocol: its index (``x-lines``) and the ``$defs`` of each JSON line,
    built from the protocol's message schemas in `defs` (so a game's parts apply)."""
    # a turn: the your_turn fields a program uses, with the game's name from game_start
    your_turn = {**defs["your_turn"], "properties": {
        **defs["your_turn"]["properties"], "game": defs["game_start"]["properties"]["game"]}}
    turn = _fields(your_turn, TURN_FIELDS, optional=("legal", "legal_count", "legal_steps"))
    legal_steps = defs["legal_steps"]
    error_codes = {"enum": list(LEGAL_ERROR_CODES),
                   "description": "; ".join(f"{code}: {text}"
                                            for code, text in LEGAL_ERROR_CODES.items())}
    legal = _fields(legal_steps, ("game_id", "turn", "prefix"))
    legal["properties"].update({
        "legal_steps": legal_steps["properties"]["legal_steps"],
        "error": {"type": "object", "description": "why there is no answer: 'code' (one of "
                  f"{', '.join(LEGAL_ERROR_CODES)}) and 'message'",
                  "properties": {"code": error_codes, "message": {"type": "string"}},
                  "required": ["code", "message"], "additionalProperties": False},
    })
    legal["oneOf"] = [{"required": ["legal_steps"]}, {"required": ["error"]}]
    over = _fields(defs["game_over"],
                   ("game_id", "result", "winner", "scores", "termination", "reason"))
    termination = dict(over["properties"]["termination"])
    termination["enum"] = [*termination["enum"], "crash"]  # a program that died (exec:)
    termination["description"] = termination.get("description", "") + \
        "; locally also crash: a program bot died (killed by a signal, non-zero exit)"
    over["properties"]["termination"] = termination
    over["properties"]["seat"] = {"anyOf": [{"type": "integer", "minimum": 0},
                                            {"type": "null"}],
                                  "description": "the program's seat in the game"}
    over["required"].append("seat")
    count = {"type": "integer", "minimum": 0}
    limits = {
        "type": "object", "properties": {
            "max_line": {**count, "description": "longest line the program may write, in "
                                                 f"bytes ({MAX_LINE}); a longer one ends the "
                                                 "session"},
            "max_legal": {"anyOf": [count, {"type": "null"}], "description": "longest 'legal' "
                          "list in a turn line, in moves (longer: null with legal_count)"},
            "max_log_bytes": {**count, "description": "longest '#' line kept, in UTF-8 bytes"},
            "max_logs_per_turn": {**count, "description": "'#' lines kept per game per turn"},
            "max_logs_per_game": {**count, "description": "'#' lines kept per game"},
            "max_log_bytes_per_day": {"anyOf": [count, {"type": "null"}], "description":
                                      "UTF-8 bytes of '#' lines the server stores per bot "
                                      "per UTC day, in all its games (null: no such budget, "
                                      "as when the program plays locally)"},
        }, "required": list(LIMIT_FIELDS), "additionalProperties": False}
    payloads = {
        "limits": limits,
        "start": _fields(defs["game_start"], ("game_id", "game", "settings", "seat", "players",
                                              "time_control", "chance_name")),
        "turn": turn,
        "legal": legal,
        "rejected": _fields(defs["move_rejected"], ("game_id", "turn", "move", "code",
                                                    "message", "step", "retries_left")),
        "over": over,
    }
    line_defs: dict[str, Any] = {}
    to_program: dict[str, Any] = {}
    for keyword, (when, answer) in _LINE_DOCS.items():
        entry: dict[str, Any] = {"when": when, "answer": answer}
        if keyword in payloads:
            payload = dict(payloads[keyword])
            payload["description"] = f"the JSON of a '{keyword} {{...}}' line: {when}"
            line_defs[f"line-{keyword}"] = payload
            entry["payload"] = {"$ref": f"#/$defs/line-{keyword}"}
        to_program[keyword] = entry
    index = {
        "description": "The stdio bridge's line protocol (arena connect --exec, exec:COMMAND; "
                       "docs/server.md#the-stdio-bridge): UTF-8 lines, each a keyword, a "
                       "space and one JSON object (the payload); ignore keywords you do not "
                       "know.",
        "version": LINE_PROTOCOL_VERSION,
        "to_program": to_program,
        "from_program": {
            "comment": {"when": "after a turn line, any number", "pattern": "^#.*$",
                        "description": "a debug line, kept with the game's log "
                                       "(limits.max_log_bytes, max_logs_per_turn, "
                                       "max_logs_per_game, max_log_bytes_per_day)"},
            "legal-query": {"when": "after a turn line, any number", "pattern": "^\\?legal.*$",
                            "description": "'?legal STEPS': the legal next steps after a "
                                           "partial move; answered by a legal line"},
            "move": {"when": "after a turn line, exactly one, last",
                     "payload": {"$ref": "#/$defs/game-move"},
                     "description": "the move string (an empty line is the empty move)"},
        },
    }
    return index, line_defs


_GAME_REFS = {"game-settings": "object (the game's settings)",
              "game-state": "object (the game's state)",
              "game-chance": "the game's chance outcome", "game-move": "move string"}
"""How a table names a game's part (`arena schema --game NAME` has each one's schema)."""


def _type_text(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " or ".join("null" if v is None else f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return "null" if schema["const"] is None else f"`{schema['const']}`"
    for key in ("oneOf", "anyOf"):  # alternatives: each one's type
        if key in schema and all(isinstance(item, dict) for item in schema[key]):
            return " or ".join(_type_text(item) for item in schema[key])
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _GAME_REFS.get(name, f"`{name}`")
    kind = schema.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    words = []
    for item in kinds:
        if item == "array" and isinstance(schema.get("items"), dict):
            words.append(f"array of {_type_text(schema['items'])}")
        else:
            words.append(str(item))
    return " or ".join(words)


def _alternatives(schema: dict[str, Any]) -> list[list[str]]:
    """The object's ``oneOf``/``anyOf`` of required fields: each alternative's fields."""
    groups = []
    for key in ("oneOf", "anyOf"):
        for item in schema.get(key, ()):
            if isinstance(item, dict) and set(item) == {"required"}:
                groups.append(list(item["required"]))
    return groups


def _table(schema: dict[str, Any]) -> list[str]:
    rows = ["| field | type | meaning |", "|-------|------|---------|"]
    required = set(schema.get("required", ()))
    groups = _alternatives(schema)
    exclusive = "oneOf" in schema
    for key, item in schema.get("properties", {}).items():
        group = next((g for g in groups if key in g), None)
        if key in required:
            mark = ""
        elif groups and group is not None:  # required unless another alternative is given
            others = [f"`{name}`" for g in groups if g is not group for name in g]
            mark = f" ({'or' if exclusive else 'and/or'} {', '.join(others)})"
        else:
            mark = " (optional)"
        text = str(item.get("description", "")).replace("|", "\\|")
        rows.append(f"| `{key}`{mark} | {_type_text(item)} | {text} |")
    if groups:
        names = " or ".join(", ".join(f"`{n}`" for n in g) for g in groups)
        rows += ["", f"{'Exactly one' if exclusive else 'At least one'} of {names} is given."]
    return rows


def lines_markdown() -> str:
    """The JSON lines of the line protocol, one table each, from their schemas."""
    index, defs = line_schemas(protocol_schema()["$defs"])
    lines: list[str] = []
    for keyword, entry in index["to_program"].items():
        if "payload" not in entry:
            continue
        schema = defs[f"line-{keyword}"]
        lines += [f"`{keyword} {{...}}` -- {entry['when']}:", "", *_table(schema), ""]
    return "\n".join(lines).rstrip("\n")


def parts_markdown(registry: Registry, name: str) -> str:
    """A game's settings, state, chance outcome and move syntax as Markdown."""
    parts = game_parts(registry, name)
    facts = game_facts(registry, name)
    lines = ["Settings (`game_start.settings`):", "", *_table(parts["settings"]), "",
             "State (`your_turn.state`, `game_state.state`, `moved.state`):", "",
             *_table(parts["state"]), ""]
    chance = parts["chance"]
    if facts["chance"]:
        lines.append(f"Chance (`chance`, the {facts['chance_name']}): {_type_text(chance)} -- "
                     f"{chance.get('description', '')}.")
    else:
        lines.append("Chance: none (`chance` is always null).")
    lines += ["", f"Move: {facts['move_syntax']}."]
    if "pattern" in parts["move"]:
        lines.append(f"Pattern: `{parts['move']['pattern']}`.")
    if facts["step_separator"]:
        lines.append(f"Moves are built in steps joined by `{facts['step_separator']}` "
                     "(`legal_steps`).")
    return "\n".join(lines)


LINES_BLOCK = "line-protocol"
"""The docs block name of the line protocol's tables (`lines_markdown`)."""

_BLOCK = re.compile(r"(<!-- schema:(?P<name>[\w-]+) -->\n)(.*?)(<!-- /schema -->)", re.DOTALL)


def update_docs(registry: Registry, text: str) -> str:
    """`text` with every ``<!-- schema:NAME -->`` ... ``<!-- /schema -->`` block
    rewritten from the game's schema (``schema:line-protocol``: the line protocol's)."""
    def block(name: str) -> str:
        if name == LINES_BLOCK:
            return lines_markdown()
        return parts_markdown(registry, name)

    return _BLOCK.sub(lambda m: f"{m[1]}{block(m['name'])}\n{m[4]}", text)
