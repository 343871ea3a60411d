"""Match statistics: Elo and normalised Elo with 95% intervals, LOS, and the GSPRT.

Results are counted in *units*: a single game scored 0, ½ or 1 (the trinomial counts
``[losses, draws, wins]``), or a pair of games on the same dice with seats swapped,
scored 0, ½, 1, 1½ or 2 (the pentanomial counts ``[LL, LD, LW+DD, DW, WW]``). A unit
with ``k + 1`` possible results takes the values ``i / k`` (the mean score per game of
the unit). With ``N`` units, ``n_i`` of result ``i``:

* mean score ``s = Σ n_i x_i / N``, unit variance ``σ² = Σ n_i (x_i − s)² / N``,
  standard error ``se = √(σ² / N)``; the 95% interval of ``s`` is ``s ± 1.96 se``;
* Elo ``E(s) = −400 log₁₀(1/s − 1)``, its interval ``[E(s − 1.96 se), E(s + 1.96 se)]``;
* normalised Elo ``nElo = (s − ½) / σ_game · 800 / ln 10`` where ``σ_game = σ`` for
  single games and ``√2 σ`` for pairs (the per-game deviation the pair variance implies);
* LOS (likelihood of superiority) ``Φ((s − ½) / se)``.

These are fastchess's `EloWDL` / `EloPentanomial` and fishtest's `stat_util.get_elo`.
The SPRT is the generalised SPRT of fishtest's `LLRcalc` (M. Van den Bergh, "Comparing
the approximations for the generalized log likelihood ratio of a multinomial
distribution" and "Comments on normalized Elo"): see `SPRT`. docs/tournaments.md
writes every formula out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NELO_PER_T",
    "SPRT",
    "Z95",
    "EloEstimate",
    "elo_of_score",
    "estimate",
    "score_of_elo",
]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""
NELO_PER_T = 800 / math.log(10)
"""Normalised Elo per unit of t-value (≈ 347.44)."""
REGULARIZE = 1e-3
"""What an empty count becomes in the SPRT's likelihoods (as fishtest and fastchess)."""


