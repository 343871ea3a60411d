"""The server's health as ``/healthz`` reports it (docs/server.md, "Health")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.server.games import Games
from arena.server.session import Session
from protocol import PROTOCOL_VERSION

__all__ = ["FAILURE_CODES", "health_report"]


FAILURE_CODES = ("not-started", "resuming-games", "storage-failed")
"""The codes of why a server is unhealthy (its ``reason_code``): it has not started, it
is resuming the games a stop left running, its database fails (``reason`` then has the
database's own words)."""


def health_report(*, closing: bool, failure: str | None, games: Games | None,
                  sessions: Mapping[str, Session], ladder: bool,
                  recovered: int, resumed: int = 0,
                  failure_code: str | None = None) -> dict[str, Any]:
    """``status`` is ``ok``, ``closing`` or ``unhealthy`` (`failure` says why: the
    storage fails, or the server has not started; `failure_code`, one of
    `FAILURE_CODES`, says it for a page in its language); only ``ok`` is healthy.
    `resumed`: the running games it resumed at start; `recovered`: those it could not
    (aborted)."""
    status = "closing" if closing else "unhealthy" if failure is not None else "ok"
    return {
        "status": status,
        "reason": failure if status == "unhealthy" else None,
        "reason_code": failure_code if status == "unhealthy" else None,
        "protocol": PROTOCOL_VERSION,
        "games_in_flight": len(games.live) if games is not None else 0,
        "games_finished": games.finished if games is not None else 0,
        "connected_bots": sorted(n for n, s in sessions.items() if s.role == "bot"),
        "ladder": ladder,
        "recovered_games": recovered,
        "resumed_games": resumed,
    }
