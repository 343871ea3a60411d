"""What gateways and hosts say to each other over the bus (docs/cluster.md, "The message
catalogue"): the subjects, and each payload as a msgspec Struct encoded with msgpack.

A bot's name may hold ``.``, which separates a subject's tokens: `bot_token` spells it
with letters, digits, ``_`` and ``-`` only, one name to one token.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec

__all__ = [
    "BOTS_OUT", "CHALLENGES", "HANDOVER", "PLAY", "PRESENCE", "PRESENCE_ASK", "REQUEST_GAME",
    "SLOTS", "SLOTS_ASK", "STARTS",
    "BotPresence", "FromBot", "Handover", "LobbyAnswer", "LobbyAsk", "Presence", "PresenceAsk",
    "SlotsGiven",
    "SlotsHeld", "Spectate", "StartPairing", "ToBot",
    "bot_name", "bot_out", "bot_token", "decode", "encode", "game_in",
    "game_spectate", "game_watch", "gateway_out", "presence_to", "slots_given",
]

PRESENCE = "bots.presence"
"""gateway -> hosts and the other gateways, publish/subscribe: `Presence` (bots online
or gone, a heartbeat, or a snapshot)."""
PRESENCE_ASK = "bots.presence.ask"
"""host or gateway -> gateways, publish/subscribe: empty (every gateway answers with a
snapshot on `PRESENCE`: a host that starts learns who is online) or a `PresenceAsk`
(only the gateway it names answers: a follower out of step with it; on the asker's
`presence_to` if the ask says who asks, else on `PRESENCE`)."""


def presence_to(follower: str) -> str:
    """gateway -> one follower (a host or a gateway), publish/subscribe: the snapshot it
    asked for (`PresenceAsk.to`), so that no other follower reads it."""
    return f"bots.presence.to.{follower}"


def bot_token(name: str) -> str:
    """`name` as one subject token (``_`` -> ``_u``, ``.`` -> ``_d``: reversible)."""
    return name.replace("_", "_u").replace(".", "_d")


def bot_name(token: str) -> str:
    """The name `bot_token` spelled as `token`."""
    return re.sub(r"_(.)", lambda escape: "." if escape[1] == "d" else "_", token)


def bot_out(name: str) -> str:
    """host -> the gateway holding the bot, for a bot whose gateway is not `routed`
    (an operator; a gateway of the version before): `ToBot` messages to frame and send."""
    return f"bot.{bot_token(name)}.out"


BOTS_OUT = "bot.*.out"
"""What a gateway listens to, once for all its bots, besides its `gateway_out`: the
messages to an operator (whose host knows no gateway of it), and those a host of the
version before sends a bot (`bot_out`, during a rolling upgrade)."""


def gateway_out(gateway: str) -> str:
    """host -> the gateway holding a `routed` bot: `ToBot` messages to frame and send
    to the bot `ToBot.bot` (one subscription per gateway, whatever its bots; the
    gateway's id in hexadecimal, as `slots_given`)."""
    return f"gateway.{gateway.encode().hex()}.out"


def gateway_alive(gateway: str) -> str:
    """host -> a gateway, a request (empty, answered empty): whether the gateway is still
    connected to the broker. A host asks it of a gateway it heard nothing from for
    `arena.cluster.follower.SILENT_ROUNDS` intervals before it takes its bots for gone:
    "no responders" (its connection is gone: killed, stopped) drops them at once; an
    answer, or none in time (a gateway starved of the CPU), keeps them, up to
    `arena.cluster.follower.DEAD_ROUNDS` intervals of silence."""
    return f"gateway.{gateway.encode().hex()}.alive"


def game_watch(game_id: str) -> str:
    """the game's host -> the gateways with spectators of it: `ToBot`, the spectators'
    messages (each gateway frames them for its own)."""
    return f"game.{game_id}.watch"


def game_spectate(game_id: str) -> str:
    """gateway -> the game's host, request/reply: `Spectate`; the answer is the game's
    ``game_state`` fields (msgpack) as of its last stored move, or empty."""
    return f"game.{game_id}.spectate"


def game_in(game_id: str) -> str:
    """gateway -> the game's host: `FromBot` (a move, ``legal``, ``log``, ``resign``)."""
    return f"game.{game_id}.in"


class BotPresence(msgspec.Struct, frozen=True, omit_defaults=True):
    """A bot connected to a gateway, with what the ladder and the games read of its
    session (`arena.server.session.Session`)."""

    name: str
    conn: str
    """Its connection (a reconnection on the same gateway is a new one: its games are
    sent again)."""
    gateway: str
    since: float = 0.0
    """When the bot connected (seconds since the epoch, the gateway's clock): of two
    connections of one bot on two gateways, the older is closed."""
    owner: str | None = None
    games: tuple[str, ...] = ()
    ladders: tuple[str, ...] = ()
    capabilities: tuple[str, ...] = ()
    seeking: bool = True
    seeking_on: dict[str, bool] = {}
    challenges: bool = False
    accept: dict[str, Any] | None = None
    """Its accept policy (`arena.server.challenges.AcceptPolicy.to_json`): the leading
    host answers the challenges to it (None: ``ask``)."""
    hosted: bool = False
    wall_timed: bool = False
    """A hosted program timed by wall time under a ``cpu`` clock (a WebSocket-speaking
    one: `arena.server.session.Session.wall_timed`)."""
    routed: bool = False
    """Its gateway takes what the hosts send it on `gateway_out` (one subscription for
    all its bots, `ToBot.bot` naming it); False: a gateway of the version before, which
    subscribes to each bot's `bot_out`."""


class Presence(msgspec.Struct, frozen=True, omit_defaults=True):
    """A gateway's news (`arena.cluster.follower`), one of three kinds:

    * a **change**: `online` bots (new or changed), `gone` connections (their
      ``conn``), numbered `seq` (1, 2, ... in the gateway's `epoch`);
    * a **heartbeat** (neither `online` nor `gone`, not a `snapshot`), every
      `ServerConfig.presence_interval`: the `seq` of the last change published, and
      the `count` and `digest` of the connections announced as of it (a follower that
      missed a change, or just started, sees it and asks for a snapshot);
    * a **snapshot**, when asked (`PRESENCE_ASK`) or rarely: every bot the gateway
      announced as of change `seq`, `count` in all, in messages of `online` bots
      (any other connection of the gateway a follower knows is gone).

    A gateway from before the changes' numbering sends an empty `epoch` (and snapshots
    every interval): its news is applied as it comes."""

    gateway: str
    online: tuple[BotPresence, ...] = ()
    gone: tuple[str, ...] = ()
    snapshot: bool = False
    epoch: str = ""
    """The gateway's run (random at its start): its changes' numbers begin again at 1
    with a new one, and its connections of a former run are gone."""
    seq: int = 0
    count: int = 0
    digest: int = 0
    """The XOR of `arena.cluster.follower.conn_digest` of the connections announced."""
    late: float = 0.0
    """In a heartbeat: how late (seconds) the gateway's timer woke to send it, when over
    half an interval (a starved gateway's event loop): its followers wait as much longer
    before they take it for silent (`arena.cluster.follower.PresenceFollower.silent`)."""


class PresenceAsk(msgspec.Struct, frozen=True, omit_defaults=True):
    """A follower out of step with `gateway` asks it for a snapshot: published on `to`'s
    `presence_to` (a follower's id), or on `PRESENCE` for every follower if empty (an
    asker from before `to`; a gateway from before it answers on `PRESENCE` whatever
    `to` says)."""

    gateway: str
    to: str = ""


class ToBot(msgspec.Struct, frozen=True):
    """A message for a bot: the gateway frames ``{"type": type, **fields}``, and gives
    the bot's message budget `credit` tokens back (what the host asked of it: a turn's
    move, the aids of a turn within their own limits)."""

    type: str
    fields: dict[str, Any]
    credit: int = 0
    bot: str = ""
    """The bot's name, on `gateway_out` (the gateway routes by it); empty on
    `bot_out`, whose subject names the bot, and to spectators."""
    forwarded: bool = False
    """Sent on by a gateway the bot had left for the one it is on now (forwarded once,
    never again)."""


REQUEST_GAME = "lobby.request_game"
"""gateway -> one host (group ``hosts``), request/reply: an operator's ``request_game``
(`FromBot`); the host answers on the operator's ``bot.<name>.out`` (``game_requested``
or an error, then ``game_over``), and the reply is empty."""

STARTS = "starts"
"""The durable queue of the pairings to play: the leading host -> one host (`StartPairing`)."""


class StartPairing(msgspec.Struct, frozen=True):
    """A ladder pairing the leader made: its two games, started by the host that takes
    it from the queue. Seeds travel as decimal text (128 bits fit no msgpack integer)."""

    ladder: str
    first: str
    second: str
    pair: str
    settings: dict[str, Any]
    seeds: tuple[str | None, ...]


HANDOVER = "hosts.handover"
"""A stopping host -> every host, publish/subscribe: `Handover`, sent once its games are
suspended, stored and their leases ended: a live host claims them at once instead of at
its lease keeper's next round."""


class Handover(msgspec.Struct, frozen=True):
    """A host stopped (SIGTERM) and ended the leases of `games` games: claim them now."""

    host: str
    games: int


class Spectate(msgspec.Struct, frozen=True):
    """A gateway's first spectator of a game comes (`watch`), or its last leaves."""

    gateway: str
    watch: bool


CHALLENGES = "lobby.challenges"
"""gateway -> the leading host (the only one serving it), request/reply: `LobbyAsk` for
a bot's ``challenge``, ``accept`` or ``decline`` (answered through its gateway,
the reply empty), or the web's ``challenge`` and ``challenge_status`` (`LobbyAnswer`)."""

PLAY = "lobby.play"
"""gateway -> one host (group ``hosts``), request/reply: `LobbyAsk` ``start``, a game the
web starts (`ArenaServer.launch_game`: a browser's guest against a house bot, with the
guest's presence, a match between two house bots, a season final's game: ``game``,
``settings``, ``players``, ``time_control`` and ``pair``, None for the host's own); the
answer, once the game is stored as running, a `LobbyAnswer` with its ``game_id`` and
``players``. (``play``, a guest's game on the host's web time control, is what the
gateways of the version before ask: still answered.)"""


class LobbyAsk(msgspec.Struct, frozen=True):
    """What a gateway asks of the hosts' lobby: `type` and its `body`, from the account
    whose presence is `presence` (sent along, so that a host that has not heard of it
    yet takes it for connected as its gateway does)."""

    type: str
    body: dict[str, Any]
    presence: BotPresence | None = None
    named: tuple[BotPresence, ...] = ()
    """The presence of the bot the question names (a challenge's ``opponent``) when it
    is connected to the same gateway: a bot that challenges another just after both
    connected must not be refused because the news of the other's connection has not
    reached the leading host yet."""


class LobbyAnswer(msgspec.Struct, frozen=True):
    """A host's answer to the web's `LobbyAsk`: `fields`, or the error it raised (its
    class's name in `error`, its `code` and `params` for a ``ChallengeError``)."""

    fields: dict[str, Any] | None = None
    error: str = ""
    message: str = ""
    code: str = ""
    params: dict[str, Any] = {}


SLOTS = "hosted.slots"
"""host -> the gateway keeping the hosted slots, publish/subscribe: `SlotsHeld`, the
hosted slots the host holds and wants (at every change and every presence interval)."""
SLOTS_ASK = "hosted.slots.ask"
"""the gateway that starts keeping the hosted slots -> every host: an empty message; each
host answers with its `SlotsHeld` on `SLOTS`."""


def slots_given(host: str) -> str:
    """the gateway keeping the hosted slots -> one host: `SlotsGiven` (the host's id in
    hexadecimal: a default one holds ``:``, which no subject token may)."""
    return f"hosted.slots.given.{host.encode().hex()}"


class SlotsHeld(msgspec.Struct, frozen=True):
    """A host's hosted slots (`arena.cluster.slots`): the ones its games hold
    (`holding`, a token per game -> its seats) and the ones its games wait for, in the
    order they asked (`wanting`)."""

    host: str
    holding: dict[str, int] = {}
    wanting: tuple[tuple[str, int], ...] = ()


class SlotsGiven(msgspec.Struct, frozen=True):
    """The gateway keeping the hosted slots gives a host's waiting games their slots."""

    runner: str
    tokens: tuple[str, ...]


class FromBot(msgspec.Struct, frozen=True):
    """A bot's message about a game, as its gateway decoded and checked it."""

    bot: str
    conn: str
    type: str
    body: dict[str, Any]
    cpu_ms: float | None = None
    """On a hosted bot's move, and on the gateway's own ``cpu`` reports while it thinks
    (`body`: the game id and turn), the CPU time (ms) its program used on the turn, as
    the gateway running it measured it (`arena.server.hosted.HostedRunner.cpu_ms`): the
    host's clock charges it under a time control of kind ``cpu``."""


_ENCODER = msgspec.msgpack.Encoder()


def encode(message: Presence | PresenceAsk | ToBot | FromBot | Spectate | StartPairing
           | LobbyAsk | LobbyAnswer | Handover | SlotsHeld | SlotsGiven) -> bytes:
    return _ENCODER.encode(message)


_DECODERS: dict[type[Any], msgspec.msgpack.Decoder[Any]] = {
    kind: msgspec.msgpack.Decoder(kind)
    for kind in (Presence, PresenceAsk, ToBot, FromBot, Spectate, StartPairing, LobbyAsk,
                 LobbyAnswer, Handover, SlotsHeld, SlotsGiven)}


T = TypeVar("T", Presence, PresenceAsk, ToBot, FromBot, Spectate, StartPairing, LobbyAsk,
            LobbyAnswer, Handover, SlotsHeld, SlotsGiven)


def decode(kind: type[T], data: bytes) -> T:
    """`data` as a `kind`; raises `msgspec.DecodeError` (or ValidationError) if not."""
    decoded: T = _DECODERS[kind].decode(data)
    return decoded
