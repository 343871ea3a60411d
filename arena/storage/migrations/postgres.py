"""The PostgreSQL schema, as the steps that made it (`MIGRATIONS`).

Step ``i`` takes a database from version ``i`` to ``i + 1``; the version is the one row
of ``schema_version``. Opening a database (`arena.storage.postgres`) runs the steps it
lacks, each in its own transaction together with its new version number, under an
advisory lock (two servers starting at once do not both migrate: the second waits, then
finds the work done). The tables live in the connection's current schema (the first of
its ``search_path``), so one database may hold several arenas, one schema each.

A change to the schema is a new step at the end, never an edit of an old one, and the
same change is a new step of the SQLite schema (`arena.storage.migrations.sqlite`); the
numbering of the two is their own (PostgreSQL's version 1 is SQLite's version 4).
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_BASELINE = """
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    token_hash TEXT UNIQUE,
    created DOUBLE PRECISION NOT NULL,
    revoked DOUBLE PRECISION,
    operator BOOLEAN NOT NULL DEFAULT FALSE,
    house TEXT,
    expires DOUBLE PRECISION
);
CREATE TABLE games (
    seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    players TEXT NOT NULL,
    seed TEXT,
    seed_commitment TEXT,
    ladder BOOLEAN NOT NULL DEFAULT FALSE,
    pair TEXT,
    status TEXT NOT NULL,
    result TEXT,
    winner INTEGER,
    scores TEXT,
    termination TEXT,
    reason TEXT,
    turns INTEGER,
    started DOUBLE PRECISION NOT NULL,
    finished DOUBLE PRECISION,
    log TEXT,
    notes_bytes INTEGER
);
CREATE INDEX games_started ON games(started);
CREATE INDEX games_with_notes ON games(finished) WHERE notes_bytes IS DISTINCT FROM 0;
CREATE INDEX games_running ON games(status) WHERE status = 'running';
CREATE TABLE game_players (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_players_bot ON game_players(bot);
CREATE TABLE ratings (
    bot TEXT NOT NULL,
    game TEXT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (bot, game)
);
CREATE TABLE rating_updates (
    game_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    mu_before DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL,
    sigma_after DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, bot)
);
CREATE TABLE presets (
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, name)
);
CREATE TABLE log_bytes (
    bot TEXT NOT NULL,
    day INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    PRIMARY KEY (bot, day)
);
CREATE TABLE probe (
    data BYTEA
);
"""
"""Version 1: the tables of SQLite's version 4 (accounts with guest expiry, games with
128-bit seeds as decimal text and their commitments, ratings and their history,
presets per game, the bots' debug-line bytes per game and per day, the ``probe`` of
`Storage.check_writable`). ``games.seq`` keeps the
order games were stored in (SQLite's ``rowid``), which breaks ties in listings."""

_WRITE_AHEAD = """
ALTER TABLE games ADD COLUMN time_control TEXT;
CREATE TABLE game_turns (
    game_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    line TEXT NOT NULL,
    clocks TEXT NOT NULL,
    ended DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, idx)
);
"""
"""Version 2 (SQLite's 5): the write-ahead turns of running games and each game's time
control, so that a restarted server resumes its games."""

_HOST_LEASES = """
ALTER TABLE games ADD COLUMN host TEXT;
ALTER TABLE games ADD COLUMN lease_until DOUBLE PRECISION;
CREATE INDEX games_host ON games(host) WHERE status = 'running';
"""
"""Version 3 (SQLite's 6): each running game's host and its lease (``lease_until``,
seconds since the epoch by the database's clock), so that another host takes over the
games of a host that died (`Storage.claim_expired`); NULL for a game no host has leased."""

_SEASONS = """
CREATE TABLE seasons (
    name TEXT PRIMARY KEY,
    ladder TEXT NOT NULL,
    settings TEXT,
    frozen DOUBLE PRECISION NOT NULL,
    final_status TEXT,
    final_report TEXT,
    final_updated DOUBLE PRECISION
);
CREATE TABLE season_standings (
    season TEXT NOT NULL,
    bot TEXT NOT NULL,
    rank INTEGER NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    entered BOOLEAN NOT NULL,
    PRIMARY KEY (season, bot)
);
"""
"""Version 4 (SQLite's 7): seasons, their final and their frozen standings."""

_PEOPLE = """
CREATE TABLE people (
    name TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL
);
CREATE TABLE person_sessions (
    token_hash TEXT PRIMARY KEY,
    person TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    expires DOUBLE PRECISION NOT NULL
);
CREATE INDEX person_sessions_person ON person_sessions(person);
CREATE TABLE invites (
    code_hash TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    expires DOUBLE PRECISION NOT NULL,
    used_by TEXT
);
ALTER TABLE bots ADD COLUMN owner TEXT;
CREATE INDEX bots_owner ON bots(owner);
CREATE TABLE bot_versions (
    bot TEXT NOT NULL,
    version INTEGER NOT NULL,
    note TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (bot, version)
);
ALTER TABLE game_players ADD COLUMN version INTEGER;
"""
"""Version 5 (SQLite's 8): people's accounts, sessions and invite codes, bots that
belong to a person, their versions, and the version of each bot a game recorded."""

_LADDERS = """
ALTER TABLE games ADD COLUMN ladder_name TEXT;
UPDATE games SET ladder_name = game WHERE ladder;
ALTER TABLE ratings ADD COLUMN ladder TEXT;
UPDATE ratings SET ladder = game;
ALTER TABLE ratings ALTER COLUMN ladder SET NOT NULL;
ALTER TABLE ratings DROP CONSTRAINT ratings_pkey;
ALTER TABLE ratings ADD PRIMARY KEY (bot, ladder);
"""
"""Version 6 (SQLite's 9), the step after the people's: several ladders, each with its own ratings and history
(``games.ladder_name``, ``ratings.ladder``); what was stored before belongs to the
ladder named after its game."""

_BOT_BUILDS = """
CREATE TABLE bot_builds (
    id TEXT PRIMARY KEY,
    bot TEXT NOT NULL,
    lang TEXT NOT NULL,
    status TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    finished DOUBLE PRECISION,
    sha256 TEXT,
    detail TEXT,
    log TEXT
);
CREATE INDEX bot_builds_by_bot ON bot_builds(bot, created);
CREATE TABLE hosted_stderr (
    game_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (game_id, bot)
);
CREATE INDEX hosted_stderr_by_time ON hosted_stderr(created);
"""
"""Version 7 (SQLite's 10): the builds of uploaded (hosted) bots with their build logs
(`arena.uploads`), and the hosted programs' standard error per game, for their owners."""

_OPERATORS = """
ALTER TABLE people ADD COLUMN operator BOOLEAN NOT NULL DEFAULT FALSE;
"""
"""Version 8 (SQLite's 11): a person may be an operator (``people.operator``), who reads
the operators' page of the web."""

_BUILD_SPEAKS = """
ALTER TABLE bot_builds ADD COLUMN speaks TEXT NOT NULL DEFAULT 'lines';
"""
"""Version 9 (SQLite's 12): what an uploaded program speaks (``bot_builds.speaks``):
``lines`` or ``ws``."""

_CHALLENGES = """
CREATE TABLE pending_challenges (
    id TEXT PRIMARY KEY,
    challenger TEXT NOT NULL,
    opponent TEXT NOT NULL,
    rated BOOLEAN NOT NULL,
    ladder TEXT NOT NULL,
    expires DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    request_id TEXT,
    asked BOOLEAN NOT NULL
);
"""
"""Version 10 (SQLite's 13): the challenges waiting for an answer, kept by the leading
host so that the next leader takes them over when it dies (docs/cluster.md)."""

_BUILD_REASONS = """
ALTER TABLE bot_builds ADD COLUMN detail_code TEXT;
ALTER TABLE bot_builds ADD COLUMN detail_params TEXT;
"""
"""Version 11 (SQLite's 14): why a build failed as a code and its values (``bot_builds.detail_code``,
``detail_params`` as JSON text), for a page to say it in its language; the builds before
it have only their English ``detail``."""

_CHALLENGES_KEPT = """
ALTER TABLE pending_challenges ADD COLUMN keeper TEXT NOT NULL DEFAULT '';
ALTER TABLE pending_challenges ADD COLUMN ended TEXT;
ALTER TABLE pending_challenges ADD COLUMN ended_at DOUBLE PRECISION;
CREATE TABLE challenges_sent (
    account TEXT NOT NULL,
    sent DOUBLE PRECISION NOT NULL
);
CREATE INDEX challenges_sent_by_time ON challenges_sent(sent);
"""
"""Version 12 (SQLite's 15): the leading host's challenges outlive it whole: each row's
``keeper``, an ended one's fields (``ended``) kept an hour after ``ended_at``, and
``challenges_sent`` for the hourly budget (the SQLite step says why)."""
_PENDING_ENDS = """
CREATE TABLE pending_ends (
    bot TEXT NOT NULL,
    game_id TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (bot, game_id)
);
CREATE INDEX pending_ends_by_time ON pending_ends(created);
"""
"""Version 13 (SQLite's 16): the games over whose end a bot has not been known to hear yet
(`Storage.pending_ends`): a cluster's host keeps one row per player as it stores the
result, the gateway that sends the bot its ``game_over`` drops it, and a gateway sends
those left (lost on the way, or kept for a bot away when its host stopped) to the bot
from here (docs/cluster.md)."""

MIGRATIONS: tuple[str, ...] = (_BASELINE, _WRITE_AHEAD, _HOST_LEASES,
                               _SEASONS, _PEOPLE, _LADDERS, _BOT_BUILDS,
                               _OPERATORS, _BUILD_SPEAKS, _CHALLENGES, _BUILD_REASONS,
                               _CHALLENGES_KEPT, _PENDING_ENDS)

SCHEMA_VERSION = len(MIGRATIONS)
"""The version of the schema this code reads and writes."""
