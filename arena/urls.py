"""What a URL may show of itself: `redact` drops its password, for logs and messages
(the database's and the broker's URLs alike)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["redact"]


def redact(url: str) -> str:
    """`url` without its password, to show or log."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))