def elo_of_score(score: float) -> float:
    """The logistic Elo difference of an expected score (±inf at 1 and 0)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def score_of_elo(elo: float) -> float:
    """The expected score of an Elo difference: ``1 / (1 + 10^(−elo/400))``."""
    return 1 / (1 + 10 ** (-elo / 400))


def _normal_cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def _finite(value: float, digits: int) -> float | None:
    """A JSON-safe number: infinities (an unbounded Elo) become None."""
    return round(value, digits) if math.isfinite(value) else None


@dataclass(frozen=True)
class EloEstimate:
    """What a set of results says about the first side's strength against the second.

    `units` are games (trinomial) or game pairs (pentanomial); `games` counts games.
    Elo bounds are infinite when the score interval reaches 0 or 1 (every unit won
    or lost). JSON has no infinity: an infinite value is written as ``null``, on the
    side of its score (``score`` for Elo and nElo, ``score_ci`` for the bounds).
    """

    units: int
    games: int
    pentanomial: bool
    score: float
    score_ci: tuple[float, float]
    elo: float
    elo_ci: tuple[float, float]
    nelo: float
    nelo_ci: tuple[float, float]
    los: float

    def to_json(self) -> dict[str, Any]:
        return {
            "model": "pentanomial" if self.pentanomial else "trinomial",
            "units": self.units,
            "games": self.games,
            "score": round(self.score, 5),
            "score_ci": [round(v, 5) for v in self.score_ci],
            "elo": _finite(self.elo, 2),
            "elo_ci": [_finite(v, 2) for v in self.elo_ci],
            "nelo": _finite(self.nelo, 2),
            "nelo_ci": [_finite(v, 2) for v in self.nelo_ci],
            "los": round(self.los, 5),
        }

    def elo_text(self) -> str:
        """``+55.6 [+28.3, +83.9]`` (a Markdown table cell)."""
        return f"{_signed(self.elo)} [{_signed(self.elo_ci[0])}, {_signed(self.elo_ci[1])}]"

    def nelo_text(self) -> str:
        """``+57.9 ± 28.3``."""
        if not math.isfinite(self.nelo):
            return _signed(self.nelo)
        return f"{_signed(self.nelo)} ± {(self.nelo_ci[1] - self.nelo_ci[0]) / 2:.1f}"


def _signed(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def estimate(counts: Sequence[int]) -> EloEstimate | None:
    """Elo, nElo, their 95% intervals and LOS from trinomial or pentanomial counts.

    ``counts`` is ``[L, D, W]`` or ``[LL, LD, LW+DD, DW, WW]`` from the first side's
    point of view; None when there are no results.
    """
    size = len(counts)
    if size not in (3, 5):
        raise ValueError(f"expected 3 (trinomial) or 5 (pentanomial) counts, got {size}")
    units = sum(counts)
    if units == 0:
        return None
    step = size - 1
    values = [i / step for i in range(size)]
    score = sum(n * x for n, x in zip(counts, values, strict=True)) / units
    variance = sum(n * (x - score) ** 2 for n, x in zip(counts, values, strict=True)) / units
    games_per_unit = step // 2
    se = math.sqrt(variance / units)
    low, high = score - Z95 * se, score + Z95 * se
    sigma_game = math.sqrt(games_per_unit * variance)
    if sigma_game > 0:
        nelo = (score - 0.5) / sigma_game * NELO_PER_T
        half = Z95 * se / sigma_game * NELO_PER_T
    else:  # every unit had the same result: no spread to normalise by
        nelo = 0.0 if score == 0.5 else math.copysign(math.inf, score - 0.5)
        half = 0.0
    if se > 0:
        los = _normal_cdf((score - 0.5) / se)
    else:
        los = 0.5 if score == 0.5 else float(score > 0.5)
    return EloEstimate(
        units=units,
        games=units * games_per_unit,
        pentanomial=size == 5,
        score=score,
        score_ci=(low, high),
        elo=elo_of_score(score),
        elo_ci=(elo_of_score(low), elo_of_score(high)),
        nelo=nelo,
        nelo_ci=(nelo - half, nelo + half),
        los=los,
    )


# -- the generalised SPRT ------------------------------------------------------------


def _solve_secular(terms: Sequence[tuple[float, float]]) -> float:
    """The root ``x`` of ``Σ p_i a_i / (1 + x a_i) = 0`` with every ``1 + x a_i > 0``.

    The function falls strictly on that interval (its derivative is ``−Σ p_i a_i² /
    (1 + x a_i)²``), so bisection finds the one root; the ``a_i`` must straddle 0.
    """
    low_a = min(a for a, _ in terms)
    high_a = max(a for a, _ in terms)
    if not low_a < 0 < high_a:
        raise ValueError("the secular equation needs values on both sides of zero")
    lo, hi = -1 / high_a, -1 / low_a
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        value = sum(p * a / (1 + mid * a) for a, p in terms)
        if value > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _mle_expected(values: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution on `values` closest (in likelihood) to `probs` with mean `s`.

    Van den Bergh, Proposition 1.1: ``p_i = p̂_i / (1 + x (a_i − s))`` where ``x``
    solves the secular equation of the ``a_i − s``.
    """
    x = _solve_secular([(a - s, p) for a, p in zip(values, probs, strict=True)])
    return [p / (1 + x * (a - s)) for a, p in zip(values, probs, strict=True)]


