"""The thesis's conclusions (section 6, appendix A) as checks on a report's tables.

Each `Claim` states one conclusion the thesis draws from a table or figure 9 and a
precise test of it; `judge` runs every claim on the tables of one rule, and
`render_claims` sets the verdicts of both rules side by side, so the report says which
conclusions hold under the rules as written, which only under the thesis program's
rule, and which under neither. The tests are the thresholds written in each claim's
`test` text, nothing else: a reader can check a verdict against the tables by hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.tournament.report import BotSummary, summarise
from arena.tournament.results import TournamentResult

if TYPE_CHECKING:
    from arena.experiments.thesis import ThesisTables

__all__ = ["CLAIMS", "Claim", "Verdict", "judge", "render_claims"]


@dataclass(frozen=True)
class Verdict:
    """Whether a claim holds on one rule's tables (None: not measured), and the figures."""

    holds: bool | None
    evidence: str

    @property
    def word(self) -> str:
        return {True: "holds", False: "fails", None: "not measured"}[self.holds]


@dataclass(frozen=True)
class Claim:
    where: str
    """The table or figure the thesis draws it from."""
    thesis: str
    """What the thesis says (translated)."""
    test: str
    """How it is checked here."""
    check: Callable[[ThesisTables], Verdict]


def _rates(result: TournamentResult, labels: dict[str, str]) -> dict[str, BotSummary]:
    return {labels.get(s.bot, s.bot): s for s in summarise(result) if s.games}


def _h2h(tables: ThesisTables, table: str, a: str, b: str) -> tuple[int, int]:
    """(wins of `a`, wins of `b`) over both seatings; draws left out."""
    from arena.experiments.thesis_rules import head_to_head

    return head_to_head(tables.results[table], tables.labels, a, b)[:2]


def _best(rates: dict[str, BotSummary], among: Sequence[str] | None = None) -> str:
    names = among if among is not None else list(rates)
    return max(names, key=lambda name: rates[name].win_rate)


def _rate(rates: dict[str, BotSummary], name: str) -> str:
    return f"{name} {rates[name].win_rate:.3f}"


def _dominant(table: str, bot: str) -> Callable[[ThesisTables], Verdict]:
    def check(tables: ThesisTables) -> Verdict:
        rates = _rates(tables.results[table], tables.labels)
        best = _best(rates)
        losing = []
        for other in rates:
            if other != bot:
                mine, theirs = _h2h(tables, table, bot, other)
                if mine <= theirs:
                    losing.append(f"{other} {mine}-{theirs}")
        holds = best == bot and not losing
        text = f"best win rate: {_rate(rates, best)}"
        if best != bot:
            text += f" ({_rate(rates, bot)})"
        text += "; not beaten head to head by: " + (", ".join(losing) if losing else "none")
        return Verdict(holds, text)
    return check


def _better(table: str, a: str, b: str) -> Callable[[ThesisTables], Verdict]:
    def check(tables: ThesisTables) -> Verdict:
        rates = _rates(tables.results[table], tables.labels)
        return Verdict(rates[a].win_rate > rates[b].win_rate, f"{_rate(rates, a)}, {_rate(rates, b)}")
    return check


def _ps1_beats_the_rest(tables: ThesisTables) -> Verdict:
    rates = _rates(tables.results["table-6.1"], tables.labels)
    rest = [name for name in ("СС", "УСС", "УУСС", "ГСКС", "СКС") if name in rates]
    best_rest = _best(rates, rest)
    return Verdict(rates["ПС1"].win_rate > rates[best_rest].win_rate,
                   f"{_rate(rates, 'ПС1')}; best of the others: {_rate(rates, best_rest)}")


def _level(tables: ThesisTables) -> Verdict:
    rates = _rates(tables.results["table-6.1"], tables.labels)
    gap = rates["ААС10"].win_rate - rates["ПС4"].win_rate
    return Verdict(abs(gap) <= 0.05, f"{_rate(rates, 'ААС10')}, {_rate(rates, 'ПС4')} ({gap:+.3f})")


def _order(tables: ThesisTables) -> Verdict:
    result = tables.results["table-6.1"]
    first = sum(c.first_wins for (a, b), c in result.cells.items() if a != b)
    second = sum(c.second_wins for (a, b), c in result.cells.items() if a != b)
    share = first / (first + second) if first + second else 0.5
    return Verdict(0.45 <= share <= 0.55, f"first player wins {share:.3f} of the decided games "
                                          f"({first} of {first + second})")


def _trap(tables: ThesisTables) -> Verdict:
    return Verdict(tables.ssw_wins == 0, f"{tables.ssw_wins} wins in {tables.ssw_games} games")


def _short_words_loses_to_random(tables: ThesisTables) -> Verdict:
    mine, theirs = _h2h(tables, "table-6.3", "СКС", "СС")
    return Verdict(mine < theirs, f"СКС against СС: {mine}-{theirs}")


