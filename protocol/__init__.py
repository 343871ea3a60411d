"""The arena wire protocol (version 1): schema, encodings and the sans-I/O core.

Messages are defined once in `protocol.schema.SCHEMA`; `protocol.codec.Encoding`
writes them as msgpack (binary frames, subprotocol ``arena.v1.msgpack``) or JSON
(text frames, ``arena.v1.json``); `protocol.connection.ProtocolCore` turns frames into
validated messages for the server and the client SDK alike. `docs/protocol.md` is the
reference with a worked example session.

The package imports nothing from the arena (an import-linter contract): a client in
Python depends on it alone.
"""

import contextlib as _contextlib
import importlib as _importlib

with _contextlib.suppress(ImportError):
    # In the project's checkout, arena.compiled keeps a stale compiled module from
    # loading (docs/development.md); first, before the imports below. The protocol
    # needs nothing else of the arena, and works without it.
    _importlib.import_module("arena.compiled")

from protocol.codec import DEFAULT_MAX_FRAME, SUBPROTOCOLS, Encoding
from protocol.connection import ProtocolCore
from protocol.errors import (
    AuthenticationError,
    FrameError,
    MissingField,
    OversizeFrame,
    ProtocolError,
    RemoteError,
    SchemaError,
    UndecodableFrame,
    UnexpectedMessage,
    UnknownField,
    UnknownMessageType,
    VersionError,
    WrongFieldType,
)
from protocol.schema import CAPABILITIES, OPT_IN_CAPABILITIES, PROTOCOL_VERSION, SCHEMA, Message

__all__ = [
    "CAPABILITIES",
    "DEFAULT_MAX_FRAME",
    "OPT_IN_CAPABILITIES",
    "PROTOCOL_VERSION",
    "SCHEMA",
    "SUBPROTOCOLS",
    "AuthenticationError",
    "Encoding",
    "FrameError",
    "Message",
    "MissingField",
    "OversizeFrame",
    "ProtocolCore",
    "ProtocolError",
    "RemoteError",
    "SchemaError",
    "UndecodableFrame",
    "UnexpectedMessage",
    "UnknownField",
    "UnknownMessageType",
    "VersionError",
    "WrongFieldType",
]
