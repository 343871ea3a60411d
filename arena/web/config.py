"""The HTTP side's limits and browser origins, as one frozen value (`ServerConfig.web`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SIGNUP_MODES", "AccountsConfig", "WebConfig"]

SIGNUP_MODES = ("open", "invite", "closed")


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
    """Versions a person may register in any 24 hours, of all their bots."""
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
