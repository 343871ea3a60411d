"""Protocol errors, grouped by cause under one root.

    ProtocolError                  anything wrong on the wire (has a machine `code`)
    ├── FrameError                 a frame that cannot be read at all
    │   ├── OversizeFrame          "oversize": longer than the agreed maximum
    │   └── UndecodableFrame       "malformed-frame": not msgpack/JSON, wrong frame kind
    ├── SchemaError                a readable frame that is not a valid message
    │   ├── UnknownMessageType     "unknown-type"
    │   ├── MissingField           "missing-field"
    │   ├── UnknownField           "unknown-field"
    │   ├── WrongFieldType         "wrong-type"
    │   └── UnexpectedMessage      "unexpected": a valid message sent the wrong way
    ├── VersionError               "unsupported-version" (fatal)
    ├── AuthenticationError        "unauthorized" (fatal)
    └── RemoteError                the peer sent an ``error`` message (client side)

A `ProtocolError` is *fatal* when the connection cannot go on (the handshake failed);
the others are answered with an ``error`` message and the connection is kept.
"""

from __future__ import annotations

__all__ = [
    "AuthenticationError",
    "FrameError",
    "MissingField",
    "OversizeFrame",
    "ProtocolError",
    "RemoteError",
    "SchemaError",
    "UndecodableFrame",
    "UnexpectedMessage",
    "UnknownField",
    "UnknownMessageType",
    "VersionError",
    "WrongFieldType",
    "error_from_code",
]


class ProtocolError(Exception):
    """Root of the wire errors; `code` is the machine code sent in ``error`` messages.

    Its own root, not the arena's: the protocol package imports nothing from the arena,
    so a client depends on it alone."""

    code = "protocol-error"
    fatal = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class FrameError(ProtocolError):
    code = "malformed-frame"


class OversizeFrame(FrameError):
    code = "oversize"


class UndecodableFrame(FrameError):
    code = "malformed-frame"


class SchemaError(ProtocolError):
    code = "invalid-message"


class UnknownMessageType(SchemaError):
    code = "unknown-type"


class MissingField(SchemaError):
    code = "missing-field"


class UnknownField(SchemaError):
    code = "unknown-field"


class WrongFieldType(SchemaError):
    code = "wrong-type"


class UnexpectedMessage(SchemaError):
    code = "unexpected"


class VersionError(ProtocolError):
    code = "unsupported-version"
    fatal = True


class AuthenticationError(ProtocolError):
    code = "unauthorized"
    fatal = True


class RemoteError(ProtocolError):
    """An ``error`` message from the peer, raised on the client side."""

    def __init__(self, code: str, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.fatal = fatal


def error_from_code(code: str, message: str, *, fatal: bool = False) -> ProtocolError:
    """The error class for an ``error`` message's code (`RemoteError` for other codes).

    >>> error_from_code("unauthorized", "unknown or revoked token", fatal=True)
    AuthenticationError('unknown or revoked token')
    """
    known: dict[str, type[ProtocolError]] = {
        cls.code: cls for cls in (OversizeFrame, UndecodableFrame, UnknownMessageType, MissingField,
                                  UnknownField, WrongFieldType, UnexpectedMessage, VersionError,
                                  AuthenticationError)
    }
    cls = known.get(code)
    if cls is None:
        return RemoteError(code, message, fatal=fatal)
    error = cls(message)
    error.fatal = fatal
    return error
