"""The arena's settings: time control, ladder, the server's and the web's limits (frozen).

A neutral module (`arena.app` wires the parts): the server (`arena.server`) and the web
(`arena.web`, through `arena.service.ArenaService.config`) both read it, and neither
imports the other. Every limit a stranger meets is a field here with its default;
docs/security.md lists them with the `arena serve` flag that changes each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from arena.bot_logs import LogLimits
from arena.clock import TimeControl
from arena.legal import DEFAULT_MAX_LEGAL
from arena.sandbox.spec import BuildLimits, UploadLimits
from arena.seasons import SeasonConfig
from arena.workers import WorkerLimits

__all__ = ["SIGNUP_MODES", "AccountsConfig", "ChallengeLimits", "HostedConfig", "LadderConfig", "SeasonConfig",
           "ServerConfig", "TimeControl", "WebConfig"]

SIGNUP_MODES = ("open", "invite", "closed")
"""Who may sign up on the web (`AccountsConfig.signup`)."""


@dataclass(frozen=True)
class ChallengeLimits:
    """The budgets of challenges (`arena.server.challenges`; docs/security.md lists
    them with their flags)."""

    per_hour: int = 20
    """``challenge`` messages an account may send in any 60 minutes, refused ones
    included; beyond it a non-fatal ``challenge-limit`` error (0: no challenges)."""
    pending: int = 3
    """Unanswered challenges an account may have sent at once, and may have been
    sent at once (beyond either: ``challenge-limit``)."""
    timeout: float = 60.0
    """Seconds a challenge waits for its answer before it expires."""

    def to_json(self) -> dict[str, Any]:
        """The fields of ``welcome.limits`` (bots with the ``challenges`` capability)."""
        timeout = self.timeout
        return {"challenges_per_hour": self.per_hour, "challenges_pending": self.pending,
                "challenge_timeout": int(timeout) if float(timeout).is_integer() else timeout}


@dataclass(frozen=True)
class LadderConfig:
    """Continuous matchmaking for one game and settings (a server may run several,
    each with its own `name`, ratings and history).

    Bots that play `game` and have fewer than `max_games` games in flight are paired
    every `interval` seconds; each pairing plays two games with the seats swapped, each
    with its own secret dice seed. `house` lists built-in bot specs that the server
    plays (in its worker processes); they are only paired with external bots unless
    `house_vs_house` is set. `seed` seeds the pairing order, not the dice. The same two
    accounts meet at most `pairings_per_hour` times an hour.
    """

    game: str = "substitution"
    settings: Mapping[str, Any] = field(default_factory=dict)
    house: tuple[str, ...] = ()
    house_vs_house: bool = False
    interval: float = 0.5
    max_games: int = 2
    seed: int | None = None
    pairings_per_hour: int = 10
    """Times the same two accounts may be paired in any 60 minutes (a pairing is two
    games; 0: no limit), so that a bot that resigns every game feeds a partner at most
    twice that many wins an hour. Pairings with a house bot are not counted: a house bot plays
    every game and belongs to nobody (`arena.server.ladder`)."""
    name: str = ""
    """The ladder's name, unique on its server: what ``/api/leaderboard?ladder=NAME``,
    the bots' ``hello.ladders`` and a ``challenge``, ``seek`` or ``pause`` name it by
    (their field is optional while a server has one ladder). Empty: the game's name,
    so the ladder of the single-ladder flags is named after its game, as are the
    ratings stored before ladders had names (one rule, docs/server.md)."""
    time_control: TimeControl | None = None
    """The clocks of the ladder's games; None: the server's `ServerConfig.time_control`."""
    rated: bool = True
    """Whether its games change its ratings (an unrated ladder pairs for practice)."""
    generator: Mapping[str, Any] | None = None
    """None: every game plays `settings`. Otherwise the parameters of the game's
    generator (``{}``: its defaults; `arena.game.Game.generate`): each pairing's start
    is drawn from the smaller of its two games' committed seeds (`arena.starts`), and both games of
    the pairing play it."""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.game)

    def describe(self) -> dict[str, Any]:
        """The ladder as ``GET /api/ladders`` and ``welcome.ladders`` show it."""
        return {"name": self.name, "game": self.game,
                "settings": None if self.generator is not None else dict(self.settings),
                "generator": None if self.generator is None else dict(self.generator),
                "rated": self.rated, "house": ["house:" + spec for spec in self.house],
                "time_control": None if self.time_control is None
                else self.time_control.to_json()}


@dataclass(frozen=True)
class WebConfig:
    """Every budget of the HTTP side (docs/server.md lists them with their errors).

    Requests are refused before the work starts: a request head beyond `max_head` bytes
    gets 431, a body beyond its limit 413, a guest account beyond the quotas 429.
    """

    default_game: str = "substitution"
    """The game of the lobby and of a request that names none (the flagship game; any
    registered game may be named)."""
    origins: tuple[str, ...] = ()
    """Browser origins allowed besides the server's own (``https://arena.example.org``):
    their pages may open the WebSocket and send state-changing requests."""
    server_names: tuple[str, ...] = ()
    """Host names the server answers to (``arena.example.org``) besides the address it
    is bound to, ``localhost`` and any IP address; a request to another name gets 421
    (a browser's WebSocket handshake too), so a rebound DNS name reaches nothing."""
    max_head: int = 8192
    """Bytes of a request's line and headers."""
    head_timeout: float = 10.0
    """Seconds for a new connection to send its first request head."""
    keepalive_timeout: float = 15.0
    """Seconds an idle HTTP keep-alive connection stays open."""
    max_body: int = 64 * 1024
    """Bytes of a JSON request body."""
    max_upload: int = 4 * 1024 * 1024
    """Bytes of a log uploaded for replay."""
    replay_turns: int = 10_000
    """Turns of a replayed log."""
    replay_state_bytes: int = 256 * 1024
    """Bytes of one replay frame (a state and its render, as JSON)."""
    replay_bytes: int = 32 * 1024 * 1024
    """Bytes of a replay's answer (all its frames, as JSON, before gzip)."""
    replay_seconds: float = 10.0
    """Seconds a replay may take in its worker (the worker is killed after that)."""
    replay_send_seconds: float = 60.0
    """Seconds a client has to read a replay's answer (streamed from a file); it is cut
    off after that, and its place in `replay_queue` freed."""
    replay_memory_mb: int = 1024
    """Address space of a replay worker, in MiB."""
    replay_workers: int = 1
    """Worker processes for replays (their own pool: replays never delay house bots)."""
    replay_queue: int = 4
    """Replays running, waiting or being sent at once; more get 429. Each answer being
    sent is a file of at most `replay_bytes` in the server's temporary directory."""
    guests_per_client_minute: int = 5
    """Guest accounts one client address (an IPv6 /64) may create per minute."""
    presets: int = 200
    """Grammar presets saved at most (``POST /api/grammars`` of a new name beyond: 409)."""
    presets_per_client_minute: int = 10
    """Grammar presets one client address may save or delete per minute (429 beyond)."""
    matches_per_client: int = 2
    """Bot-versus-bot games (``POST /api/match``) one client address may have running."""
    matches: int = 8
    """Bot-versus-bot games started from the web running at once on the server."""
    tournament_bots: int = 8
    """Bots of a tournament started from the web."""
    tournament_games: int = 2000
    """Games in all of a tournament started from the web (pairings times games each)."""
    tournaments: int = 1
    """Tournaments from the web running at once (each in its own worker process)."""
    tournament_queue: int = 3
    """Tournaments waiting for a free slot; more get 429."""
    tournament_processes: int = 1
    """Processes each tournament plays in."""
    tournament_seconds: float = 600.0
    """Seconds a tournament from the web may run; its worker is killed after that."""


@dataclass(frozen=True)
class AccountsConfig:
    """People's accounts and their budgets (``[accounts]`` of the configuration; docs/server.md,
    "People and their bots", and docs/security.md list them with their errors)."""

    signup: Literal["open", "invite", "closed"] = "closed"
    """Who may sign up on the web: anybody (``open``), whoever has an invite code from
    ``arena users invite`` (``invite``), or nobody: the operator adds people with
    ``arena users add`` (``closed``, the default)."""
    session_lifetime: float = 30 * 24 * 3600.0
    """Seconds a sign-in lasts (its cookie and its stored session)."""
    sessions_per_person: int = 10
    """Sessions a person keeps at once (browsers signed in); a new sign-in ends the oldest
    beyond."""
    password_min: int = 8
    """Characters of a password at least."""
    password_max: int = 256
    """Characters of a password at most (argon2 reads it all: the bound keeps a huge one
    from costing more)."""
    bots_per_person: int = 5
    """Bots a person may have (revoked ones do not count)."""
    versions_per_day: int = 10
    """Versions a person may register in any 24 hours, of all their bots (a successful
    build of an uploaded program is one)."""
    builds_per_day: int = 20
    """Programs a person may upload to be built in any 24 hours, of all their hosted bots
    (successful or not; operators' uploads do not count)."""
    changes_per_person_minute: int = 30
    """Bots made, tokens replaced and versions registered per person per minute."""
    signups_per_client_minute: int = 2
    """Sign-ups from one client address (an IPv6 /64) per minute."""
    signups_per_minute: int = 30
    """Sign-ups per minute in all."""
    signins_per_client_minute: int = 10
    """Sign-in attempts from one client address per minute (right or wrong)."""
    signins_per_name_minute: int = 10
    """Sign-in attempts for one name per minute, from anywhere (a guessing attack spread
    over many addresses)."""
    hash_threads: int = 1
    """Threads that hash and check passwords (argon2id: 64 MiB and tens of
    milliseconds each), off the event loop."""
    hash_queue: int = 8
    """Password hashes and checks taken at once (running or waiting); more get 503."""
    games_listed: int = 100
    """Games of a bot one request lists at most."""


@dataclass(frozen=True)
class HostedConfig:
    """Hosted bots: uploads built in the sandbox into `directory` and played by the
    server as their accounts (`arena.uploads`, `arena.server.hosted`; docs/bots.md,
    "Hosted bots"). Without a `directory` the server hosts none and refuses uploads."""

    directory: str | None = None
    """The builds (``--hosted-dir``); the sandbox must be available (root, bubblewrap)."""
    slots: int | None = None
    """Hosted programs playing at once (a slot per hosted seat of a game in progress,
    whatever the program speaks; games that find none free wait, before their clocks
    start); None: a slot per core but one (`arena.sandbox.spec.default_hosted_slots`)."""
    ws_programs: int | None = None
    """WebSocket-speaking hosted programs running at once (each runs all the time,
    playing or not, so each holds one of these while it runs; more wait their turn to
    start); None: as many as `slots`."""
    builds_at_once: int = 1
    """Builds running at once (each in a thread and a sandbox)."""
    build_queue: int = 4
    """Uploads that may wait for a build; more get 503 with ``Retry-After``."""
    refresh_interval: float = 5.0
    """Seconds between reads of the hosted bots from the database (an upload on this
    server, or a revocation, is seen at once or within this time)."""
    upload: UploadLimits = field(default_factory=UploadLimits)
    """Bounds on an upload: `UploadLimits.archive_bytes` is also the largest HTTP body."""
    build: BuildLimits = field(default_factory=BuildLimits)


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    db: str = "arena.sqlite"
    """The database: a SQLite file path (or ``sqlite:///PATH``) or a PostgreSQL URL
    (``postgresql://USER@HOST/DATABASE``); `arena.storage.open_storage`."""
    time_control: TimeControl = field(default_factory=TimeControl)
    ladder: LadderConfig | None = None
    """One ladder (the single-ladder flags of `arena serve`); `ladders` holds more."""
    ladders: tuple[LadderConfig, ...] = ()
    """The ladders (``[[ladders]]`` of ``arena serve --config``), each with its own name;
    with `ladder` too, that one comes first."""
    hello_timeout: float = 10.0
    max_frame: int = 256 * 1024
    """Largest message accepted; longer frames get an ``oversize`` error."""
    max_ws_frame: int = 4 * 1024 * 1024
    """Frames longer than this close the connection (1009)."""
    max_queue_bytes: int = 1024 * 1024
    """Bytes of frames queued for a client that does not read; beyond that it is
    disconnected (1008, slow consumer)."""
    max_state_bytes: int = 64 * 1024
    """Largest game state (its msgpack encoding); a game whose state grows beyond it is
    aborted with that reason (0: no limit)."""
    max_connections_per_address: int = 64
    """WebSocket connections open at once from one IP address (bots, spectators,
    operators, browsers); more are closed at once with 1013."""
    shared_limits: str = "local"
    """Where the budgets per address and per person are counted (`arena.counters`):
    ``local``, in this process (one process serves the arena), or
    ``redis://HOST[:PORT][/DB][?prefix=NAME]``, shared by every process serving one
    arena (docs/cluster.md, "Limits across processes")."""
    message_rate: float = 50.0
    """Messages a second a connection may send beyond those the server asked for (a
    ``your_turn`` asks for a move; the debug lines it keeps and, up to
    `legal_requests_per_turn`, the ``legal`` requests of the bot's turn are free too);
    0: no limit."""
    message_burst: int = 200
    """Messages a connection may send at once before `message_rate` applies; beyond
    both, a fatal ``rate-limited`` error and the connection closes (4006)."""
    settings_limits: Mapping[str, int] = field(default_factory=dict)
    """Changed limits on games' settings for bots with accounts and the ladder, as
    ``{"GAME.SIZE": value}`` (defaults: each game's `GameType.limits`)."""
    guest_settings_limits: Mapping[str, int] = field(default_factory=dict)
    """The same for guests' games."""
    guest_lifetime: float = 24 * 3600.0
    """Seconds a guest account lives; then it can no longer log in and is deleted."""
    guest_purge_interval: float = 600.0
    """Seconds between deletions of expired guest accounts."""
    workers: WorkerLimits = field(default_factory=WorkerLimits)
    """The worker processes house bots think in: how many, and the memory of each."""
    house_prepare_timeout: float = 60.0
    """Seconds a worker may take to build and prepare a house bot (off the clock)."""
    host_id: str | None = None
    """This server's name as a host of games on a shared database (docs/cluster.md):
    the holder of its games' leases. None: machine, pid and a random part
    (`arena.storage.leases.host_id`)."""
    role: Literal["all", "gateway", "host"] = "all"
    """This process's part of the arena (docs/cluster.md, `arena serve --role`): ``all``
    holds the connections and owns the games (one process, no bus hop); a ``gateway``
    holds the connections and serves the web, owning no game; a ``host`` owns live
    games and, while it leads, the ladders' pairing, and takes no connection."""
    bus: str = "local:"
    """The bus between gateways and hosts (`arena.bus.parse_bus_url`): ``local:`` for
    ``all``, a ``nats://`` URL for the other roles."""
    presence_interval: float = 2.0
    """Seconds between a gateway's full snapshots of its bots on the bus; a host takes
    a gateway silent for three of them for dead, and its bots for gone."""
    lease_seconds: float = 10.0
    """How long a game's lease lasts (`arena.storage.leases.LEASE_SECONDS`): a dead
    host's games are taken over by another within about 1⅓ of it."""
    storage_probe_interval: float = 5.0
    """Seconds between test writes while the database fails (a full or read-only disk);
    the server starts games again once one succeeds."""
    max_legal: int = DEFAULT_MAX_LEGAL
    """Longest ``legal`` list in a ``your_turn`` (the ``legal-moves`` capability)."""
    log_limits: LogLimits = field(default_factory=LogLimits)
    """Bounds on the bots' ``log`` messages (size, per turn, per game, bytes per bot and
    UTC day), announced in ``welcome.limits``."""
    debug_retention_days: float = 14.0
    """Days a game's debug lines are kept after it ends; then they are dropped from its
    stored log, the moves and the result staying (0: kept for ever)."""
    debug_disk_reserve_mb: int = 256
    """MiB of free space on the database's file system below which no debug line is
    kept (the games go on); 0: no reserve."""
    challenges: ChallengeLimits = field(default_factory=ChallengeLimits)
    """Bounds on challenges (per account an hour, unanswered at once, their timeout),
    announced in ``welcome.limits`` to bots with the ``challenges`` capability."""
    legal_requests_per_turn: int = 100
    """``legal`` requests a bot may have answered in a turn of its own at no cost to its
    message budget (`message_rate`); more count against it."""
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    write_ahead: bool = True
    """Store every accepted move before anybody is told of it, so a restart resumes the
    running games (`arena.server.writeahead`). False is only the figures' baseline
    (``bench/bench_server.py``): a restart then loses the moves of the games in flight."""
    validate_outgoing: bool = False
    """Check the server's own messages against the schema before sending (receivers
    always validate; the SDK and the tests do)."""
    revocation_interval: float = 2.0
    """Seconds between checks that the accounts of connected clients still hold their
    tokens (`arena bots revoke` works on the database; a revoked bot is dropped within
    this time and forfeits its games)."""
    close_timeout: float = 2.0
    """Seconds to wait for a client's closing handshake (at shutdown, for example)."""
    name: str = "arena"
    web_time_control: TimeControl = field(default_factory=lambda: TimeControl(
        move_ms=600_000, bank_ms=600_000, first_move_ms=600_000, retries=5, grace_ms=120_000))
    """Time control of the games people play in the browser against house bots."""
    guests_per_minute: int = 600
    """Guest accounts ``POST /api/guest`` issues at most per minute in all (one per game
    played in a browser); each client address has its own, smaller quota
    (`WebConfig.guests_per_client_minute`)."""
    tournaments: str | None = None
    """A directory of tournament results (``*.json`` with ``bots`` and ``table``, in it or
    one level down, with their ``logs/``) shown by the web interface."""
    web: WebConfig = field(default_factory=WebConfig)
    """The HTTP side's limits and allowed browser origins (`WebConfig`)."""
    accounts: AccountsConfig = field(default_factory=AccountsConfig)
    """People's accounts: who may sign up, their limits and budgets (`AccountsConfig`)."""
    hosted: HostedConfig = field(default_factory=HostedConfig)
    """Hosted bots: uploads, builds and the slots their programs take."""
    seasons: tuple[SeasonConfig, ...] = ()
    """The ladders' seasons (`arena.seasons`; ``[[seasons]]`` of the configuration file,
    read by `arena.seasons.seasons_from_toml`)."""
    season_interval: float = 5.0
    """Seconds between checks of the seasons' phases: a season's standings freeze
    within this time of its end, and its final starts then."""

    @property
    def all_ladders(self) -> tuple[LadderConfig, ...]:
        """Every ladder the server runs: `ladder`, then `ladders`."""
        return ((self.ladder,) if self.ladder is not None else ()) + tuple(self.ladders)

    def find_ladder(self, name: str) -> LadderConfig | None:
        """The ladder named `name`, if the server runs one."""
        return next((ladder for ladder in self.all_ladders if ladder.name == name), None)

    def ladder_named(self, asked: str | None) -> LadderConfig | str:
        """The ladder a ``challenge``, ``seek`` or ``pause`` (or a web challenge) names
        by its ``ladder`` field, which may be left out while the server runs one ladder;
        else the message of the ``unknown-ladder`` error, listing the ladders."""
        ladders = self.all_ladders
        if not ladders:
            return ("this server has no ladder" if asked is None
                    else f"no ladder {asked!r} (this server has no ladder)")
        names = ", ".join(repr(ladder.name) for ladder in ladders)
        if asked is None:
            if len(ladders) == 1:
                return ladders[0]
            return f"this server runs several ladders ({names}): name one in 'ladder'"
        found = self.find_ladder(asked)
        return found if found is not None else f"no ladder {asked!r} (the ladders: {names})"
