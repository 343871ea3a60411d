"""The SQLite schema, as the steps that made it (`MIGRATIONS`).

Step ``i`` takes a database from version ``i`` to ``i + 1`` (SQLite's ``PRAGMA
user_version``); a database of any earlier version is brought up to date, one step
at a time, each in its own transaction, when it is opened (`arena.storage.sqlite`). A
change to the schema is a new step at the end, never an edit of an old one, and the
same change is a new step of the PostgreSQL schema too (`arena.storage.migrations.postgres`).
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_BASELINE = """
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    token_hash TEXT UNIQUE,
    created REAL NOT NULL,
    revoked REAL,
    operator INTEGER NOT NULL DEFAULT 0,
    house TEXT
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    players TEXT NOT NULL,
    seed INTEGER,
    ladder INTEGER NOT NULL DEFAULT 0,
    pair TEXT,
    status TEXT NOT NULL,
    result TEXT,
    winner INTEGER,
    scores TEXT,
    termination TEXT,
    reason TEXT,
    turns INTEGER,
    started REAL NOT NULL,
    finished REAL,
    log TEXT
);
CREATE INDEX IF NOT EXISTS games_started ON games(started);
CREATE TABLE IF NOT EXISTS game_players (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_players_bot ON game_players(bot);
CREATE TABLE IF NOT EXISTS ratings (
    bot TEXT NOT NULL,
    game TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL,
    PRIMARY KEY (bot, game)
);
CREATE TABLE IF NOT EXISTS rating_updates (
    game_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    PRIMARY KEY (game_id, bot)
);
CREATE TABLE IF NOT EXISTS grammars (
    name TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    created REAL NOT NULL
);
"""
"""Version 1: the schema of every database made before schema versions were kept (its
``user_version`` is 0); ``IF NOT EXISTS`` makes it a no-op on those."""

_PRESETS = """
CREATE TABLE presets (
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game, name)
);
INSERT INTO presets(game, name, text, created)
    SELECT 'substitution', name, text, created FROM grammars;
DROP TABLE grammars;
"""
"""Version 2: settings presets saved from the web belong to a game (any game's plugin
may offer them, `arena.hookspecs.arena_web_settings`); the grammar presets saved
before were the substitution game's."""

_SEEDS_AND_EXPIRY = """
ALTER TABLE bots ADD COLUMN expires REAL;
ALTER TABLE games ADD COLUMN seed_text TEXT;
ALTER TABLE games ADD COLUMN seed_commitment TEXT;
CREATE TABLE probe (
    data BLOB
);
"""
"""Version 3: guests expire (``bots.expires``); a game's seed is 128 bits, kept as
decimal text, with the commitment published before its first move (`arena.seeds`);
``probe`` is where `Storage.check_writable` tries a write."""

_DEBUG_LINES = """
ALTER TABLE games ADD COLUMN notes_bytes INTEGER;
CREATE INDEX games_with_notes ON games(finished) WHERE notes_bytes IS NOT 0;
CREATE TABLE log_bytes (
    bot TEXT NOT NULL,
    day INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    PRIMARY KEY (bot, day)
);
"""
"""Version 4: the bots' debug lines have a budget and a retention period. A finished
game's ``notes_bytes`` is the bytes of debug lines its log holds (NULL: a game stored
before, not looked at yet; `drop_old_notes` finds the logs that hold any by the
partial index); ``log_bytes`` is each bot's bytes of debug lines stored per UTC day
(`arena.bot_logs.utc_day`), which `LogLimits.max_log_bytes_per_day` bounds."""

_WRITE_AHEAD = """
ALTER TABLE games ADD COLUMN time_control TEXT;
CREATE TABLE game_turns (
    game_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    line TEXT NOT NULL,
    clocks TEXT NOT NULL,
    ended REAL NOT NULL,
    PRIMARY KEY (game_id, idx)
);
"""
"""Version 5: every accepted move of a running game is stored before anybody is told
of it (``game_turns``: its log line, the seats' clocks after it, when it ended), with
the game's time control, so that a restarted server resumes the game; a finished
game's turns are dropped when its log is stored."""

