"""Challenges and seeking in the SDK: the notices a bot answers, and the answers it awaits.

An `ArenaClient` made with ``challenges=True`` lists the ``challenges`` capability;
the server then sends it ``challenge`` notices, which it hands to
`ArenaBot.challenged` (a `ChallengeNotice`; the hook answers True, False or None:
no answer yet, `ArenaClient.accept`/`decline` later). `ArenaClient.challenge` sends a
challenge and returns its last ``challenge_status`` (accepted, declined, expired...);
`seek` and `pause` move the bot in or out of the ladder's pairing. `Waiters` matches
the server's answers to what the client awaits.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from protocol import Message, RemoteError

__all__ = ["ChallengeNotice", "ChallengeRefused", "Waiters"]


@dataclass(frozen=True)
class ChallengeNotice:
    """A challenge to the bot (a ``challenge`` message from the server)."""

    challenge_id: str
    challenger: str
    rated: bool
    rating: float | None
    """The challenger's rating on the ladder (None: not rated yet)."""
    expires_ms: int | None

    @classmethod
    def from_message(cls, message: Message) -> ChallengeNotice:
        return cls(message.get("challenge_id", ""), message["opponent"], message["rated"],
                   message.get("rating"), message.get("expires_ms"))


class ChallengeRefused(RemoteError):
    """The server refused a challenge, a ``seek``/``pause`` or a policy: its ``error``
    (``code``: ``challenge-limit``, ``bad-challenge``, ``unknown-ladder``...)."""


class Waiters:
    """Futures waiting for the server's answers, by key: ``("challenge", request_id)``
    for a challenge's end (or its refusal), ``("seeking",)``, ``("policy",)``."""

    def __init__(self) -> None:
        self._waiting: dict[tuple[str, ...], asyncio.Future[Message]] = {}

    def wait(self, key: tuple[str, ...]) -> asyncio.Future[Message]:
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[key] = future
        return future

    def forget(self, key: tuple[str, ...]) -> None:
        self._waiting.pop(key, None)

    def resolve(self, message: Message) -> bool:
        """Hand `message` to whoever waits for it; True if somebody did."""
        key = _key(message)
        if key is None:
            return False
        future = self._waiting.get(key)
        if future is None:
            return False
        if message.type == "challenge_status" and message["status"] == "pending":
            return True  # the end is what the challenger waits for
        del self._waiting[key]
        if not future.done():
            if message.type == "error":
                future.set_exception(ChallengeRefused(message["code"], message["message"]))
            else:
                future.set_result(message)
        return True


def _key(message: Message) -> tuple[str, ...] | None:
    kind = message.type
    if kind in ("challenge_status", "error") and "request_id" in message.body:
        return ("challenge", message["request_id"])
    if kind in ("seeking", "policy"):
        return (kind,)
    if kind == "error" and message["code"] in ("unknown-ladder", "bad-policy"):
        return ("seeking",) if message["code"] == "unknown-ladder" else ("policy",)
    return None


def policy_json(mode: str, min_rating: float | None, max_rating: float | None) -> dict[str, Any]:
    """``hello.accept`` / ``policy.accept``."""
    return {"mode": mode, "min_rating": min_rating, "max_rating": max_rating}
