"""A hosted program's standard error in one game, kept for the bot's owner
(``hosted_stderr``; ``GET /api/bots/NAME/games/ID/stderr``): the line programs'
(`arena.server.hosted`) and the WebSocket-speaking ones' (`arena.server.hosted_ws`), on
one budget."""

from __future__ import annotations

__all__ = ["STDERR_BYTES", "STDERR_LINE_BYTES", "GameStderr"]

STDERR_BYTES = 64 * 1024
"""Bytes of a hosted program's standard error kept per game (its first lines; the rest
are counted), each line cut at `STDERR_LINE_BYTES`."""
STDERR_LINE_BYTES = 1024


class GameStderr:
    """One game's standard error, bounded (`STDERR_BYTES`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.size = 0
        self.dropped = 0

    def add(self, line: str) -> None:
        data = line.encode("utf-8", "replace")[:STDERR_LINE_BYTES]
        if self.size + len(data) + 1 > STDERR_BYTES:
            self.dropped += 1
            return
        self.lines.append(data.decode("utf-8", "ignore"))
        self.size += len(data) + 1

    def text(self) -> str:
        more = f"[... {self.dropped} more lines not kept]\n" if self.dropped else ""
        return "".join(line + "\n" for line in self.lines) + more
