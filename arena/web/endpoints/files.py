"""The web interface's files: the page, its script and styles, the games' renderers.

Served by aiohttp's `FileResponse` (ETag and Last-Modified, so a reload costs a 304),
with ``Cache-Control: no-cache`` (the browser revalidates: a new release is never
hidden behind a stale copy) and gzip for text (`arena.web.http.compress`).
"""

from __future__ import annotations

import re
from pathlib import Path

from aiohttp import web

from arena.web import STATIC
from arena.web.http import ApiError
from arena.web.routes import Endpoint, Param, service_of

__all__ = ["ENDPOINTS"]

_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html",
          ".svg": "image/svg+xml"}


def _file(path: Path) -> web.FileResponse:
    response = web.FileResponse(path, headers={"Cache-Control": "no-cache"})
    kind = _TYPES.get(path.suffix)
    if kind is not None:
        response.content_type = kind
        if kind != "image/svg+xml":
            response.charset = "utf-8"
    return response


async def index(request: web.Request) -> web.FileResponse:
    return _file(STATIC / "index.html")


async def favicon(request: web.Request) -> web.FileResponse:
    return _file(STATIC / "favicon.svg")


async def static_file(request: web.Request) -> web.FileResponse:
    name = request.match_info["name"]
    path = STATIC / name
    if not _FILE.fullmatch(name) or not path.is_file():
        raise ApiError(404, f"no file /static/{name}")
    return _file(path)


async def renderer(request: web.Request) -> web.FileResponse:
    """``/static/games/NAME.js``: the web renderer a game plugin ships, if any."""
    name = request.match_info["name"]
    game_class = service_of(request).registry.games.get(name.removesuffix(".js")) \
        if name.endswith(".js") else None
    path = game_class.web_renderer() if game_class is not None else None
    if path is None or not path.is_file():
        raise ApiError(404, f"no web renderer /static/games/{name}")
    return _file(path)


ENDPOINTS = (
    Endpoint("GET", "/", index, "The web interface", "files", content="text/html"),
    Endpoint("GET", "/favicon.ico", favicon, "The icon", "files", content="image/svg+xml"),
    Endpoint("GET", "/static/games/{name}", renderer, "A game's web renderer (an ES module)",
             "files", params=(Param("name", "GAME.js", required=True, where="path"),),
             content="text/javascript", answers={200: "the module", 404: "no such renderer"}),
    Endpoint("GET", "/static/{name}", static_file, "A file of the web interface", "files",
             params=(Param("name", "app.js, style.css, ...", required=True, where="path"),),
             content="application/octet-stream", answers={200: "the file", 404: "no such file"}),
)
