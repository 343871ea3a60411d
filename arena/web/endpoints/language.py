"""The interface's languages: the message catalogue a page speaks (`arena.web.catalogue`)."""

from __future__ import annotations

from aiohttp import web

from arena.web.catalogue import LANGUAGES, catalogue, negotiate
from arena.web.http import ApiError, json_response
from arena.web.routes import Endpoint, Param, service_of

__all__ = ["ENDPOINTS"]


async def messages(request: web.Request) -> web.Response:
    """The catalogue in `lang`, or in the first language of ``Accept-Language`` the
    interface speaks (English otherwise)."""
    lang = request.query.get("lang") or negotiate(request.headers.get("Accept-Language"))
    if lang not in LANGUAGES:
        raise ApiError(400, f"lang must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    return json_response(catalogue(service_of(request).registry, lang),
                         headers={"Vary": "Accept-Language"})


ENDPOINTS = (
    Endpoint("GET", "/api/web/messages", messages, "The web interface's texts in a language",
             "play", params=(Param("lang", "en or ru; by default the first of the request's "
                                           "Accept-Language the interface speaks, else en"),),
             answers={200: "lang, languages ({code: name}), messages (the interface's texts: "
                           "English text -> translation), games ({game: its texts})",
                      400: "a language the interface does not speak"}),
)
