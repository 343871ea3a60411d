"""The web interface: static files and the JSON endpoints behind them (`arena.web.api`).

`arena serve` answers them on its WebSocket port; a browser plays through the same
protocol as bots (see docs/web.md).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["STATIC"]

STATIC = Path(__file__).parent / "static"
"""The shipped static files (index.html, app.js, style.css)."""
