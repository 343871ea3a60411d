"""Tournament reports: the thesis's table, Elo per pairing and per bot, Swiss standings.

A cell of the table is ``first wins / second wins / draws`` of the games whose first
player is the row's bot and second player the column's. Per pairing and per bot:
Elo and normalised Elo with 95% intervals and LOS from the pentanomial counts of the
game pairs (`arena.tournament.stats`); per bot also the win rate (95% Wilson interval)
and the mean score (95% normal interval) over its games against the others (self-play
left out; forfeited games have no score, `arena.tournament.results`).

Files (`write_reports`): ``tournament.md``, ``tournament.json``, ``tournament.csv``
(one row per seat order), ``pairings.csv`` and ``bots.csv``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournament.results import CellResult, SwissRound, TournamentResult
from arena.tournament.spec import Pairing, TournamentSpec
from arena.tournament.stats import Z95, EloEstimate, estimate

__all__ = [
    "BotSummary",
    "PairingSummary",
    "csv_table",
    "from_json",
    "markdown_table",
    "pairing_summaries",
    "summarise",
    "to_json",
    "wilson",
    "write_reports",
]


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class PairingSummary:
    """Two bots' results against each other, from the first (`low`) bot's side."""

    pairing: Pairing
    pentanomial: tuple[int, ...]
    estimate: EloEstimate | None

    def to_json(self, bots: tuple[str, ...]) -> dict[str, Any]:
        data: dict[str, Any] = {"bots": [bots[self.pairing.low], bots[self.pairing.high]],
                                "pentanomial": list(self.pentanomial)}
        if self.estimate is not None:
            data.update(self.estimate.to_json())
        return data


@dataclass(frozen=True)
class BotSummary:
    bot: str
    games: int
    wins: int
    losses: int
    draws: int
    mean_score: float
    score_ci: tuple[float, float]
    win_rate: float
    win_ci: tuple[float, float]
    points: float = 0.0
    """Game points against the others: a win 1, a draw ½."""
    pentanomial: tuple[int, ...] = (0, 0, 0, 0, 0)
    estimate: EloEstimate | None = None
    """Elo against the bots it met (all its game pairs together)."""

    @property
    def decided_win_rate(self) -> float:
        decided = self.wins + self.losses
        return self.wins / decided if decided else 0.0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "games": self.games, "wins": self.wins, "losses": self.losses, "draws": self.draws,
            "points": self.points,
            "mean_score": round(self.mean_score, 3),
            "mean_score_ci95": [round(v, 3) for v in self.score_ci],
            "win_rate": round(self.win_rate, 4),
            "win_rate_ci95": [round(v, 4) for v in self.win_ci],
            "decided_win_rate": round(self.decided_win_rate, 4),
            "pentanomial": list(self.pentanomial),
        }
        if self.estimate is not None:
            elo = self.estimate.to_json()
            data.update({k: elo[k] for k in ("score", "score_ci", "elo", "elo_ci", "nelo",
                                             "nelo_ci", "los")})
        return data


def pairing_summaries(result: TournamentResult) -> list[PairingSummary]:
    return [PairingSummary(pairing, tuple(counts), estimate(counts))
            for pairing, counts in sorted(result.pentanomial.items())]


def summarise(result: TournamentResult) -> list[BotSummary]:
    bots = result.spec.bots
    summaries = []
    for b, name in enumerate(bots):
        games = wins = losses = draws = scored = 0
        total = squares = 0.0
        for (first, second), cell in result.cells.items():
            if first == second or b not in (first, second):
                continue
            seat = 0 if first == b else 1
            games += cell.games
            wins += cell.first_wins if seat == 0 else cell.second_wins
            losses += cell.second_wins if seat == 0 else cell.first_wins
            draws += cell.draws
            scored += cell.scored
            total += cell.scores[seat]
            squares += cell.squares[seat]
        mean = total / scored if scored else 0.0
        variance = (squares / scored - mean * mean) * scored / (scored - 1) if scored > 1 else 0.0
        half = Z95 * math.sqrt(max(variance, 0.0) / scored) if scored else 0.0
        pentanomial = result.pentanomial_of(b)
        summaries.append(BotSummary(
            name, games, wins, losses, draws, mean, (mean - half, mean + half),
            wins / games if games else 0.0, wilson(wins, games), result.points(b),
            tuple(pentanomial), estimate(pentanomial),
        ))
    return summaries


def _label(bots: tuple[str, ...], labels: dict[str, str] | None, index: int) -> str:
    return (labels or {}).get(bots[index], bots[index])


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def markdown_table(result: TournamentResult, labels: dict[str, str] | None = None,
                   title: str | None = None) -> str:
    """The table (rows: first player, columns: second player), Elo per pairing and per
    bot, and the Swiss standings."""
    spec = result.spec
    bots = spec.bots
    rows = sorted({f for f, _ in result.cells})
    cols = sorted({s for _, s in result.cells})
    lines = []
    if title:
        lines += [f"### {title}", ""]
    lines.append("| first \\ second | " + " | ".join(_label(bots, labels, c) for c in cols) + " |")
    lines.append("|---|" + "---|" * len(cols))
    for r in rows:
        cells = []
        for c in cols:
            cell = result.cells.get((r, c))
            cells.append("" if cell is None else f"{cell.first_wins}/{cell.second_wins}/{cell.draws}")
        lines.append(f"| **{_label(bots, labels, r)}** | " + " | ".join(cells) + " |")
    per = "per round " if spec.format == "swiss" else ""
    lines += ["", ("Cells: first player's wins / second player's wins / draws; "
              f"{spec.games} pairs of dice per pairing {per}(each in both seat orders)."), ""]
    lines.append("| bot | games | wins | losses | draws | win rate (95% CI) | "
                 "wins of decided | mean score (95% CI) | Elo (95% CI) | nElo | LOS |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in summarise(result):
        if s.games == 0:
            continue
        e = s.estimate
        elo = (e.elo_text(), e.nelo_text(), _percent(e.los)) if e else ("", "", "")
        lines.append(
            f"| {(labels or {}).get(s.bot, s.bot)} | {s.games} | {s.wins} | {s.losses} | {s.draws} | "
            f"{s.win_rate:.3f} ({s.win_ci[0]:.3f}-{s.win_ci[1]:.3f}) | {s.decided_win_rate:.3f} | "
            f"{s.mean_score:.1f} ({s.score_ci[0]:.1f}-{s.score_ci[1]:.1f}) | " + " | ".join(elo) + " |"
        )
    pairings = [p for p in pairing_summaries(result) if p.estimate is not None]
    if pairings:
        lines += ["", ("| pairing | pairs | pentanomial (0, ½, 1, 1½, 2) | score | "
                       "Elo (95% CI) | nElo | LOS |"), "|---|---|---|---|---|---|---|"]
        for p in pairings:
            e = p.estimate
            assert e is not None
            name = f"{_label(bots, labels, p.pairing.low)} vs {_label(bots, labels, p.pairing.high)}"
            lines.append(
                f"| {name} | {e.units} | {', '.join(map(str, p.pentanomial))} | {e.score:.3f} | "
                f"{e.elo_text()} | {e.nelo_text()} | {_percent(e.los)} |"
            )
        lines += ["", ("Pairings from the first-named bot's side: a pair is the two games on "
                       "one dice seed with seats swapped, scored 0 to 2; intervals from the "
                       "pair variance.")]
    if spec.format == "swiss":
        from arena.tournament.formats import swiss_standings

        lines += ["", "| rank | bot | points | byes |", "|---|---|---|---|"]
        byes = [r.bye for r in result.rounds]
        for rank, (bot, points) in enumerate(swiss_standings(result), 1):
            lines.append(f"| {rank} | {_label(bots, labels, bot)} | {points:g} | "
                         f"{byes.count(bot)} |")
        lines += ["", f"Swiss, {spec.rounds} rounds: " + "; ".join(
            f"round {r.number}: " + ", ".join(
                f"{_label(bots, labels, p.low)}-{_label(bots, labels, p.high)}"
                for p in r.pairings) + (f" (bye {_label(bots, labels, r.bye)})"
                                        if r.bye is not None else "")
            for r in result.rounds)]
    return "\n".join(lines) + "\n"


def _csv(rows: list[list[Any]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def csv_table(result: TournamentResult) -> str:
    """One row per seat order of every pairing."""
    bots = result.spec.bots
    rows: list[list[Any]] = [["first", "second", "games", "first_wins", "second_wins", "draws",
                              "forfeits", "first_mean_score", "second_mean_score"]]
    for (first, second), cell in sorted(result.cells.items()):
        a, b = cell.mean_scores()
        rows.append([bots[first], bots[second], cell.games, cell.first_wins, cell.second_wins,
                     cell.draws, cell.forfeits, f"{a:.3f}", f"{b:.3f}"])
    return _csv(rows)


_STAT_COLUMNS = ["pairs", "ptnml_0", "ptnml_half", "ptnml_1", "ptnml_1half", "ptnml_2", "score",
                 "elo", "elo_low", "elo_high", "nelo", "nelo_low", "nelo_high", "los"]


def _stat_cells(counts: tuple[int, ...], e: EloEstimate | None) -> list[Any]:
    if e is None:
        return [0, *counts] + [""] * 8
    return [e.units, *counts, f"{e.score:.5f}", *(f"{v:.2f}" for v in (e.elo, *e.elo_ci)),
            *(f"{v:.2f}" for v in (e.nelo, *e.nelo_ci)), f"{e.los:.5f}"]


def pairings_csv(result: TournamentResult) -> str:
    """One row per pairing of two bots, from the first bot's side."""
    bots = result.spec.bots
    rows: list[list[Any]] = [["bot", "opponent", *_STAT_COLUMNS]]
    for p in pairing_summaries(result):
        rows.append([bots[p.pairing.low], bots[p.pairing.high],
                     *_stat_cells(p.pentanomial, p.estimate)])
    return _csv(rows)


