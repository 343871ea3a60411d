"""`arena.cluster.elsewhere`: the gateway running the hosted bots knows which bots' own
programs are connected to the other gateways (a hosted program waits for them)."""

from collections.abc import Callable
from typing import Any

from arena.bus import open_bus
from arena.cluster.elsewhere import Elsewhere
from arena.cluster.messages import PRESENCE, BotPresence, Presence, encode
from arena.config import HostedConfig
from tests.bus.conftest import nats_prefix, nats_url
from tests.sandbox.conftest import reachable_directory
from tests.storage.conftest import postgres_schema
from tests.waiting import wait_for


def bot(name: str, conn: str, gateway: str = "g2", *, hosted: bool = False) -> BotPresence:
    return BotPresence(name=name, conn=conn, gateway=gateway, hosted=hosted)


def test_the_bots_of_other_gateways_are_followed_until_they_leave_or_their_gateway_is_silent(
) -> None:
    elsewhere = Elsewhere()
    elsewhere.online("g2", "c1", "alice")
    elsewhere.online("g2", "c3", "carol", hosted=True)
    assert elsewhere.connected("alice") and elsewhere.own_program("alice")
    assert elsewhere.connected("carol")  # connected to the arena...
    assert not elsewhere.own_program("carol")  # ...but a hosted program takes no precedence
    elsewhere.online("g2", "c1", "alice")  # listed again by a snapshot: counted once
    assert elsewhere.gateway_of("alice") == "g2" and elsewhere.gateway_of("bob") is None
    elsewhere.online("g3", "c4", "alice")
    assert elsewhere.gateway_of("alice") == "g3"  # where she connected last
    elsewhere.gone("g2", "c1")
    assert elsewhere.own_program("alice") and elsewhere.gateway_of("alice") == "g3"
    elsewhere.silent("g3")  # its gateway died
    assert not elsewhere.connected("alice") and not elsewhere.own_program("alice")
    assert elsewhere.gateway_of("alice") is None
    elsewhere.silent("g2")
    assert elsewhere.names == {} and elsewhere.own == {} and elsewhere.conns == {}
    assert elsewhere.at == {}


async def test_a_gateway_with_hosted_bots_runs_them_and_follows_the_others_presence(
        make_arena: Callable[..., Any]) -> None:
    """A gateway with --hosted-dir runs the hosted bots of the shards it holds (alone:
    all of them), and learns from the bus which bots' own programs another gateway
    holds."""
    with reachable_directory("arena-cluster-hosted-") as directory:
        async with postgres_schema() as db, nats_prefix() as prefix:
            arena = await make_arena(db=db, role="gateway", bus=nats_url(prefix),
                                     presence_interval=60.0,
                                     hosted=HostedConfig(directory=str(directory)))
            server = arena.server
            await wait_for(lambda: server.hosted is not None and all(
                server.hosted.owns(name) for name in ("alice", "bob")), 10,
                "it runs the hosted bots of every shard")
            assert not server.taken_elsewhere("alice")
            bus = await open_bus(nats_url(prefix))
            try:
                await bus.publish(PRESENCE, encode(Presence("g2", online=(bot("alice", "c1"),))))
                await wait_for(lambda: server.taken_elsewhere("alice"), 10,
                               "alice's own program is known to be on g2")
                await bus.publish(PRESENCE, encode(Presence("g2", gone=("c1",))))
                await wait_for(lambda: not server.taken_elsewhere("alice"), 10,
                               "alice's own program left g2")
            finally:
                await bus.close()
            await arena.close()