def _ssw_upper_half(tables: ThesisTables) -> Verdict:
    rates = _rates(tables.results["table-6.3"], tables.labels)
    ranking = sorted(rates, key=lambda name: -rates[name].win_rate)
    place = ranking.index("ГСКС") + 1
    return Verdict(place <= len(ranking) // 2,
                   f"ГСКС is {place} of {len(ranking)} ({rates['ГСКС'].win_rate:.3f})")


def _search_lead_shrinks(tables: ThesisTables) -> Verdict:
    medium = _rates(tables.results["table-6.1"], tables.labels)
    low = _rates(tables.results["table-6.3"], tables.labels)

    def lead(rates: dict[str, BotSummary]) -> float:
        others = [rates[name].win_rate for name in rates if name != "ПС4"]
        return rates["ПС4"].win_rate - max(others)

    return Verdict(lead(low) < lead(medium),
                   f"ПС4's lead over the next best: {lead(medium):+.3f} on the medium grammar, "
                   f"{lead(low):+.3f} on the low one")


def _share(tables: ThesisTables, omega: int, finish: str = "search") -> float | None:
    if omega not in tables.omegas:
        return None
    return tables.sweep[finish][tables.omegas.index(omega)]


def _rises_to_10(tables: ThesisTables) -> Verdict:
    one, ten = _share(tables, 1), _share(tables, 10)
    if one is None or ten is None:
        return Verdict(None, "Ω = 1 or 10 not in the sweep")
    return Verdict(ten > one, f"Ω=1: {one:.3f}, Ω=10: {ten:.3f}")


def _optimum_near_10(tables: ThesisTables) -> Verdict:
    ten = _share(tables, 10)
    if ten is None:
        return Verdict(None, "Ω = 10 not in the sweep")
    shares = tables.sweep["search"]
    best = max(range(len(shares)), key=lambda i: shares[i])
    games = 2 * tables.omega_games
    margin = 2 * math.sqrt(2 * 0.25 / games)
    return Verdict(shares[best] - ten <= margin,
                   f"best Ω={tables.omegas[best]} ({shares[best]:.3f}), Ω=10 {ten:.3f}; "
                   f"allowed gap {margin:.3f} (two standard errors of a difference, "
                   f"{games} games a point)")


def _falls_after_20(tables: ThesisTables) -> Verdict:
    twenty = _share(tables, 20)
    later = [s for o, s in zip(tables.omegas, tables.sweep["search"]) if o > 20]
    if twenty is None or not later:
        return Verdict(None, "no Ω above 20 in the sweep (--omegas)")
    mean = sum(later) / len(later)
    return Verdict(mean < twenty, f"Ω=20: {twenty:.3f}; mean over Ω > 20: {mean:.3f} "
                                  f"({len(later)} values up to {max(tables.omegas)})")


def _search_finish_better(tables: ThesisTables) -> Verdict:
    search, short = (sum(tables.sweep[f]) / len(tables.sweep[f]) for f in ("search", "short-words"))
    return Verdict(search > short, f"mean share: search {search:.3f}, short-words {short:.3f}")


PURE = ("ПС4", "ААС10", "УУСС", "СКС")


def _mixing_does_not_help(tables: ThesisTables) -> Verdict:
    parts = []
    holds = True
    for table in ("table-A.1", "table-A.2"):
        rates = _rates(tables.results[table], tables.labels)
        pure = _best(rates, [n for n in PURE if n in rates])
        mixed = _best(rates, [n for n in rates if n not in PURE])
        holds = holds and rates[mixed].win_rate <= rates[pure].win_rate
        parts.append(f"{table[6:]}: best pure {_rate(rates, pure)}, best mixed {_rate(rates, mixed)}")
    return Verdict(holds, "; ".join(parts))


def _no_mixture_beats_search(tables: ThesisTables) -> Verdict:
    rates = _rates(tables.results["table-A.1"], tables.labels)
    mixed = _best(rates, [n for n in rates if n not in PURE])
    return Verdict(rates[mixed].win_rate <= rates["ПС4"].win_rate,
                   f"{_rate(rates, 'ПС4')}, best mixed {_rate(rates, mixed)}")


def _adaptive_mixtures_best(tables: ThesisTables) -> Verdict:
    rates = _rates(tables.results["table-A.2"], tables.labels)
    mixed = _best(rates, [n for n in rates if n.startswith("СмС")])
    return Verdict(mixed in ("СмС 1 1 1 10", "СмС 1 1 1 5"), f"best СмС: {_rate(rates, mixed)}")