def bots_csv(result: TournamentResult) -> str:
    """One row per bot: results and Elo against the bots it met."""
    rows: list[list[Any]] = [["bot", "games", "wins", "losses", "draws", "points", *_STAT_COLUMNS]]
    for s in summarise(result):
        rows.append([s.bot, s.games, s.wins, s.losses, s.draws, s.points,
                     *_stat_cells(s.pentanomial, s.estimate)])
    return _csv(rows)


def to_json(result: TournamentResult) -> dict[str, Any]:
    """``{"bots", "games", "table": {FIRST: {SECOND: {...}}}, "summary": {BOT: {...}},
    "pairings": [...], ...}`` (docs/tournaments.md lists every field)."""
    spec = result.spec
    bots = spec.bots
    table: dict[str, dict[str, Any]] = {}
    for (first, second), cell in sorted(result.cells.items()):
        a, b = cell.mean_scores()
        table.setdefault(bots[first], {})[bots[second]] = {
            "first_wins": cell.first_wins,
            "second_wins": cell.second_wins,
            "draws": cell.draws,
            "forfeits": cell.forfeits,
            "first_mean_score": round(a, 3),
            "second_mean_score": round(b, 3),
        }
    data: dict[str, Any] = {
        "bots": list(bots),
        "games": spec.games,
        "format": spec.format,
        "table": table,
        "summary": {s.bot: s.to_json() for s in summarise(result)},
        "pairings": [p.to_json(bots) for p in pairing_summaries(result)],
        "seed": spec.seed,
        "game": spec.game,
        "settings": spec.settings,
        "spec": spec.to_json(),
        "cells": {f"{f}-{s}": c.to_json() for (f, s), c in sorted(result.cells.items())},
        "pentanomial": {f"{p.low}-{p.high}": list(c) for p, c in sorted(result.pentanomial.items())},
    }
    if spec.format == "swiss":
        from arena.tournament.formats import swiss_standings

        data["rounds"] = [r.to_json() for r in result.rounds]
        data["standings"] = [{"bot": bots[b], "points": p} for b, p in swiss_standings(result)]
    return data


def from_json(data: dict[str, Any]) -> TournamentResult:
    """Rebuild a result from `to_json` output (for `arena tournament show`, experiments)."""
    spec = TournamentSpec.from_json(data["spec"])
    result = TournamentResult(spec)
    for key, c in data["cells"].items():
        f, s = (int(x) for x in key.split("-"))
        result.cells[(f, s)] = CellResult.from_json(c)
    for key, counts in data.get("pentanomial", {}).items():
        low, high = (int(x) for x in key.split("-"))
        result.pentanomial[Pairing(low, high)] = list(counts)
    result.rounds = [SwissRound.from_json(r) for r in data.get("rounds", [])]
    return result


def write_reports(result: TournamentResult, out: Path, stem: str = "tournament") -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text(markdown_table(result), encoding="utf-8")
    (out / f"{stem}.csv").write_text(csv_table(result), encoding="utf-8")
    (out / "pairings.csv").write_text(pairings_csv(result), encoding="utf-8")
    (out / "bots.csv").write_text(bots_csv(result), encoding="utf-8")
    (out / f"{stem}.json").write_text(json.dumps(to_json(result), indent=1) + "\n",
                                      encoding="utf-8")
