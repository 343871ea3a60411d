"""The HTTP side: the JSON API, the web interface's pages and files (aiohttp, `arena.web.app`).

`arena serve` answers them on its WebSocket port (`arena.server.dispatch`); a browser
plays through the same protocol as bots (see docs/web.md and docs/server.md).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["GUEST_COOKIE", "PERSON_COOKIE", "STATIC"]

STATIC = Path(__file__).parent / "static"
"""The shipped static files (index.html, app.js, style.css)."""

GUEST_COOKIE = "arena_guest"
"""The HttpOnly cookie that carries a guest's token (never a URL or a page's script)."""

PERSON_COOKIE = "arena_session"
"""The HttpOnly cookie that carries a signed-in person's session token (like the guest's)."""
