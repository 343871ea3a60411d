"""The HTTP API as data: every endpoint with what it takes and answers.

Each module in `arena.web.endpoints` lists its `Endpoint`s; `arena.web.app` registers
them with aiohttp's router and `arena.web.openapi` writes the OpenAPI document from
the same list, so the two cannot drift (`tests/web/test_openapi.py` also checks the
router against the document both ways). Adding a route is adding an `Endpoint` to a
module's ``ENDPOINTS`` (and the module to `arena.web.endpoints.MODULES` if it is new)::

    async def schema(request: web.Request) -> web.Response:
        return json_response(...)

    ENDPOINTS = (
        Endpoint("GET", "/api/schema", schema, "The protocol's message schema", "protocol"),
    )
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from aiohttp import web

from arena.web.http import Handler

if TYPE_CHECKING:
    from arena.service import ArenaService

__all__ = ["SERVICE", "Endpoint", "Param", "server_of", "service_of"]

SERVICE: web.AppKey[ArenaService] = web.AppKey("arena.service")
"""The arena whose HTTP side the application is, as the one interface the web uses
(`arena.service.ArenaService`)."""


def service_of(request: web.Request) -> ArenaService:
    """The arena a request came to (a handler's way to the server: `ArenaService`)."""
    return request.app[SERVICE]


server_of = service_of
"""The name `service_of` had before the web was given a service (plugins written for it
keep working; what it returns is an `ArenaService` now: ``.records``, not ``.storage``)."""


@dataclass(frozen=True)
class Param:
    """A query or path parameter."""

    name: str
    doc: str
    type: Literal["string", "integer"] = "string"
    required: bool = False
    where: Literal["query", "path"] = "query"


@dataclass(frozen=True)
class Endpoint:
    """One route: `method` and `path` (aiohttp's ``{name}`` syntax), its `handler`, and
    what the OpenAPI document says of it."""

    method: Literal["GET", "POST", "PUT", "DELETE"]
    path: str
    handler: Handler
    summary: str
    tag: str
    params: tuple[Param, ...] = ()
    body: type[Any] | None = None
    """A msgspec Struct: the JSON body it takes (its JSON Schema goes into the document)."""
    upload: str | None = None
    """The media type of a raw body it takes (a log file), instead of JSON; several,
    comma-separated, for a body it takes in several forms (an uploaded program)."""
    answers: Mapping[int, str] = field(default_factory=lambda: {200: "the answer"})
    """Status codes and what they mean (error answers are the `Error` object)."""
    content: str = "application/json"
    """The media type of the 200 answer."""
    security: tuple[str, ...] = ()
    """The credentials it needs, by the names of `arena.web.openapi.SECURITY_SCHEMES`
    (``session``: a signed-in person's cookie)."""

    @property
    def operation_id(self) -> str:
        return self.handler.__name__.lstrip("_")
