"""Limits on a game's settings: how big a game a server agrees to referee.

A game's settings decide how much its states, its logs and its house bots' searches
may cost: a grammar whose rule is ``S->SSS...S``, two heaps with the target 50,000, a
deal of 40 cards for the perfect Durak player. A game plugin declares, as data, the
sizes of its settings that matter and their limits (`GameType.limits`, one
`SettingLimit` each) and measures its settings by them (`Game.sizes`); the server
checks every game against them before the game starts (`check_settings`), with
stricter limits for guests (the web interface's visitors) than for bots with
accounts. In-process play (tournaments, `arena play`) has no such limits: only the
game's own validation applies.

    >>> from arena.registry import default_registry
    >>> game = default_registry().load_game("sim", {"vertices": 6})
    >>> check_settings(game, "guest")   # within the limits: nothing happens
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from arena.errors import SettingsError

if TYPE_CHECKING:
    from arena.game import Game

__all__ = ["TIERS", "SettingLimit", "SettingsLimitExceeded", "Tier", "check_settings"]

Tier = Literal["standard", "guest"]
"""Who asked for the game: a bot with an account, an operator or the ladder
(``standard``), or a guest of the web interface (``guest``)."""

TIERS: tuple[Tier, ...] = ("standard", "guest")


@dataclass(frozen=True)
class SettingLimit:
    """The largest value a size of a game's settings (`Game.sizes`) may take.

    Attributes:
        name: the size, as `Game.sizes` names it (``"moves"``).
        doc: what it measures, for people (the docs list it).
        standard: the limit for games of bots with accounts (and the ladder).
        guest: the limit for games of guests; never above `standard`.
    """

    name: str
    doc: str
    standard: int
    guest: int

    def __post_init__(self) -> None:
        if not 0 < self.guest <= self.standard:
            raise ValueError(f"limit {self.name!r}: need 0 < guest <= standard")

    def limit(self, tier: Tier) -> int:
        return self.guest if tier == "guest" else self.standard


class SettingsLimitExceeded(SettingsError):
    """A game's settings are beyond what the server referees (for this tier)."""


def check_settings(
    game: Game[Any, Any],
    tier: Tier,
    overrides: Mapping[str, int] | None = None,
) -> None:
    """Raise `SettingsLimitExceeded` if `game` is beyond its type's limits for `tier`.

    Args:
        game: the rules bound to the settings to check.
        tier: whose game it is.
        overrides: limits the server's operator changed, as ``{"GAME.SIZE": value}``
            (the server keeps one mapping per tier).
    """
    kind = game.type
    sizes = game.sizes()
    for limit in kind.limits:
        value = sizes.get(limit.name)
        if value is None:
            raise SettingsError(f"{kind.name}: the game does not measure its {limit.name!r}")
        allowed = limit.limit(tier)
        if overrides is not None:
            allowed = overrides.get(f"{kind.name}.{limit.name}", allowed)
        if value > allowed:
            whose = "guests" if tier == "guest" else "this server"
            raise SettingsLimitExceeded(
                f"{kind.name}: {limit.name} {value} is above the limit for {whose} ({allowed}): "
                f"{limit.doc}", code="above-guest-limit" if tier == "guest" else "above-limit",
                params={"game": kind.name, "title": kind.title, "size": limit.name,
                        "doc": limit.doc, "value": value, "limit": allowed})
