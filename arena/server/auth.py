"""Who a client is: the token in its ``hello``, and the tokens revoked since.

`authenticate` checks a bot's or an operator's token (or a browser guest's cookie)
against the accounts (`arena bots add NAME`). `Revocations` remembers the token each
session logged in with and checks them every `revocation_interval`: a client whose
token was revoked, replaced or expired since is dropped (the server forfeits its games
and closes the connection with 4001). It also deletes expired guest accounts every
`guest_purge_interval`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.names import is_guest
from arena.server.session import Session
from arena.storage import Storage, StorageFailure, hash_token
from protocol import AuthenticationError, Message

__all__ = ["WALL_TIMED_TOKEN_PREFIX", "Login", "Revocations", "authenticate"]

log = logging.getLogger("arena.server")

WALL_TIMED_TOKEN_PREFIX = "hosted-ws."
"""How the hosted tokens of WebSocket-speaking programs begin
(`arena.server.hosted_ws.TOKEN_PREFIX`): their logins are `Login.wall_timed`."""


@dataclass(frozen=True)
class Login:
    """Who a ``hello`` logged in as, and with which token (for `Revocations.add`)."""

    name: str
    token: str
    owner: str | None = None
    """The person the account belongs to, if any (the ladder never pairs two of theirs)."""
    hosted: bool = False
    """Logged in with a hosted bot's token (`arena.server.hosted`), which lives in the
    server's memory only: the runner, not `Revocations`, follows the account."""
    wall_timed: bool = False
    """A hosted program whose CPU time per turn is not measured (a WebSocket-speaking
    one, `arena.server.hosted_ws`: one program for all its games): timed by wall time
    under a ``cpu`` clock, as a connected bot."""


async def authenticate(storage: Storage, hello: Message, cookie: str | None,
                       hosted: Mapping[str, str] | None = None) -> Login:
    """The account a bot's or an operator's ``hello`` logs in as; `cookie` is the guest
    token of a browser's handshake (a bot's hello may then come without a token);
    `hosted` maps the tokens of the server's own hosted bots to their names
    (`arena.server.hosted.HostedRunner.tokens`).

    Raises:
        AuthenticationError: no token, an unknown or revoked one, one of another bot,
            for an operator one of an account that is not an operator, or for a bot
            an operator's (operators request games; they do not play on the ladder).
        StorageFailure: the accounts cannot be read now.
    """
    role = hello["role"]
    token: str | None = hello.get("token")
    if role == "bot" and token and hosted and token in hosted:
        name = hosted[token]
        if hello.get("bot") not in (None, name):
            raise AuthenticationError(f"the token belongs to {name!r}, not {hello.get('bot')!r}")
        return Login(name, token, hosted=True,
                     wall_timed=token.startswith(WALL_TIMED_TOKEN_PREFIX))
    cookie = cookie if role == "bot" else None
    account = None
    secret = token or cookie  # a browser's guest sends its token in a cookie
    if secret:
        account = await storage.authenticate(secret)
        if not token and account is not None and not is_guest(account.name):
            account = None  # a cookie only ever carries a guest's token
        token = secret
    if account is None or (role == "operator" and not account.operator):
        raise AuthenticationError(
            f"a {role} needs a 'token' in its hello (from 'arena bots add NAME')"
            if not token else "unknown or revoked token" if account is None
            else f"{account.name} is not an operator account")
    if role == "bot" and account.operator:
        raise AuthenticationError(
            f"{account.name} is an operator account: operators request games and do not "
            "play; connect the bot with a bot account's token ('arena bots add NAME', "
            "without --operator)")
    if hello.get("bot") not in (None, account.name):
        raise AuthenticationError(
            f"the token belongs to {account.name!r}, not {hello.get('bot')!r}")
    assert token is not None
    return Login(account.name, token, account.owner)


class Revocations:
    """The logged-in sessions' tokens, checked for revocation (module docstring).

    Args:
        storage: the accounts.
        interval: seconds between checks.
        purge_interval: seconds between deletions of expired guest accounts.
        drop: called with each session whose token no longer holds.
    """

    def __init__(self, storage: Storage, *, interval: float, purge_interval: float,
                 drop: Callable[[Session], Any]) -> None:
        self.storage = storage
        self.interval = interval
        self.purge_interval = purge_interval
        self._drop = drop
        self._tokens: dict[Session, str] = {}
        """The token hash each authenticated session (bot or operator) logged in with."""

    def add(self, session: Session, token: str) -> None:
        """`session` logged in with `token`."""
        self._tokens[session] = hash_token(token)

    def discard(self, session: Session) -> None:
        """`session` is gone (or dropped): no more checks for it."""
        self._tokens.pop(session, None)

    async def watch(self) -> None:
        """Check every `interval` (and purge expired guests), until cancelled."""
        loop = asyncio.get_running_loop()
        next_purge = loop.time() + self.purge_interval
        while True:
            await asyncio.sleep(self.interval)
            if self.storage.failure is not None:
                continue  # nothing to read now; the storage watch says when
            if loop.time() >= next_purge:
                next_purge = loop.time() + self.purge_interval
                with contextlib.suppress(StorageFailure):
                    await self.storage.purge_expired()
            await self.check()

    async def check(self) -> None:
        """One check. Only the sessions logged in before the query are judged: one that
        logs in meanwhile is not in its answer, and must not be taken for revoked."""
        if not self._tokens:
            return
        logged_in = dict(self._tokens)
        try:
            current = await self.storage.token_hashes({s.name for s in logged_in if s.name})
        except Exception:  # a busy database: try again next time
            log.warning("checking for revoked tokens failed", exc_info=True)
            return
        for session, token_hash in logged_in.items():
            if (session.name is not None and self._tokens.get(session) == token_hash
                    and current.get(session.name) != token_hash):
                log.info("dropping %s: its token was revoked", session.name)
                self.discard(session)
                self._drop(session)
