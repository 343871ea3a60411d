"""Typed reading of frames: msgspec structs made from the schema, one per message.

`protocol.schema.SCHEMA` is the one definition of every message; this module makes a
msgspec struct of each (a tagged union on ``type``: its fields, their kinds, which are
optional or nullable) and decodes a frame straight into
the struct of its type, in C, for both encodings. msgspec also refuses what the schema
refuses (an unknown type or field, a missing one, a value of the wrong kind); a game's
parts (``object``, ``list`` and ``json`` fields: the state, the settings) are any
value to msgspec, so they are walked once more by the schema's own check (finite
numbers, string keys, no binary or extension values, 32 levels at most).

What msgspec refuses is not worded here: `ProtocolCore` then reads the frame again the
reference way (`Encoding.decode`, `Message.from_wire`), whose error codes and texts are
the protocol's. Both ways accept the same messages, with the same fields and values
(`tests/protocol/test_fuzz.py` compares them on arbitrary frames of both encodings).

    >>> reader = TypedReader("client", Encoding.JSON)
    >>> reader.read('{"type": "move", "game_id": "g1", "turn": 3, "move": "-1 0 1"}')
    Message.make('move', game_id='g1', turn=3, move='-1 0 1')
    >>> reader.read('{"type": "move", "game_id": "g1", "turn": "3"}') is None
    True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Optional, Union

import msgspec

from protocol.codec import Encoding
from protocol.schema import _CHECKS, SCHEMA, Message, MessageSpec, Sender

__all__ = ["TypedReader", "message_structs"]

_TYPES: dict[str, Any] = {
    "str": str, "int": int, "number": Union[int, float], "bool": bool,  # noqa: UP007
    "strs": list[str], "object": dict[str, Any], "list": list[Any], "json": Any,
}
"""The msgspec type of each field kind of the schema."""

_WALKED = {
    Encoding.MSGPACK: frozenset({"number", "object", "list", "json"}),
    Encoding.JSON: frozenset({"int", "number", "object", "list", "json"}),
}
"""Kinds whose values msgspec takes without the schema's whole check, checked again
after decoding: a non-finite number (msgpack), anything inside a game's part, and in
JSON an integer beyond 64 bits (msgpack's fit by construction; msgspec's bounds
cannot say 2**64 - 1)."""

_Checks = tuple[tuple[str, Callable[[Any], bool], bool], ...]


def _struct(spec: MessageSpec, *, strict: bool) -> type[msgspec.Struct]:
    """The struct of one message: required fields first, the others absent by default
    (`msgspec.UNSET`); `strict` refuses unknown fields (the server's reading)."""
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for field in sorted(spec.fields, key=lambda f: not f.required):
        kind = _TYPES[field.kind]
        if field.nullable:
            kind = Optional[kind]  # noqa: UP045 - kind may be typing.Any
        fields.append((field.name, kind) if field.required else
                      (field.name, kind, msgspec.UNSET))
    return msgspec.defstruct(spec.type, fields, tag_field="type", tag=spec.type,
                             forbid_unknown_fields=strict)


def message_structs(sender: Sender, *, strict: bool) -> dict[type[msgspec.Struct], MessageSpec]:
    """The structs of every message `sender` may send, with the spec each was made from."""
    return {_struct(spec, strict=strict): spec for spec in SCHEMA.values()
            if spec.sender in (sender, "both")}


class TypedReader:
    """Reads the frames one peer sends (`sender`) in one encoding into `Message` values;
    None for anything the schema refuses (to be read again and worded).

    Args:
        sender: who sends the frames read (``"client"``: the server's reading, strict
            about unknown fields; ``"server"``: a client's, which ignores them).
        encoding: the connection's encoding.
        max_frame: longer frames are left to the reference reading (``oversize``).
    """

    def __init__(self, sender: Sender, encoding: Encoding, *,
                 max_frame: int | None = None) -> None:
        self._decode, self._layout = _decoder(sender, encoding)
        self._frame_type: type = bytes if encoding is Encoding.MSGPACK else str
        self._count_keys = sender != "client" and encoding is Encoding.MSGPACK
        self._max_frame = max_frame

    def read(self, frame: bytes | str) -> Message | None:
        """The message in `frame`, validated, or None (see the class)."""
        if type(frame) is not self._frame_type:
            return None
        limit = self._max_frame
        if limit is not None and len(frame) > limit // 4:
            size = len(frame) if isinstance(frame, bytes) else len(
                frame.encode("utf-8", "surrogatepass"))
            if size > limit:
                return None
        try:
            struct = self._decode(frame)
        except Exception:  # noqa: BLE001 - msgspec's errors, RecursionError...: worded elsewhere
            return None
        type_name, names, checks = self._layout[type(struct)]
        body = {}
        unset = msgspec.UNSET
        for name in names:
            value = getattr(struct, name)
            if value is not unset:
                body[name] = value
        for name, check, nullable in checks:
            value = body.get(name, unset)
            if value is unset or (value is None and nullable) or check(value):
                continue
            return None
        if self._count_keys and _map_size(frame) != len(body) + 1:  # type: ignore[arg-type]
            return None
        return Message(type_name, body)


def _map_size(frame: bytes) -> int:
    """How many keys the msgpack map `frame` starts with says it has.

    msgspec skips an unknown field's value without reading it the protocol's way (a map
    key that is not a string, a string that is not UTF-8 pass unseen), so a frame with
    more keys than the fields read is left to the reference reading, which words what is
    wrong with it or takes it, ignoring the field. Only a newer peer's frames have any."""
    head = frame[0]
    if 0x80 <= head <= 0x8F:
        return head & 0x0F
    return int.from_bytes(frame[1:3] if head == 0xDE else frame[1:5], "big")


_Layout = dict[type, tuple[str, tuple[str, ...], _Checks]]


@functools.cache
def _decoder(sender: Sender, encoding: Encoding) -> tuple[Callable[[Any], Any], _Layout]:
    """The decoder of what `sender` sends in `encoding` (made once per process), and per
    struct: its message type, its fields and the checks left to do after decoding."""
    structs = message_structs(sender, strict=sender == "client")
    union: Any = Union[tuple(structs)]  # noqa: UP007
    decode: Callable[[Any], Any] = (
        msgspec.msgpack.Decoder(union).decode if encoding is Encoding.MSGPACK
        else msgspec.json.Decoder(union).decode)
    layout: _Layout = {struct: (spec.type, struct.__struct_fields__,
                       tuple((f.name, _CHECKS[f.kind], f.nullable) for f in spec.fields
                             if f.kind in _WALKED[encoding]))
              for struct, spec in structs.items()}
    return decode, layout
