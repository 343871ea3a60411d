"""The HTTP API's endpoints, one module per area; `ENDPOINTS` is all of them, in order."""

from __future__ import annotations

from arena.web.endpoints import files, games, grammars, launch, play, replays, status
from arena.web.routes import Endpoint

__all__ = ["ENDPOINTS"]

MODULES = (status, games, play, launch, grammars, replays, files)

ENDPOINTS: tuple[Endpoint, ...] = tuple(e for module in MODULES for e in module.ENDPOINTS)
