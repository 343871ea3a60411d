"""Challenges: a bot (or a person on the web) asks a named bot for a pairing.

A challenge names the opponent, whether the games are rated, and the ladder whose
game, settings and time control they use. The challenged bot's accept policy
(`AcceptPolicy`, set in ``hello.accept`` or by a ``policy`` message) answers it at
once (``auto``, ``decline``, or a challenger rated outside its range), or the bot is
sent a ``challenge`` notice to ``accept`` or ``decline`` (``ask``: only bots that
listed the ``challenges`` capability; for the others ``ask`` declines, so a
protocol-1 bot never gets games it did not opt in to). On acceptance the pairing's
two games start with the seats swapped, each with its own secret dice, as the ladder's.

Every challenge is budgeted (`ChallengeLimits`, announced in ``welcome.limits`` to bots
that opted in): challenges a bot sends in any hour, unanswered ones it has sent and
has been sent at once, and how long one waits for its answer. A rated challenge also
counts against the ladder's pair cap (`LadderConfig.pairings_per_hour`), exactly as a
ladder pairing does, so a challenge is no way around it.

The states of a challenge::

    pending --> accepted            (its games start)
            --> declined            (by the bot, or its policy)
            --> expired             (no answer within the timeout)
            --> cancelled           (the challenger or the opponent left)
            --> failed              (accepted, but the games could not start)

`Challenges` does no I/O of its own but the rating look-up (an awaited storage read,
in a task): it is given the time, sends through its `Notify` callback, and starts
games through `StartPair`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from arena.config import ChallengeLimits
from arena.errors import ArenaError
from arena.names import is_house
from arena.service import ChallengeError, StorageUnavailable
from arena.storage import PendingChallenge, StorageFailure

__all__ = ["AcceptPolicy", "Challenge", "ChallengeError", "ChallengeLimits", "Challenges"]

log = logging.getLogger("arena.server")

Mode = Literal["ask", "auto", "decline"]
Status = Literal["pending", "accepted", "declined", "expired", "cancelled", "failed"]
HOUR = 3600.0
ID_SHAPE = re.compile(r"c[0-9a-f]{12}")
"""The ids `Challenges.challenge` makes: only such an id is looked up in the database."""
KEPT = 1000
"""Challenges that ended kept for the web to read their outcome."""


@dataclass(frozen=True)
class AcceptPolicy:
    """How a bot answers challenges: a challenger rated outside ``[min_rating,
    max_rating]`` (bounds optional; an unrated challenger counts as rated 0) is
    declined, the others as `mode` says.

    >>> AcceptPolicy.from_json({"mode": "auto", "min_rating": 10})
    AcceptPolicy(mode='auto', min_rating=10.0, max_rating=None)
    >>> AcceptPolicy("auto", 10.0).verdict(3.5)
    'decline: the challenger is rated 3.5, below 10'
    """

    mode: Mode = "ask"
    min_rating: float | None = None
    max_rating: float | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AcceptPolicy:
        """Read ``hello.accept`` or ``policy.accept``.

        Raises:
            ValueError: an unknown mode or key, a bound that is not a number.
        """
        unknown = sorted(set(data) - {"mode", "min_rating", "max_rating"})
        if unknown:
            raise ValueError(f"unknown keys {unknown} (keys: mode, min_rating, max_rating)")
        mode = data.get("mode")
        if mode not in ("ask", "auto", "decline"):
            raise ValueError(f"mode must be 'ask', 'auto' or 'decline', not {mode!r}")
        bounds: list[float | None] = []
        for key in ("min_rating", "max_rating"):
            value = data.get(key)
            if value is not None and (type(value) not in (int, float) or not math.isfinite(value)):
                raise ValueError(f"{key} must be a number or null, not {value!r}")
            bounds.append(None if value is None else float(value))
        return cls(mode, bounds[0], bounds[1])

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "min_rating": self.min_rating, "max_rating": self.max_rating}

    def verdict(self, rating: float | None) -> str:
        """``accept``, ``ask`` or ``decline: WHY`` for a challenger rated `rating`."""
        shown = 0.0 if rating is None else rating
        if self.min_rating is not None and shown < self.min_rating:
            return f"decline: the challenger is rated {shown:g}, below {self.min_rating:g}"
        if self.max_rating is not None and shown > self.max_rating:
            return f"decline: the challenger is rated {shown:g}, above {self.max_rating:g}"
        if self.mode == "decline":
            return "decline: the bot declines challenges"
        return "accept" if self.mode == "auto" else "ask"


@dataclass(eq=False)
class Challenge:
    """One challenge and where it stands."""

    id: str
    challenger: str
    opponent: str
    rated: bool
    expires: float
    """Event-loop time at which an unanswered challenge expires."""
    request_id: str | None = None
    games: int = 2
    """Games on acceptance: 2 (the pairing, seats swapped), or 1 for a person on the
    web, who plays `seat`."""
    seat: int = 0
    ladder: str = ""
    """The name of the ladder whose game, settings, time control and ratings it uses."""
    status: Status = "pending"
    reason: str | None = None
    error_code: str | None = None
    """A failed challenge's refusal as a code (a `ChallengeError`'s, with its reason in
    `error_params`, or another `ArenaError`'s): a page says it in its language."""
    error_params: dict[str, str | int] = field(default_factory=dict)
    game_ids: tuple[str, ...] = ()
    asked: bool = False
    """Whether the opponent was sent the notice (then it hears of the end too)."""
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    def status_fields(self) -> dict[str, Any]:
        """The ``challenge_status`` message's fields."""
        fields: dict[str, Any] = {"challenge_id": self.id, "status": self.status,
                                  "challenger": self.challenger, "opponent": self.opponent,
                                  "rated": self.rated}
        if self.request_id is not None:
            fields["request_id"] = self.request_id
        if self.reason is not None:
            fields["reason"] = self.reason
        if self.error_code is not None:
            fields["error_code"] = self.error_code
            fields["error_params"] = dict(self.error_params)
        if self.status == "accepted":
            fields["game_ids"] = list(self.game_ids)
        return fields


