"""`arena.cluster.elsewhere`: the gateway running the hosted bots knows which bots' own
programs are connected to the other gateways (a hosted program waits for them)."""

from arena.cluster.elsewhere import Elsewhere
from arena.cluster.messages import BotPresence, Presence


def bot(name: str, conn: str, gateway: str = "g2", *, hosted: bool = False) -> BotPresence:
    return BotPresence(name=name, conn=conn, gateway=gateway, hosted=hosted)


def test_a_program_on_another_gateway_is_followed_until_it_leaves_or_goes_unlisted() -> None:
    elsewhere = Elsewhere("g1", interval=2.0)  # unlisted for 6 s: gone
    elsewhere.heard(Presence("g2", online=(bot("alice", "c1"),)), now=0.0)
    elsewhere.heard(Presence("g1", online=(bot("bob", "c2", "g1"),)), now=0.0)  # its own
    elsewhere.heard(Presence("g2", online=(bot("carol", "c3", hosted=True),)), now=0.0)
    assert elsewhere.connected("alice", 1.0)
    assert not elsewhere.connected("bob", 1.0)  # connected here: the sessions say it
    assert not elsewhere.connected("carol", 1.0)  # a hosted program takes no precedence
    elsewhere.heard(Presence("g2", gone=("c1",)), now=2.0)
    assert not elsewhere.connected("alice", 2.0)

    # listed by every snapshot while connected; its gateway silent (dead): gone
    elsewhere.heard(Presence("g2", online=(bot("alice", "c4"),), snapshot=True), now=10.0)
    elsewhere.heard(Presence("g2", online=(bot("alice", "c4"),), snapshot=True), now=12.0)
    assert elsewhere.connected("alice", 18.0)
    assert not elsewhere.connected("alice", 18.1)
    elsewhere.prune(18.1)
    assert elsewhere._seen == {} and elsewhere._bots == {}