_HOST_LEASES = """
ALTER TABLE games ADD COLUMN host TEXT;
ALTER TABLE games ADD COLUMN lease_until REAL;
CREATE INDEX games_host ON games(host) WHERE status = 'running';
"""
"""Version 6: each running game's host and its lease (``lease_until``, seconds since the
epoch), so that in a cluster another host takes over the games of a host that died
(`Storage.claim_expired`); NULL for a game no host has leased."""

_SEASONS = """
CREATE TABLE seasons (
    name TEXT PRIMARY KEY,
    ladder TEXT NOT NULL,
    settings TEXT,
    frozen REAL NOT NULL,
    final_status TEXT,
    final_report TEXT,
    final_updated REAL
);
CREATE TABLE season_standings (
    season TEXT NOT NULL,
    bot TEXT NOT NULL,
    rank INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    entered INTEGER NOT NULL,
    PRIMARY KEY (season, bot)
);
"""
"""Version 7: seasons (`arena.seasons`): each ended season once, with its settings as
they were (``SeasonConfig.to_json``: a past season is shown after it leaves the
configuration) and the state and report of its final (``seasons``), and its standings as they froze at its end
(``season_standings``)."""

_PEOPLE = """
CREATE TABLE people (
    name TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE person_sessions (
    token_hash TEXT PRIMARY KEY,
    person TEXT NOT NULL,
    created REAL NOT NULL,
    expires REAL NOT NULL
);
CREATE INDEX person_sessions_person ON person_sessions(person);
CREATE TABLE invites (
    code_hash TEXT PRIMARY KEY,
    created REAL NOT NULL,
    expires REAL NOT NULL,
    used_by TEXT
);
ALTER TABLE bots ADD COLUMN owner TEXT;
CREATE INDEX bots_owner ON bots(owner);
CREATE TABLE bot_versions (
    bot TEXT NOT NULL,
    version INTEGER NOT NULL,
    note TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (bot, version)
);
ALTER TABLE game_players ADD COLUMN version INTEGER;
"""
"""Version 8: people have accounts (``people``, with an argon2 password hash), sessions
(``person_sessions``, token hashes) and invite codes (``invites``); a bot may belong to
a person (``bots.owner``) and have versions (``bot_versions``), and a game records the
version of each bot that played it (``game_players.version``; NULL: a bot of nobody's,
or a game stored before)."""

_LADDERS = """
ALTER TABLE games ADD COLUMN ladder_name TEXT;
UPDATE games SET ladder_name = game WHERE ladder = 1;
CREATE TABLE ladder_ratings (
    bot TEXT NOT NULL,
    game TEXT NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL,
    ladder TEXT NOT NULL,
    PRIMARY KEY (bot, ladder)
);
INSERT INTO ladder_ratings(bot, game, mu, sigma, games, wins, losses, draws, updated, ladder)
    SELECT bot, game, mu, sigma, games, wins, losses, draws, updated, game FROM ratings;
DROP TABLE ratings;
ALTER TABLE ladder_ratings RENAME TO ratings;
"""
"""Version 9, the step after the people's: a server runs several ladders (``[[ladders]]`` of `arena serve --config`),
each with its own ratings and history: a ladder game keeps its ladder's name
(``games.ladder_name``) and a rating belongs to a bot on a ladder (``ratings.ladder``).
The ladder of the games and ratings stored before is the one named after their game,
which is the name of the ladder the single-ladder flags define."""

_BOT_BUILDS = """
CREATE TABLE bot_builds (
    id TEXT PRIMARY KEY,
    bot TEXT NOT NULL,
    lang TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    sha256 TEXT,
    detail TEXT,
    log TEXT
);
CREATE INDEX bot_builds_by_bot ON bot_builds(bot, created);
CREATE TABLE hosted_stderr (
    game_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    created REAL NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (game_id, bot)
);
CREATE INDEX hosted_stderr_by_time ON hosted_stderr(created);
"""
"""Version 10: the builds of uploaded (hosted) bots (`arena.uploads`): each upload's
language, state (``building``, ``ok``, ``failed``), digest of its sources, why it
failed and its build log, for the bot's owner; the build itself is a directory under
the server's ``--hosted-dir`` named by the row's id. ``hosted_stderr`` is a hosted
program's standard error in one game (bounded), for its owner only, dropped with the
debug lines after the retention period."""

