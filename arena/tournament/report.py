"""Tournament tables in the thesis's layout (Markdown, CSV, JSON) and per-bot summaries.

A cell is ``first wins / second wins / draws`` of the pairing whose first player is the
row's bot and second player the column's. The summary gives each bot's mean score with
a 95% confidence interval (normal approximation) and its win rate with a 95% Wilson
interval, over its games against the other bots (self-play is left out).
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournament.runner import TournamentResult

__all__ = ["BotSummary", "markdown_table", "summarise", "to_json", "wilson", "write_reports"]

Z95 = 1.959963984540054


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

    @property
    def decided_win_rate(self) -> float:
        decided = self.wins + self.losses
        return self.wins / decided if decided else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games, "wins": self.wins, "losses": self.losses, "draws": self.draws,
            "mean_score": round(self.mean_score, 3),
            "mean_score_ci95": [round(v, 3) for v in self.score_ci],
            "win_rate": round(self.win_rate, 4),
            "win_rate_ci95": [round(v, 4) for v in self.win_ci],
            "decided_win_rate": round(self.decided_win_rate, 4),
        }


def summarise(result: TournamentResult) -> list[BotSummary]:
    bots = result.spec.bots
    summaries = []
    for b, name in enumerate(bots):
        games = wins = losses = draws = 0
        total = squares = 0
        for (first, second), cell in result.cells.items():
            if first == second or b not in (first, second):
                continue
            seat = 0 if first == b else 1
            games += cell.games
            mine = cell.first_wins if seat == 0 else cell.second_wins
            theirs = cell.second_wins if seat == 0 else cell.first_wins
            wins += mine
            losses += theirs
            draws += cell.draws
            total += cell.scores[seat]
            squares += cell.squares[seat]
        mean = total / games if games else 0.0
        variance = (squares / games - mean * mean) * games / (games - 1) if games > 1 else 0.0
        half = Z95 * math.sqrt(max(variance, 0.0) / games) if games else 0.0
        rate = wins / games if games else 0.0
        summaries.append(BotSummary(
            name, games, wins, losses, draws, mean, (mean - half, mean + half), rate,
            wilson(wins, games),
        ))
    return summaries


def _label(bots: tuple[str, ...], labels: dict[str, str] | None, index: int) -> str:
    return (labels or {}).get(bots[index], bots[index])


def markdown_table(result: TournamentResult, labels: dict[str, str] | None = None,
                   title: str | None = None) -> str:
    """The table (rows: first player, columns: second player) and the summary."""
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
    lines += ["", ("Cells: first player's wins / second player's wins / draws, "
              f"{spec.games} games per cell."), ""]
    lines.append("| bot | games | wins | losses | draws | win rate (95% CI) | "
                 "wins of decided | mean score (95% CI) |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for s in summarise(result):
        if s.games == 0:
            continue
        lines.append(
            f"| {(labels or {}).get(s.bot, s.bot)} | {s.games} | {s.wins} | {s.losses} | {s.draws} | "
            f"{s.win_rate:.3f} ({s.win_ci[0]:.3f}-{s.win_ci[1]:.3f}) | {s.decided_win_rate:.3f} | "
            f"{s.mean_score:.1f} ({s.score_ci[0]:.1f}-{s.score_ci[1]:.1f}) |"
        )
    return "\n".join(lines) + "\n"


def csv_table(result: TournamentResult) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["first", "second", "games", "first_wins", "second_wins", "draws",
                     "forfeits", "first_mean_score", "second_mean_score"])
    bots = result.spec.bots
    for (first, second), cell in sorted(result.cells.items()):
        n = cell.games or 1
        writer.writerow([bots[first], bots[second], cell.games, cell.first_wins, cell.second_wins,
                         cell.draws, cell.forfeits, f"{cell.scores[0] / n:.3f}",
                         f"{cell.scores[1] / n:.3f}"])
    return buffer.getvalue()


def to_json(result: TournamentResult) -> dict[str, Any]:
    """``{"bots", "games", "table": {FIRST: {SECOND: {...}}}}`` plus settings and summary."""
    spec = result.spec
    bots = spec.bots
    table: dict[str, dict[str, Any]] = {}
    for (first, second), cell in sorted(result.cells.items()):
        n = cell.games or 1
        table.setdefault(bots[first], {})[bots[second]] = {
            "first_wins": cell.first_wins,
            "second_wins": cell.second_wins,
            "draws": cell.draws,
            "forfeits": cell.forfeits,
            "first_mean_score": round(cell.scores[0] / n, 3),
            "second_mean_score": round(cell.scores[1] / n, 3),
        }
    return {
        "bots": list(bots),
        "games": spec.games,
        "table": table,
        "summary": {s.bot: s.to_json() for s in summarise(result)},
        "seed": spec.seed,
        "game": spec.game,
        "settings": spec.settings,
        "spec": spec.to_json(),
        "cells": {
            f"{f}-{s}": {"games": c.games, "first_wins": c.first_wins, "second_wins": c.second_wins,
                         "draws": c.draws, "forfeits": c.forfeits, "scores": c.scores,
                         "squares": c.squares}
            for (f, s), c in sorted(result.cells.items())
        },
    }


def from_json(data: dict[str, Any]) -> TournamentResult:
    """Rebuild a result from `to_json` output (for `arena tournament show`)."""
    from arena.tournament.runner import CellResult, TournamentSpec

    spec = TournamentSpec.from_json(data["spec"])
    cells = {}
    for key, c in data["cells"].items():
        f, s = (int(x) for x in key.split("-"))
        cells[(f, s)] = CellResult(c["first_wins"], c["second_wins"], c["draws"], c["forfeits"],
                                   list(c["scores"]), list(c["squares"]), c["games"])
    return TournamentResult(spec, cells)


def write_reports(result: TournamentResult, out: Path, stem: str = "tournament") -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text(markdown_table(result), encoding="utf-8")
    (out / f"{stem}.csv").write_text(csv_table(result), encoding="utf-8")
    (out / f"{stem}.json").write_text(json.dumps(to_json(result), indent=1) + "\n", encoding="utf-8")
