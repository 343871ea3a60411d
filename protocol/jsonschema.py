"""The protocol as JSON Schema (2020-12), derived from `protocol.schema.SCHEMA`.

`SCHEMA` stays the single definition: each field's kind gives its JSON type, its
`shape` refines it (the keys of an object, the range of an integer), and a game's own
parts (settings, state, chance outcome, move string) are references to
``#/$defs/game-settings``, ``game-state``, ``game-chance`` and ``game-move``, which
`protocol_schema` fills with one game's schemas (`arena.schema` takes them from the
game plugins) or with generic ones.

    >>> doc = protocol_schema()
    >>> doc["$defs"]["ping"]["required"]
    ['type', 'id']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.schema import _INT_MAX, _INT_MIN, PROTOCOL_VERSION, SCHEMA, Field, MessageSpec

__all__ = ["DIALECT", "GAME_PARTS", "GENERIC_GAME", "message_schema", "protocol_schema"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"

GAME_PARTS = ("settings", "state", "chance", "move")
"""What a game defines for the contract (`arena.game.Game.json_schema`)."""

GENERIC_GAME: Mapping[str, Any] = {
    "settings": {"type": "object", "description": "the game's settings (see its schema)"},
    "state": {"type": "object", "description": "the game's whole state (see its schema)"},
    "chance": {"description": "a chance outcome (the roll), as the game defines it"},
    "move": {"type": "string", "description": "a move string in the game's syntax"},
}

_KINDS: Mapping[str, Mapping[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer", "minimum": _INT_MIN, "maximum": _INT_MAX},
    "number": {"type": "number"},
    "bool": {"type": "boolean"},
    "strs": {"type": "array", "items": {"type": "string"}},
    "object": {"type": "object"},
    "list": {"type": "array"},
    "json": {},
}


def _field_schema(field: Field) -> dict[str, Any]:
    schema: dict[str, Any] = dict(_KINDS[field.kind])
    if field.shape:
        schema.update(field.shape)
        if "$ref" in field.shape and field.kind == "json":
            schema = dict(field.shape)
    if field.nullable:
        schema = {"anyOf": [schema, {"type": "null"}]}
    if field.doc:
        schema["description"] = field.doc
    return schema


def message_schema(spec: MessageSpec) -> dict[str, Any]:
    """The JSON Schema of one message type."""
    properties: dict[str, Any] = {"type": {"const": spec.type}}
    for field in spec.fields:
        properties[field.name] = _field_schema(field)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": ["type", *(f.name for f in spec.fields if f.required)],
        "additionalProperties": False,
        "x-sender": spec.sender,
    }
    if spec.doc:
        schema["description"] = spec.doc
    return schema


def protocol_schema(game: Mapping[str, Any] | None = None, *, title: str | None = None,
                    extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The whole protocol: any message (``oneOf`` by ``type``), each under ``$defs``.

    Args:
        game: one game's ``settings``, ``state``, ``chance`` and ``move`` schemas (the
            generic ones where absent); the messages refer to them.
        title: the document's title.
        extra: more top-level keys (``x-game``, for example).
    """
    parts = {**GENERIC_GAME, **(game or {})}
    defs: dict[str, Any] = {name: message_schema(spec) for name, spec in SCHEMA.items()}
    for part in GAME_PARTS:
        defs[f"game-{part}"] = dict(parts[part])
    return {
        "$schema": DIALECT,
        "$id": f"urn:arena:protocol:{PROTOCOL_VERSION}",
        "title": title or f"arena protocol {PROTOCOL_VERSION}: every message",
        "description": "One WebSocket frame holds one message; 'type' says which. "
                       "'x-sender' says who may send it. See docs/protocol.md.",
        **(extra or {}),
        "oneOf": [{"$ref": f"#/$defs/{name}"} for name in SCHEMA],
        "$defs": defs,
    }