CLAIMS: tuple[Claim, ...] = (
    Claim("6.1", "ПС4 is a strictly dominant strategy (medium grammar)",
          "ПС4 has the best win rate and beats every other bot head to head",
          _dominant("table-6.1", "ПС4")),
    Claim("6.1", "ПС1 already beats all the others (but the search and adaptive strategies)",
          "ПС1's win rate is above СС, УСС, УУСС, ГСКС and СКС", _ps1_beats_the_rest),
    Claim("6.1", "stupid short words does better than short words",
          "ГСКС's win rate is above СКС's", _better("table-6.1", "ГСКС", "СКС")),
    Claim("4.7, 6.1", "better smart random improves on smart random",
          "УУСС's win rate is above УСС's", _better("table-6.1", "УУСС", "УСС")),
    Claim("6.1", "adaptive random is on the level of ПС4 on the medium grammar",
          "their win rates differ by at most 0.05", _level),
    Claim("6.1", "the order of moves hardly matters",
          "the first player wins 45-55% of the decided games between different bots", _order),
    Claim("6.2", "stupid short words never wins on the trap grammar",
          "ГСКС wins none of its games", _trap),
    Claim("6.3", "adaptive random is the clear favourite, nearly strictly dominant (low grammar)",
          "ААС10 has the best win rate and beats every other bot head to head",
          _dominant("table-6.3", "ААС10")),
    Claim("6.3", "short words loses more than it wins even against random",
          "СКС wins fewer games than СС head to head", _short_words_loses_to_random),
    Claim("6.3", "stupid short words again does rather well",
          "ГСКС is in the upper half of the table by win rate", _ssw_upper_half),
    Claim("6.3", "the search strategy's lead shrinks on the low grammar",
          "ПС4's win rate minus the next best one is smaller in 6.3 than in 6.1",
          _search_lead_shrinks),
    Claim("fig. 9", "the share of wins against ПС4 grows up to Ω = 10",
          "search finishing: the share at Ω=10 is above the share at Ω=1", _rises_to_10),
    Claim("fig. 9", "Ω = 10 is the optimal value",
          "search finishing: no Ω beats Ω=10 by more than two standard errors", _optimum_near_10),
    Claim("fig. 9", "above Ω = 20 the share falls",
          "search finishing: the mean share over Ω > 20 is below the share at Ω=20",
          _falls_after_20),
    Claim("fig. 9", "finishing with search is better than finishing with short words",
          "the mean share over the Ω range is higher with search finishing", _search_finish_better),
    Claim("A.1", "the mixed strategies lose to ПС4 or play it level (medium grammar)",
          "no mixed strategy has a higher win rate than ПС4", _no_mixture_beats_search),
    Claim("A.2", "every strategy loses to adaptive random (low grammar)",
          "ААС10 beats every other bot head to head in A.2 (best win rate too)",
          _dominant("table-A.2", "ААС10")),
    Claim("A.2", "the mixtures with the most adaptive points do best (СмС 1 1 1 10, 1 1 1 5)",
          "the best СмС by win rate is 1 1 1 10 or 1 1 1 5", _adaptive_mixtures_best),
    Claim("A.1, A.2", "probabilistic mixing does not help",
          "in both tables no mixed strategy has a higher win rate than the best pure one",
          _mixing_does_not_help),
)


def judge(tables: ThesisTables) -> list[Verdict]:
    """Every claim's verdict on one rule's tables."""
    return [claim.check(tables) for claim in CLAIMS]


def render_claims(strict: ThesisTables, program: ThesisTables) -> list[str]:
    """The thesis's conclusions under both rules, and which of them depend on the rule."""
    left, right = judge(strict), judge(program)
    lines = [
        "| | the thesis says | checked as | strict rules | the program's rule | depends on the rule |",
        "|---|---|---|---|---|---|",
    ]
    depends: list[int] = []
    both: list[int] = []
    neither: list[int] = []
    unmeasured: list[int] = []
    for number, (claim, s, p) in enumerate(zip(CLAIMS, left, right), 1):
        if s.holds is None or p.holds is None:
            flag = "—"
            unmeasured.append(number)
        elif s.holds != p.holds:
            flag = "**yes**"
            depends.append(number)
        else:
            flag = "no"
            (both if s.holds else neither).append(number)
        lines.append(f"| {number} ({claim.where}) | {claim.thesis} | {claim.test} | "
                     f"**{s.word}**: {s.evidence} | **{p.word}**: {p.evidence} | {flag} |")

    def listed(numbers: list[int]) -> str:
        return ", ".join(map(str, numbers)) if numbers else "none"

    program_only = [n for n in depends if right[n - 1].holds]
    strict_only = [n for n in depends if left[n - 1].holds]
    lines += [
        "",
        (f"Hold under both rules: {listed(both)}. Hold only under the program's rule: "
         f"{listed(program_only)}. Hold only under the strict rules: {listed(strict_only)}. "
         f"Hold under neither: {listed(neither)}. Not measured: {listed(unmeasured)}."),
    ]
    return lines
