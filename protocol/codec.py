"""Frame encodings: msgpack in binary frames, JSON in text frames.

The encoding is chosen by the WebSocket subprotocol: ``arena.v1.msgpack`` or
``arena.v1.json``. Decoding never raises anything but `FrameError`.

    >>> Encoding.from_subprotocol("arena.v1.json")
    <Encoding.JSON: 'json'>
    >>> Encoding.JSON.decode(Encoding.JSON.encode({"type": "ping", "id": 1}))
    {'type': 'ping', 'id': 1}
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec

from protocol.errors import OversizeFrame, UndecodableFrame
from protocol.schema import PROTOCOL_VERSION

__all__ = ["DEFAULT_MAX_FRAME", "SUBPROTOCOLS", "Encoding"]

DEFAULT_MAX_FRAME = 256 * 1024
"""Largest frame (bytes) a peer must accept; longer ones get an ``oversize`` error."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_msgpack_encode = msgspec.msgpack.Encoder().encode
"""msgpack frames are written by msgspec: the same bytes as ``msgpack.packb(data,
use_bin_type=True)`` (the smallest form of every integer, float64, str8 for text, bin
for bytes; tested in ``tests/protocol/test_codec.py``), about five times faster on a
``your_turn``. msgpack reads them (its errors are the ones `_msgpack_reason` words)."""
_json_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_json_decoder = json.JSONDecoder(parse_constant=_reject_constant)


class Encoding(enum.Enum):
    """How messages are written into WebSocket frames."""

    MSGPACK = "msgpack"
    JSON = "json"

    @property
    def subprotocol(self) -> str:
        return f"arena.v{PROTOCOL_VERSION}.{self.value}"

    @classmethod
    def from_subprotocol(cls, name: str | None) -> Encoding:
        for encoding in cls:
            if encoding.subprotocol == name:
                return encoding
        raise ValueError(f"unknown subprotocol {name!r} (known: {', '.join(SUBPROTOCOLS)})")

    def encode(self, data: dict[str, Any]) -> bytes | str:
        if self is Encoding.MSGPACK:
            return _msgpack_encode(data)
        return _json_encode(data)

    @property
    def encoder(self) -> Callable[[dict[str, Any]], bytes | str]:
        """`encode` as the function itself (for a caller that encodes every message)."""
        return _msgpack_encode if self is Encoding.MSGPACK else _json_encode

    def decode(self, frame: bytes | str, *, max_size: int = DEFAULT_MAX_FRAME) -> Any:
        """Decode one frame; raise `OversizeFrame` or `UndecodableFrame`."""
        if len(frame) > max_size:
            raise OversizeFrame(f"frame of {len(frame)} bytes; at most {max_size}")
        if self is Encoding.MSGPACK:
            if not isinstance(frame, (bytes, bytearray, memoryview)):
                raise UndecodableFrame("text frame on a msgpack connection; send binary frames")
            try:
                return msgpack.unpackb(frame, raw=False, strict_map_key=True, use_list=True)
            except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
                    msgpack.StackError, RecursionError) as error:
                raise UndecodableFrame(f"not a msgpack value: {_msgpack_reason(error)}") from None
        if not isinstance(frame, str):
            raise UndecodableFrame("binary frame on a JSON connection; send text frames")
        if len(frame.encode("utf-8", "surrogatepass")) > max_size:
            raise OversizeFrame(f"frame longer than {max_size} bytes")
        try:
            return _json_decoder.decode(frame)
        except (ValueError, RecursionError) as error:
            reason = (error.msg if isinstance(error, json.JSONDecodeError)
                      else "nested too deep" if isinstance(error, RecursionError) else str(error))
            raise UndecodableFrame(f"not JSON ({reason})") from None


def _msgpack_reason(error: Exception) -> str:
    """What was wrong with a msgpack frame, in words (never a Python class name)."""
    if isinstance(error, msgpack.ExtraData):
        return "bytes left over after the first value (one message per frame)"
    if isinstance(error, (msgpack.StackError, RecursionError)):
        return "nested too deep"
    if isinstance(error, UnicodeDecodeError):
        return "a string that is not UTF-8"
    text = str(error)
    if "map key" in text or isinstance(error, TypeError):
        return "a map key that is not a string"
    if isinstance(error, msgpack.FormatError) or "reserved" in text:
        return "a byte that starts no msgpack value"
    return "the data ends before the value does"


SUBPROTOCOLS: tuple[str, ...] = tuple(encoding.subprotocol for encoding in Encoding)
"""The WebSocket subprotocols, the server's preference first."""
