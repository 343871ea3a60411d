"""Elo, nElo, LOS and the generalised SPRT against values worked out by hand from the
published formulas (docs/tournaments.md), and against fastchess's published test values."""

from __future__ import annotations

import math

import pytest

from arena.tournament.stats import SPRT, elo_of_score, estimate, score_of_elo

Z = 1.959963984540054
C = 800 / math.log(10)


def test_elo_of_a_score_and_back():
    # E(s) = -400 log10(1/s - 1): s = 0.75 -> 1/s - 1 = 1/3 -> 400 log10(3) = 190.85
    assert elo_of_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_of_score(0.5) == 0
    assert elo_of_score(0.6) == pytest.approx(-400 * math.log10(2 / 3))  # 70.44
    assert elo_of_score(1.0) == math.inf and elo_of_score(0.0) == -math.inf
    assert score_of_elo(400 * math.log10(3)) == pytest.approx(0.75)


def test_pentanomial_estimate_by_hand():
    # Four pairs scoring ½, 1, 1½ and 2 points: per-game means 0.25, 0.5, 0.75, 1.
    e = estimate([0, 1, 1, 1, 1])
    assert e is not None and e.pentanomial and e.units == 4 and e.games == 8
    # s = (0.25 + 0.5 + 0.75 + 1) / 4 = 0.625
    assert e.score == pytest.approx(0.625)
    # σ² = (0.375² + 0.125² + 0.125² + 0.375²) / 4 = 0.078125; se = √(σ²/4) = 0.1397542
    se = math.sqrt(0.078125 / 4)
    assert se == pytest.approx(0.1397542, abs=1e-7)
    assert e.score_ci == pytest.approx((0.625 - Z * se, 0.625 + Z * se))
    # Elo 400 log10(0.625 / 0.375) = 88.74; bounds from the score bounds
    # 0.351087 (1/s - 1 = 1.848298, -400 log10 = -106.709) and
    # 0.898913 (1/s - 1 = 0.112454, -400 log10 = +379.610)
    assert e.elo == pytest.approx(88.7395, abs=1e-4)
    assert e.elo_ci == pytest.approx((-106.709, 379.610), abs=1e-3)
    # nElo = (s - ½) / √(2σ²) · 800/ln 10 = 0.125 / 0.3952847 · 347.4356 = 109.87
    assert e.nelo == pytest.approx(0.125 / math.sqrt(2 * 0.078125) * C)
    assert e.nelo == pytest.approx(109.87, abs=0.01)
    half = Z * se / math.sqrt(2 * 0.078125) * C
    assert e.nelo_ci == pytest.approx((e.nelo - half, e.nelo + half))
    # LOS = Φ(0.125 / 0.1397542) = Φ(0.894427) = 0.814453
    assert e.los == pytest.approx(0.814453, abs=1e-6)


def test_trinomial_estimate_by_hand():
    # 2 losses, 3 draws, 5 wins: s = (1.5 + 5) / 10 = 0.65
    e = estimate([2, 3, 5])
    assert e is not None and not e.pentanomial and e.games == 10
    assert e.score == pytest.approx(0.65)
    # σ² = (2·0.65² + 3·0.15² + 5·0.35²) / 10 = 0.1525
    variance = (2 * 0.65**2 + 3 * 0.15**2 + 5 * 0.35**2) / 10
    assert variance == pytest.approx(0.1525)
    assert e.nelo == pytest.approx(0.15 / math.sqrt(0.1525) * C)  # per game: no √2
    assert e.los == pytest.approx(0.5 * (1 + math.erf(0.15 / math.sqrt(0.1525 / 10) / math.sqrt(2))))


def test_degenerate_results():
    assert estimate([0, 0, 0, 0, 0]) is None
    every_pair_won = estimate([0, 0, 0, 0, 3])
    assert every_pair_won is not None
    assert every_pair_won.elo == math.inf and every_pair_won.los == 1.0
    assert every_pair_won.to_json()["elo"] is None  # JSON has no infinity
    even = estimate([0, 0, 4, 0, 0])
    assert even is not None and even.elo == 0 and even.los == 0.5 and even.nelo == 0
    with pytest.raises(ValueError, match="3 .* or 5"):
        estimate([1, 2])


@pytest.mark.parametrize("counts,nelo,nelo_error,elo,elo_error,los", [
    # fastchess app/tests/elo_test.cpp, "EloPentanomial 1" and "2" (LL, LD, WL+DD, WD, WW)
    ([34, 54, 31 + 32, 64, 75], 57.94, 28.28, 55.58, 27.65, 1.0000),
    ([332, 433, 457 + 41, 333, 334], -9.17, 10.96, -8.64, 10.33, 0.0505),
])
def test_against_fastchess_published_values(counts, nelo, nelo_error, elo, elo_error, los):
    e = estimate(counts)
    assert e is not None
    assert e.nelo == pytest.approx(nelo, abs=0.01)
    assert (e.nelo_ci[1] - e.nelo_ci[0]) / 2 == pytest.approx(nelo_error, abs=0.01)
    assert e.elo == pytest.approx(elo, abs=0.01)
    assert (e.elo_ci[1] - e.elo_ci[0]) / 2 == pytest.approx(elo_error, abs=0.01)
    assert e.los == pytest.approx(los, abs=1e-4)


