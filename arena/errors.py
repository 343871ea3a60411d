"""Errors, grouped by cause under one root.

    ArenaError
    ├── SettingsError        bad game settings (grammar, weights, sizes)
    │   └── GrammarError     a grammar file or text that cannot be read (has a line number)
    ├── MalformedMove        a move string that does not parse (ValueError)
    ├── LogFormatError       a game log that cannot be read (has a line number)
    ├── BotSpecError         an unknown bot or bad bot parameters (ValueError)
    └── PluginError          a plugin that breaks the hook contract

Illegal moves are not exceptions: the referee returns a `Rejection` value for them.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ArenaError",
    "BotSpecError",
    "GrammarError",
    "LogFormatError",
    "MalformedMove",
    "PluginError",
    "SettingsError",
    "unknown_settings",
]


class ArenaError(Exception):
    """Root of every error the arena raises on purpose.

    `code` (a stable name, ``above-guest-limit``) and `params` (the values its text
    names) let a page say the error in its language; None: only the English message
    says it. The HTTP API sends them as ``reason_code`` and ``reason_params``."""

    code: str | None = None
    params: dict[str, str | int]

    def __init__(self, *args: object, code: str | None = None,
                 params: dict[str, str | int] | None = None) -> None:
        super().__init__(*args)
        self.code = code
        self.params = params or {}


class SettingsError(ArenaError, ValueError):
    """Game settings that do not describe a playable game."""


def unknown_settings(message: str, unknown: Iterable[str],
                     known: Iterable[str]) -> SettingsError:
    """The `SettingsError` (`message`) for settings with keys a game does not know
    (``unknown-settings``, its `keys` and the `known` ones, for a page's words)."""
    return SettingsError(message, code="unknown-settings",
                         params={"keys": ", ".join(sorted(unknown)), "known": ", ".join(known)})


class GrammarError(SettingsError):
    """A grammar text or file that cannot be read; `line` is 1-based, 0 if unknown.
    `code` and `params` name the reason for a page to say in its language (None: only
    the English `reason` says it)."""

    def __init__(self, message: str, line: int = 0, *, code: str | None = None,
                 params: dict[str, str | int] | None = None) -> None:
        self.line = line
        self.reason = message
        super().__init__(f"line {line}: {message}" if line else message, code=code,
                         params=params)


class MalformedMove(ArenaError, ValueError):
    """A move string that does not follow the move syntax; `step` is the 0-based index
    of the offending step where the move is built in steps (None: the whole move)."""

    def __init__(self, message: str, step: int | None = None) -> None:
        self.step = step
        super().__init__(message)


class LogFormatError(ArenaError, ValueError):
    """A game log that cannot be read; `line` is 1-based, 0 if unknown. `code` and
    `params` as `ArenaError`'s (the game whose words say it: ``params["game"]``)."""

    def __init__(self, message: str, line: int = 0, *, code: str | None = None,
                 params: dict[str, str | int] | None = None) -> None:
        self.line = line
        self.reason = message
        super().__init__(f"line {line}: {message}" if line else message, code=code,
                         params=params)


class BotSpecError(ArenaError, ValueError):
    """An unknown bot name or a bad bot parameter."""


class PluginError(ArenaError):
    """A plugin that does not keep the hook contract."""