def _coded(challenge: Challenge, error: Exception) -> ArenaError:
    """The refusal that failed an accepted `challenge`, with a code a page says: the
    error's own (a game's settings reason names the ``game`` whose words say it), or
    ``storage-unavailable`` or ``start-failed`` for one without (logged: its English
    words are the server's, no person's)."""
    if isinstance(error, ArenaError) and error.code:
        return error
    if isinstance(error, StorageFailure | StorageUnavailable):
        return ChallengeError("storage-unavailable", str(error))
    log.warning("challenge %s: its games could not start: %s", challenge.id, error)
    return ChallengeError("start-failed", str(error))


Notify = Callable[[str, str, dict[str, Any]], None]
"""``notify(account, type, fields)``: send a message to a connected account that opted
in to challenges (dropped otherwise: a person on the web reads them over HTTP)."""
StartPair = Callable[[Challenge], list[str]]
"""Start an accepted challenge's games; their ids (raises `ArenaError`,
`RuntimeError` when they cannot start)."""
class Journal(Protocol):
    """What a cluster's leading host stores of its challenges, for the next leader to
    take over (`Challenges.restore`)."""

    def changed(self, challenge: Challenge) -> None:
        """A challenge opened, its opponent was asked, or it ended (its
        `Challenge.status` says which)."""

    def charged(self, name: str, at: float) -> None:
        """`name` sent a challenge at `at` (`time.time`): its hourly budget."""