def _mean_var(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mean = sum(a * p for a, p in zip(values, probs, strict=True))
    return mean, sum(p * (a - mean) ** 2 for a, p in zip(values, probs, strict=True))


def _mle_t_value(values: Sequence[float], probs: Sequence[float], t: float) -> list[float]:
    """The distribution closest to `probs` with ``(mean − ½) / σ = t`` (Van den Bergh,
    "Comments on normalized Elo", section 4.1): a fixed-point iteration from uniform."""
    mle = [1 / len(values)] * len(values)
    for _ in range(20):
        mean, var = _mean_var(values, mle)
        sigma = math.sqrt(var)
        phi = [a - 0.5 - t * sigma * (1 + ((mean - a) / sigma) ** 2) / 2 for a in values]
        x = _solve_secular(list(zip(phi, probs, strict=True)))
        new = [p / (1 + x * f) for p, f in zip(probs, phi, strict=True)]
        change = max(abs(a - b) for a, b in zip(new, mle, strict=True))
        mle = new
        if change < 1e-10:
            break
    return mle


@dataclass(frozen=True)
class SPRT:
    """Wald's sequential test of H0 ``elo = elo0`` against H1 ``elo = elo1``, generalised.

    The log-likelihood ratio of the counts is ``N Σ p̂_i ln(p1_i / p0_i)`` where ``p̂``
    is the observed distribution (an empty count taken as 0.001) and ``p0``, ``p1``
    the maximum-likelihood distributions whose expected score is ``score_of_elo(elo0)``
    and ``score_of_elo(elo1)`` (model ``logistic``), or whose t-value is ``nelo /
    (800 / ln 10)`` per game (model ``normalized``; ×√2 per pair). The test accepts
    H1 once the LLR reaches ``ln((1 − β) / α)`` and H0 once it falls to
    ``ln(β / (1 − α))``.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 1:
                raise ValueError(f"{name} must be between 0 and 1, not {value:g}")
        if self.alpha + self.beta >= 1:
            raise ValueError("alpha + beta must be below 1")
        if self.model not in ("logistic", "normalized"):
            raise ValueError(f"model must be logistic or normalized, not {self.model!r}")

    @classmethod
    def parse(cls, text: str) -> SPRT:
        """``elo0=0,elo1=10,alpha=0.05,beta=0.05[,model=normalized]`` (any order)."""
        values: dict[str, Any] = {}
        for item in text.split(","):
            key, eq, value = item.strip().partition("=")
            if not eq or key not in ("elo0", "elo1", "alpha", "beta", "model"):
                raise ValueError(
                    f"cannot read {item.strip()!r}: expected elo0=, elo1=, alpha=, beta= or model="
                )
            if key == "model":
                values[key] = value
                continue
            try:
                values[key] = float(value)
            except ValueError:
                raise ValueError(f"{key}={value!r} is not a number") from None
        return cls(**values)

    @property
    def lower_bound(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper_bound(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        """The generalised log-likelihood ratio of trinomial or pentanomial counts."""
        size = len(counts)
        if size not in (3, 5):
            raise ValueError(f"expected 3 or 5 counts, got {size}")
        if sum(counts) == 0:
            return 0.0
        regular = [n if n > 0 else REGULARIZE for n in counts]
        total = sum(regular)
        probs = [n / total for n in regular]
        values = [i / (size - 1) for i in range(size)]
        if self.model == "logistic":
            p0 = _mle_expected(values, probs, score_of_elo(self.elo0))
            p1 = _mle_expected(values, probs, score_of_elo(self.elo1))
        else:
            scale = math.sqrt(2) if size == 5 else 1.0
            p0 = _mle_t_value(values, probs, scale * self.elo0 / NELO_PER_T)
            p1 = _mle_t_value(values, probs, scale * self.elo1 / NELO_PER_T)
        return total * sum(
            p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True)
        )

    def decision(self, llr: float) -> str | None:
        """``"H1"``, ``"H0"`` or None (keep playing)."""
        if llr >= self.upper_bound:
            return "H1"
        if llr <= self.lower_bound:
            return "H0"
        return None

    def to_json(self) -> dict[str, Any]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": self.model}
