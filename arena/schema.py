"""The machine-readable contract: the protocol's JSON Schema with the games' own parts.

Pure functions of the registry (no I/O): `arena schema [--game NAME]` prints them and
the server answers them at ``GET /api/schema[?game=NAME]``. Every game plugin provides
its parts through `Game.json_schema` (settings, state, chance outcome, move string);
the messages (`protocol.jsonschema`) refer to them.

* `contract(registry)`: the protocol with generic game parts, and every game's parts
  under ``x-games`` (name -> parts and facts);
* `contract(registry, "sim")`: the protocol with Sim's parts filled in, so that a
  validator checks Sim's settings, states and moves inside the messages.

`parts_markdown` renders a game's settings and state as tables, the per-game layouts
in `docs/bots.md` (a test keeps the two equal; ``arena schema --docs`` rewrites them).
"""

from __future__ import annotations

import re
from typing import Any

from arena.registry import Registry
from protocol.jsonschema import protocol_schema

__all__ = ["contract", "game_facts", "game_parts", "parts_markdown", "update_docs"]


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
        return protocol_schema(
            game_parts(registry, game), title=f"arena protocol 1 for the game {game!r}",
            extra={"x-game": game_facts(registry, game)})
    games = {name: {**game_facts(registry, name), "schema": game_parts(registry, name)}
             for name in sorted(registry.games)}
    return protocol_schema(extra={"x-games": games})


def _type_text(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " or ".join("null" if v is None else f"`{v}`" for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type_text(item) for item in schema["anyOf"])
    kind = schema.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    words = []
    for item in kinds:
        if item == "array" and isinstance(schema.get("items"), dict):
            words.append(f"array of {_type_text(schema['items'])}")
        else:
            words.append(str(item))
    return " or ".join(words)


def _table(schema: dict[str, Any]) -> list[str]:
    rows = ["| field | type | meaning |", "|-------|------|---------|"]
    required = set(schema.get("required", ()))
    for key, item in schema.get("properties", {}).items():
        mark = "" if key in required else " (optional)"
        text = str(item.get("description", "")).replace("|", "\\|")
        rows.append(f"| `{key}`{mark} | {_type_text(item)} | {text} |")
    return rows


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


_BLOCK = re.compile(r"(<!-- schema:(?P<name>[\w-]+) -->\n)(.*?)(<!-- /schema -->)", re.DOTALL)


def update_docs(registry: Registry, text: str) -> str:
    """`text` with every ``<!-- schema:NAME -->`` ... ``<!-- /schema -->`` block
    rewritten from the game's schema."""
    return _BLOCK.sub(
        lambda m: f"{m[1]}{parts_markdown(registry, m['name'])}\n{m[4]}", text)