def test_sprt_bounds():
    sprt = SPRT(0, 10, 0.05, 0.05)
    # ln(β / (1 - α)) and ln((1 - β) / α) = ∓ ln 19
    assert sprt.lower_bound == pytest.approx(-math.log(19))
    assert sprt.upper_bound == pytest.approx(math.log(19))
    assert sprt.decision(2.95) == "H1" and sprt.decision(-2.95) == "H0" and sprt.decision(0) is None
    assert SPRT(0, 5, 0.1, 0.2).lower_bound == pytest.approx(math.log(0.2 / 0.9))


def test_gsprt_llr_by_hand():
    """Trinomial [L, D, W] = [2, 3, 5], elo0 = 0 (s0 = ½), elo1 = 400 log10 3 (s1 = ¾).

    The maximum-likelihood distribution with mean s is p_i = p̂_i / (1 + x (a_i - s))
    where x solves Σ p̂_i (a_i - s) / (1 + x (a_i - s)) = 0 (Van den Bergh, Prop. 1.1):
    s0 = ½: -0.1 / (1 - x/2) + 0.25 / (1 + x/2) = 0 -> x = 6/7 -> p0 = (7/20, 3/10, 7/20);
    s1 = ¾: with u = x/4, 0.75 u² - 0.35 u - 0.1 = 0 -> u = -0.2 -> p1 = (1/8, 1/4, 5/8).
    LLR = N Σ p̂_i ln(p1_i / p0_i) = 10 (0.2 ln(5/14) + 0.3 ln(5/6) + 0.5 ln(25/14)).
    """
    expected = 10 * (0.2 * math.log(5 / 14) + 0.3 * math.log(5 / 6) + 0.5 * math.log(25 / 14))
    assert expected == pytest.approx(0.29289, abs=1e-5)
    assert SPRT(0, 400 * math.log10(3)).llr([2, 3, 5]) == pytest.approx(expected, abs=1e-9)


def test_gsprt_is_antisymmetric_and_zero_on_symmetric_results():
    sprt = SPRT(-5, 5)
    assert sprt.llr([3, 10, 24, 10, 3]) == pytest.approx(0, abs=1e-9)
    assert sprt.llr([0, 0, 0, 0, 0]) == 0
    a = SPRT(0, 10).llr([5, 20, 40, 30, 9])
    b = SPRT(-10, 0).llr([9, 30, 40, 20, 5])  # the same results from the other side
    assert a == pytest.approx(-b, rel=1e-9)


@pytest.mark.parametrize("sprt,counts,llr", [
    # fastchess app/tests/sprt_test.cpp (Stats(LL, LD, WL, DD, WD, LL) -> [LL, LD, WL+DD, WD, WW])
    (SPRT(0.5, 2.5), [223, 9863, 20279 + 1000, 10037, 246], -3.07),
    (SPRT(0, 2), [871, 26175, 55003 + 980, 26678, 821], -4.98),
    (SPRT(0, 2, model="normalized"), [365, 16618, 36029 + 200, 16974, 390], 2.25),
    (SPRT(-1.75, 0.25, model="normalized"), [127, 4883, 10311 + 401, 5150, 104], 3.01),
    # trinomial: Stats(wins, losses, draws) -> [L, D, W]
    (SPRT(0.5, 2.5), [21184, 40708, 21404], -1.57),
    (SPRT(0, 2, model="normalized"), [36027, 68692, 36433], 0.92),
])
def test_gsprt_against_fastchess_published_values(sprt, counts, llr):
    assert sprt.llr(counts) == pytest.approx(llr, abs=0.006)


def test_pentanomial_llr_matches_the_normal_approximation():
    """fishtest's LLR_alt2: LLR ≈ N (s1 - s0)(2s - s0 - s1) / (2σ²), close for small steps."""
    counts = [40, 300, 900, 350, 60]
    n = sum(counts)
    values = [i / 4 for i in range(5)]
    s = sum(c * v for c, v in zip(counts, values)) / n
    var = sum(c * (v - s) ** 2 for c, v in zip(counts, values)) / n
    s0, s1 = score_of_elo(0), score_of_elo(5)
    approx = n * (s1 - s0) * (2 * s - s0 - s1) / var / 2
    assert SPRT(0, 5).llr(counts) == pytest.approx(approx, rel=0.02)


def test_parse_and_bad_parameters():
    sprt = SPRT.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    assert sprt == SPRT(0, 10, 0.05, 0.05)
    assert SPRT.parse("elo1=5, model=normalized").model == "normalized"
    for text, message in [("elo0=10,elo1=0", "below"), ("alpha=2", "between"),
                          ("elo0=x", "not a number"), ("gamma=1", "expected"),
                          ("alpha=0.6,beta=0.5", "below 1"), ("model=bayes", "model")]:
        with pytest.raises(ValueError, match=message):
            SPRT.parse(text)
