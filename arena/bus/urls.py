"""Which bus a ``--bus`` names: ``local:`` (the default: in-process) or a NATS server
(``nats://HOST[:PORT]``, several as ``nats://A:4222,nats://B:4222``), with the
subjects' namespace as ``?prefix=NAME`` (``arena`` by default) (`parse_bus_url`,
`open_bus`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qs, urlsplit

import click

from arena.bus.interface import Bus, check_name
from arena.urls import redact

__all__ = ["DEFAULT_PREFIX", "BusUrl", "BusUrlType", "open_bus", "parse_bus_url"]

DEFAULT_PREFIX = "arena"
NATS_PORT = 4222
_HELP = "give local: or nats://HOST[:PORT] (docs/cluster.md)"


@dataclass(frozen=True)
class BusUrl:
    """A parsed ``--bus``: the kind, the broker's servers (none for ``local``) and the
    prefix of every subject."""

    kind: Literal["local", "nats"]
    servers: tuple[str, ...] = ()
    prefix: str = DEFAULT_PREFIX

    def __str__(self) -> str:
        """For people and logs: without passwords."""
        if self.kind == "local":
            return "local:"
        text = ",".join(redact(server) for server in self.servers)
        return text if self.prefix == DEFAULT_PREFIX else f"{text}?prefix={self.prefix}"


def parse_bus_url(url: str) -> BusUrl:
    """Parse a ``--bus`` value.

    Raises:
        ValueError: anything else, saying what to give (Redis, for one, is not a bus
            of the arena: docs/cluster.md says why).

    Example:
        >>> parse_bus_url("local:")
        BusUrl(kind='local', servers=(), prefix='arena')
        >>> parse_bus_url("nats://10.0.0.5,10.0.0.6:4223?prefix=ladder").servers
        ('nats://10.0.0.5:4222', 'nats://10.0.0.6:4223')
    """
    text = url.strip()
    if text in ("local", "local:", "local://"):
        return BusUrl("local")
    scheme = text.partition("://")[0].lower() if "://" in text else ""
    if scheme in ("redis", "rediss"):
        raise ValueError(f"--bus {url!r}: the arena's broker is NATS, not Redis "
                         f"(docs/cluster.md, 'Which broker'); {_HELP}")
    if scheme != "nats":
        raise ValueError(f"--bus {url!r}: {_HELP}")
    body, _, query = text.partition("?")
    prefix = DEFAULT_PREFIX
    if query:
        options = parse_qs(query, keep_blank_values=True, strict_parsing=False)
        unknown = sorted(set(options) - {"prefix"})
        if unknown or len(options.get("prefix", [])) != 1:
            raise ValueError(f"--bus {url!r}: the one option is ?prefix=NAME")
        try:
            prefix = check_name(options["prefix"][0], "prefix")
        except ValueError as error:
            raise ValueError(f"--bus {url!r}: {error}") from None
    servers = []
    for part in body.split(","):
        server = part if "://" in part else f"nats://{part}"
        parts = urlsplit(server)
        try:
            port = parts.port or NATS_PORT
        except ValueError:
            raise ValueError(f"--bus {url!r}: a bad port in {part!r}") from None
        if parts.scheme.lower() != "nats" or not parts.hostname or parts.path not in ("", "/"):
            raise ValueError(f"--bus {url!r}: {part!r} is no NATS server; {_HELP}")
        user = parts.netloc.rpartition("@")[0]
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        servers.append(f"nats://{user + '@' if user else ''}{host}:{port}")
    return BusUrl("nats", tuple(servers), prefix)


async def open_bus(url: str | BusUrl) -> Bus:
    """Open the bus `url` names (`parse_bus_url`); close it with `Bus.close`.

    Raises:
        ValueError: `url` names no bus the arena can use.
        BusFailure: the broker does not answer.
    """
    parsed = parse_bus_url(url) if isinstance(url, str) else url
    if parsed.kind == "local":
        from arena.bus.local import LocalBus

        return LocalBus()
    from arena.bus.nats_bus import NatsBus  # nats-py only when used

    return await NatsBus.connect(parsed.servers, prefix=parsed.prefix, description=str(parsed))


class BusUrlType(click.ParamType):  # type: ignore[type-arg]
    """``--bus URL`` for click: parsed, or a usage error that says what to give."""

    name = "URL"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> BusUrl:
        if isinstance(value, BusUrl):
            return value
        try:
            return parse_bus_url(str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)
