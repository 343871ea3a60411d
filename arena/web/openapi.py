"""The OpenAPI 3.1 document of the HTTP API, written from the endpoint list itself."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import msgspec

from arena.web.routes import Endpoint

__all__ = ["SECURITY_SCHEMES", "openapi_document"]

SECURITY_SCHEMES: dict[str, Any] = {
    "session": {"type": "apiKey", "in": "cookie", "name": "arena_session",
                "description": "a signed-in person's session (POST /api/account/signin sets "
                               "it; HttpOnly, SameSite=Strict)"},
}
"""The credentials an endpoint may need (`Endpoint.security`)."""

ERROR_SCHEMA = {
    "type": "object", "required": ["code", "message"],
    "properties": {
        "code": {"type": "string", "description": "stable: bad-request, not-found, "
                 "method-not-allowed, too-large, too-many-requests, cross-site, ..."},
        "message": {"type": "string", "description": "what was wrong, for people"},
    },
    "additionalProperties": True,
}


BODY_REFUSED = ("a body of another content type, or compressed (code compressed-body: no "
                "body is taken with a Content-Encoding)")
MISDIRECTED = "a Host that is not one of the server's names (code misdirected-request)"


def _parameters(endpoint: Endpoint) -> list[dict[str, Any]]:
    declared = {p.name: p for p in endpoint.params}
    found = []
    for name in re.findall(r"\{(\w+)\}", endpoint.path):
        param = declared.get(name)
        found.append({"name": name, "in": "path", "required": True,
                      "description": param.doc if param else name,
                      "schema": {"type": param.type if param else "string"}})
    for param in endpoint.params:
        if param.where == "query":
            found.append({"name": param.name, "in": "query", "required": param.required,
                          "description": param.doc, "schema": {"type": param.type}})
    return found


def _operation(endpoint: Endpoint) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status, text in sorted(endpoint.answers.items()):
        if status < 400:
            schema: dict[str, Any] = {"type": "object"} if endpoint.content == \
                "application/json" else {"type": "string"}
            responses[str(status)] = {"description": text,
                                      "content": {endpoint.content: {"schema": schema}}}
        else:
            responses[str(status)] = {"description": text, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Error"}}}}
    refusals = [("405", "wrong method (with Allow)")]
    if endpoint.body is not None or endpoint.upload is not None:
        refusals.append(("415", BODY_REFUSED))
    refusals += [("421", MISDIRECTED), ("default", "any other error, as an Error object")]
    for code, text in refusals:
        responses.setdefault(code, {"description": text, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Error"}}}})
    operation: dict[str, Any] = {"operationId": endpoint.operation_id, "summary":
                                 endpoint.summary, "tags": [endpoint.tag],
                                 "responses": responses}
    if endpoint.security:
        operation["security"] = [{name: [] for name in endpoint.security}]
    parameters = _parameters(endpoint)
    if parameters:
        operation["parameters"] = parameters
    if endpoint.body is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": {"$ref": f"#/components/schemas/{endpoint.body.__name__}"}}}}
    elif endpoint.upload is not None:
        operation["requestBody"] = {"required": True, "content": {
            media.strip(): {"schema": {"type": "string"}} for media in endpoint.upload.split(",")}}
    return operation


def openapi_document(endpoints: Iterable[Endpoint], *, version: str) -> dict[str, Any]:
    """The document: every endpoint's path, method, parameters, body and answers."""
    endpoints = list(endpoints)
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in endpoints:
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = _operation(endpoint)
    bodies = sorted({e.body for e in endpoints if e.body is not None}, key=lambda t: t.__name__)
    _, schemas = msgspec.json.schema_components(bodies, ref_template="#/components/schemas/{name}")
    return {
        "openapi": "3.1.0",
        "info": {"title": "The arena's HTTP API", "version": version, "description":
                 "The arena's games, ladder, replays and web interface, on the same port as "
                 "its WebSocket protocol (docs/server.md, docs/web.md). Errors are JSON "
                 "objects with a stable code and a message. Request bodies are never "
                 "taken compressed (415); a request to a name that is not the server's "
                 "gets 421; JSON bodies nest at most 32 levels and hold numbers within "
                 "+-2**53 (400 beyond)."},
        "paths": paths,
        "components": {"schemas": {"Error": ERROR_SCHEMA, **schemas},
                       "securitySchemes": SECURITY_SCHEMES},
    }
