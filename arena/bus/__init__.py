"""The bus between the arena's processes: one typed interface (`Bus`), two
implementations behind it.

``local:`` (`arena.bus.local`) is the default, inside the one process of ``--role
all``; NATS (`arena.bus.nats_bus`, ``nats://HOST:PORT``) joins gateways and hosts on
several processes or machines, JetStream keeping the durable queues. `open_bus` opens
either from a ``--bus`` URL. See docs/cluster.md.
"""

from arena.bus.interface import (
    MAX_MESSAGE_BYTES,
    Bus,
    BusError,
    BusFailure,
    BusTimeout,
    Handler,
    Listener,
    Message,
    MessageTooLarge,
    NoResponders,
    Responder,
    Subscription,
)
from arena.bus.urls import BusUrl, BusUrlType, open_bus, parse_bus_url

__all__ = [
    "MAX_MESSAGE_BYTES", "Bus", "BusError", "BusFailure", "BusTimeout", "BusUrl", "BusUrlType",
    "Handler", "Listener", "Message", "MessageTooLarge", "NoResponders", "Responder", "Subscription",
    "open_bus", "parse_bus_url",
]