_OPERATORS = """
ALTER TABLE people ADD COLUMN operator INTEGER NOT NULL DEFAULT 0;
"""
"""Version 11: a person may be an operator (``people.operator``, 1), who reads the
operators' page of the web (`arena users add NAME --operator`)."""

_BUILD_SPEAKS = """
ALTER TABLE bot_builds ADD COLUMN speaks TEXT NOT NULL DEFAULT 'lines';
"""
"""Version 12: what an uploaded program speaks (``bot_builds.speaks``): ``lines`` (its
standard streams, started per game) or ``ws`` (WebSocket behind its relay, kept running:
the starter kits unchanged); the builds before it spoke lines."""

_CHALLENGES = """
CREATE TABLE pending_challenges (
    id TEXT PRIMARY KEY,
    challenger TEXT NOT NULL,
    opponent TEXT NOT NULL,
    rated INTEGER NOT NULL,
    ladder TEXT NOT NULL,
    expires REAL NOT NULL,
    games INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    request_id TEXT,
    asked INTEGER NOT NULL
);
"""
"""Version 13: the challenges waiting for an answer (`Storage.pending_challenges`), kept
by the host that keeps the challenges so that the next one takes them over (a cluster's;
one process keeps none there)."""

_BUILD_REASONS = """
ALTER TABLE bot_builds ADD COLUMN detail_code TEXT;
ALTER TABLE bot_builds ADD COLUMN detail_params TEXT;
"""
"""Version 14: why a build failed as a code and its values (``bot_builds.detail_code``,
``detail_params`` as JSON text), for a page to say it in its language; the builds before
it have only their English ``detail``."""

_CHALLENGES_KEPT = """
ALTER TABLE pending_challenges ADD COLUMN keeper TEXT NOT NULL DEFAULT '';
ALTER TABLE pending_challenges ADD COLUMN ended TEXT;
ALTER TABLE pending_challenges ADD COLUMN ended_at REAL;
CREATE TABLE challenges_sent (
    account TEXT NOT NULL,
    sent REAL NOT NULL
);
CREATE INDEX challenges_sent_by_time ON challenges_sent(sent);
"""
"""Version 15: the leading host's challenges outlive it whole (docs/cluster.md, "The lobby"):
each row names the host that keeps it (``keeper``: the next leader takes the pending ones
over, and a leader's end is written only while the row is still its own), a challenge
that ended keeps its ``challenge_status`` fields (``ended``, JSON text) for an hour after
``ended_at``, for ``GET /api/challenges/ID``; ``challenges_sent`` holds when each account
sent each challenge of the last hour (the hourly budget), for the next leader to count."""
_PENDING_ENDS = """
CREATE TABLE pending_ends (
    bot TEXT NOT NULL,
    game_id TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (bot, game_id)
);
CREATE INDEX pending_ends_by_time ON pending_ends(created);
"""
"""Version 16: the games over whose end a bot has not been known to hear yet
(`Storage.pending_ends`): a cluster's host keeps one row per player as it stores the
result, the gateway that sends the bot its ``game_over`` drops it, and a gateway sends
those left (lost on the way, or kept for a bot away when its host stopped) to the bot
from here (docs/cluster.md)."""

MIGRATIONS: tuple[str, ...] = (_BASELINE, _PRESETS, _SEEDS_AND_EXPIRY, _DEBUG_LINES,
                               _WRITE_AHEAD, _HOST_LEASES,
                               _SEASONS, _PEOPLE, _LADDERS, _BOT_BUILDS,
                               _OPERATORS, _BUILD_SPEAKS, _CHALLENGES, _BUILD_REASONS,
                               _CHALLENGES_KEPT, _PENDING_ENDS)
"""The schema as the steps that made it: step ``i`` takes a database from version ``i``
to ``i + 1`` (SQLite's ``PRAGMA user_version``). A change to the schema is a new step
at the end, never an edit of an old one: a database of any earlier version is brought
up to date, step by step, when it is opened (`SQLiteDatabase.migrate`)."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The version of the schema this code reads and writes."""