class Challenges:
    """The open challenges of a server (see the module docstring).

    Args:
        limits: the budgets.
        notify: sends a message to an account (`Notify`).
        start: starts an accepted challenge's games (`StartPair`).
        rating: ``rating(challenger, ladder)``: the challenger's rating on the ladder
            named `ladder` (None: unrated).
        check: ``check(challenger, opponent, rated, ladder)`` raises `ChallengeError`
            when `challenger` may not challenge `opponent` on that ladder now (not
            connected, a guest asking for rated games, the pair cap...).
        capable: whether a connected account listed the ``challenges`` capability.
    """

    def __init__(self, limits: ChallengeLimits, *, notify: Notify, start: StartPair,
                 rating: Callable[[str, str], Awaitable[float | None]],
                 check: Callable[[str, str, bool, str], None],
                 capable: Callable[[str], bool]) -> None:
        self.limits = limits
        self.open: dict[str, Challenge] = {}
        """The pending challenges by id."""
        self.policies: dict[str, AcceptPolicy] = {}
        """The policies of connected bots."""
        self._notify = notify
        self._start = start
        self._rating = rating
        self._check = check
        self._capable = capable
        self._sent: dict[str, deque[float]] = {}
        """Per account, the times (`time.time`) of its challenges of the last hour."""
        self._next_sweep = 0.0
        self._ended: dict[str, Challenge] = {}
        """The last `KEPT` challenges that ended, oldest first (``GET /api/challenges/ID``)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop = asyncio.get_running_loop()
        self.journal: Journal | None = None
        """Told of every change of a pending challenge (None: nothing is kept)."""

    # -- a bot's settings ----------------------------------------------------------------

    def connected(self, name: str, policy: AcceptPolicy | None) -> None:
        """A bot logged in with ``hello.accept`` (or none: ``ask``, which declines for a
        bot without the ``challenges`` capability)."""
        self.policies[name] = policy or AcceptPolicy()

    def left(self, name: str) -> None:
        """A bot disconnected: its pending challenges, sent or received, are cancelled."""
        self.policies.pop(name, None)
        for challenge in list(self.open.values()):
            if name in (challenge.challenger, challenge.opponent):
                self._end(challenge, "cancelled", f"{name} disconnected")

    # -- challenging -----------------------------------------------------------------------

    def challenge(self, challenger: str, opponent: str, *, rated: bool, ladder: str,
                  request_id: str | None = None, games: int = 2, seat: int = 0) -> Challenge:
        """Open a challenge on the ladder named `ladder`; the policy of `opponent` answers it soon (a task reads the
        challenger's rating first).

        Raises:
            ChallengeError: over a budget, or a challenge the server refuses.
        """
        self._charge(challenger)
        if challenger == opponent:
            raise ChallengeError("bad-challenge", "a bot cannot challenge itself", reason="self")
        if is_house(opponent):
            raise ChallengeError("bad-challenge", f"{opponent!r}: house bots take no challenges",
                                 reason="house-bot", bot=opponent)
        self._check(challenger, opponent, rated, ladder)
        limit = self.limits.pending
        if sum(c.challenger == challenger for c in self.open.values()) >= limit:
            raise ChallengeError("challenge-limit", f"{challenger} has {limit} challenges "
                                 "waiting for an answer already (at most "
                                 f"{limit}): wait for one to end", reason="waiting", limit=limit)
        if sum(c.opponent == opponent for c in self.open.values()) >= limit:
            raise ChallengeError("challenge-limit", f"{opponent} has {limit} challenges to "
                                 "answer already: try again later", reason="to-answer", bot=opponent,
                                 limit=limit)
        challenge = Challenge("c" + uuid.uuid4().hex[:12], challenger, opponent, rated,
                              self._loop.time() + self.limits.timeout, request_id, games, seat,
                              ladder)
        self._open(challenge)
        self._notify(challenger, "challenge_status", challenge.status_fields())
        self._answer_soon(challenge)
        return challenge

    def _open(self, challenge: Challenge) -> None:
        self.open[challenge.id] = challenge
        challenge.timer = self._loop.call_at(challenge.expires, self._expire, challenge)
        if self.journal is not None:
            self.journal.changed(challenge)

    def _answer_soon(self, challenge: Challenge) -> None:
        task = self._loop.create_task(self._answer(challenge), name=f"challenge {challenge.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def stored(self, challenge: Challenge) -> PendingChallenge:
        """`challenge` (pending) as `journal` stores it: its expiry in wall time."""
        return PendingChallenge(
            challenge.id, challenge.challenger, challenge.opponent, challenge.rated,
            challenge.ladder, time.time() + (challenge.expires - self._loop.time()),
            challenge.games, challenge.seat, challenge.request_id, challenge.asked)

    def restore(self, stored: Iterable[PendingChallenge],
                sent: Iterable[tuple[str, float]] = ()) -> int:
        """Take over the pending challenges another keeper stored (it died): each waits
        for its answer until it expires, as it would have there, and one whose opponent
        was not asked yet is answered by the opponent's policy now. Those known already
        are left alone. `sent`: the challenges each account sent (account, when,
        `time.time`, the oldest first) as stored, which count against its hourly budget
        here (where this keeper counted more of an account's itself, its own count
        stays). How many were taken over."""
        stored_sent: dict[str, deque[float]] = {}
        for name, at in sent:
            stored_sent.setdefault(name, deque()).append(at)
        for name, times in stored_sent.items():
            if len(times) > len(self._sent.get(name, ())):
                self._sent[name] = times
        taken = 0
        now, wall = self._loop.time(), time.time()
        for row in stored:
            ended = self._ended.get(row.id)
            if ended is not None and self.journal is not None:
                self.journal.changed(ended)  # ended here, its end not stored: stored now
            if row.id in self.open or ended is not None:
                continue
            challenge = Challenge(row.id, row.challenger, row.opponent, row.rated,
                                  now + max(0.0, row.expires - wall), row.request_id,
                                  row.games, row.seat, row.ladder, asked=row.asked)
            self.open[challenge.id] = challenge
            challenge.timer = self._loop.call_at(challenge.expires, self._expire, challenge)
            if not challenge.asked:
                self._answer_soon(challenge)
            taken += 1
        return taken

    def _charge(self, name: str) -> None:
        """Count a challenge against `name`'s hourly budget, or refuse it."""
        now = time.time()
        if now >= self._next_sweep:  # forget the accounts quiet for an hour (guests)
            self._next_sweep = now + 60.0
            for quiet in [n for n, times in self._sent.items() if not times or times[-1] <= now - HOUR]:
                del self._sent[quiet]
        sent = self._sent.setdefault(name, deque())
        while sent and sent[0] <= now - HOUR:
            sent.popleft()
        if len(sent) >= self.limits.per_hour:
            wait = int(sent[0] + HOUR - now) + 1 if sent else 0
            raise ChallengeError("challenge-limit", (
                f"{name} has sent {len(sent)} challenges in the last hour, the most "
                f"limits.challenges_per_hour allows ({self.limits.per_hour})"
                + (f"; the next may go in {wait} s" if sent else "")),
                reason="per-hour", limit=self.limits.per_hour)
        sent.append(now)
        if self.journal is not None:
            self.journal.charged(name, now)

    async def _answer(self, challenge: Challenge) -> None:
        """The opponent's policy answers, knowing the challenger's rating."""
        try:
            rating = await self._rating(challenge.challenger, challenge.ladder)
        except StorageFailure as error:  # unknown: counted as unrated
            log.warning("challenge %s: no rating for %s: %s", challenge.id,
                        challenge.challenger, error)
            rating = None
        if challenge.status != "pending":
            return
        policy = self.policies.get(challenge.opponent, AcceptPolicy("decline"))
        verdict = policy.verdict(rating)
        if verdict == "ask" and not self._capable(challenge.opponent):
            verdict = "decline: the bot takes no challenges"
        if verdict == "accept":
            self._accepted(challenge)
        elif verdict == "ask":
            challenge.asked = True
            if self.journal is not None:
                self.journal.changed(challenge)
            self._notify(challenge.opponent, "challenge", {
                "opponent": challenge.challenger, "rated": challenge.rated,
                "challenge_id": challenge.id, "rating": rating,
                "expires_ms": max(0, int((challenge.expires - self._loop.time()) * 1000))})
        else:
            self._end(challenge, "declined", verdict.removeprefix("decline: "))

    # -- answers ---------------------------------------------------------------------------

    def answer(self, name: str, challenge_id: str, *, accept: bool,
               reason: str | None = None) -> Challenge:
        """`name` accepts or declines the challenge `challenge_id` it was sent.

        Raises:
            ChallengeError: ``unknown-challenge``: no such pending challenge to `name`.
        """
        challenge = self.open.get(challenge_id)
        if challenge is None or challenge.opponent != name or not challenge.asked:
            raise ChallengeError("unknown-challenge", f"no challenge {challenge_id!r} waits "
                                 f"for {name}'s answer (it may have expired)")
        if accept:
            self._accepted(challenge)
        else:
            self._end(challenge, "declined", reason or f"{name} declined")
        return challenge

    def _accepted(self, challenge: Challenge) -> None:
        try:
            self._check(challenge.challenger, challenge.opponent, challenge.rated,
                        challenge.ladder)
            challenge.game_ids = tuple(self._start(challenge))
        except (ArenaError, RuntimeError, ValueError) as error:
            refusal = _coded(challenge, error)
            challenge.error_code, challenge.error_params = refusal.code, dict(refusal.params)
            self._end(challenge, "failed", str(error))
            return
        self._end(challenge, "accepted", None)

    def _expire(self, challenge: Challenge) -> None:
        challenge.timer = None
        if challenge.status == "pending":
            self._end(challenge, "expired",
                      f"no answer within {self.limits.timeout:g} s")

    def _end(self, challenge: Challenge, status: Status, reason: str | None) -> None:
        """Close a pending challenge and tell both sides (the opponent if it was asked,
        or if games start)."""
        if challenge.status != "pending":
            return
        challenge.status = status
        challenge.reason = reason
        self.open.pop(challenge.id, None)
        if challenge.timer is not None:
            challenge.timer.cancel()
            challenge.timer = None
        if self.journal is not None:
            self.journal.changed(challenge)
        self._told(challenge)

    def _told(self, challenge: Challenge) -> None:
        """An ended challenge: kept for the web to read, its end told to the challenger
        (and to the opponent if it was asked, or if games start)."""
        self._ended[challenge.id] = challenge
        while len(self._ended) > KEPT:
            del self._ended[next(iter(self._ended))]
        fields = challenge.status_fields()
        self._notify(challenge.challenger, "challenge_status", fields)
        if challenge.asked or challenge.status == "accepted":
            self._notify(challenge.opponent, "challenge_status", fields)

    async def give_up(self, reason: str,
                      written: Callable[[Challenge], Awaitable[bool]]) -> int:
        """Stop keeping the pending challenges (a cluster's host stops leading,
        docs/cluster.md): each ends as ``cancelled``, its bots told, once
        ``written(challenge)`` stored its end as this keeper's; one whose end it could not
        store (the database does not answer, or the next keeper took it over already) is
        forgotten here untold, for the next keeper to take over or keep. Nothing is
        journaled. How many were cancelled."""
        held = list(self.open.values())
        self.open.clear()
        for challenge in held:  # no timer, answer or policy acts on them any more
            if challenge.timer is not None:
                challenge.timer.cancel()
                challenge.timer = None
            challenge.status, challenge.reason = "cancelled", reason
        cancelled = 0
        for challenge in held:
            if await written(challenge):
                self._told(challenge)
                cancelled += 1
        return cancelled

    def close(self) -> None:
        """The server stops: the rating look-ups end, the timers stop."""
        for task in self._tasks:
            task.cancel()
        for challenge in self.open.values():
            if challenge.timer is not None:
                challenge.timer.cancel()


    def get(self, challenge_id: str) -> Challenge | None:
        """A challenge, pending or ended recently (the last `KEPT` are kept)."""
        return self.open.get(challenge_id) or self._ended.get(challenge_id)
