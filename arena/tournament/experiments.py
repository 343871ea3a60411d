"""The thesis's section 6 and appendix A, re-run: tables 6.1, 6.2, 6.3, A.1, A.2, figure 9.

Two reports: the primary one on the grammars the thesis's program shipped (``classic``
for "medium chance of S", ``low-s`` for "low chance of S"), and a second one on the
grammars its text describes (``medium``, ``low``). The trap grammar of table 6.2 is the
report's medium grammar with a useless ``T`` added to both S groups.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games.substitution import Grammar, ProductionGroup, Settings, preset
from arena.tournament.executors import Executor, make_executor
from arena.tournament.report import markdown_table, summarise, to_json
from arena.tournament.runner import TournamentResult, TournamentSpec, run_tournament

__all__ = ["REPORTS", "THESIS_BOTS", "run_thesis"]

THESIS_BOTS: tuple[tuple[str, str], ...] = (
    ("random", "СС"),
    ("smart-random", "УСС"),
    ("better-smart-random", "УУСС"),
    ("stupid-short-words", "ГСКС"),
    ("short-words", "СКС"),
    ("search:depth=1", "ПС1"),
    ("search:depth=4", "ПС4"),
    ("adaptive-random:omega=10", "ААС10"),
)

MIXED_POINTS: tuple[tuple[int, int, int, int], ...] = (
    (1, 1, 1, 1), (2, 1, 3, 4), (1, 0, 2, 3), (2, 1, 4, 3), (1, 0, 3, 2),
    (1, 1, 1, 5), (1, 1, 5, 1), (1, 1, 1, 10), (1, 1, 10, 1),
)

REPORTS = {
    "primary": ("classic", "low-s"),
    "second": ("medium", "low"),
}

OMEGAS = tuple(range(1, 21))


def trap_of(grammar: Grammar) -> Grammar:
    """The grammar with a useless ``T`` alternative added to every S group (table 6.2)."""
    groups = tuple(
        ProductionGroup(g.left, g.alternatives + ("T",)) if g.left == "S" and "T" not in g.alternatives
        else g
        for g in grammar.groups
    )
    return Grammar(groups, grammar.weights)


@dataclass
class Runner:
    out: Path
    games: int
    seed: int
    moves: int
    processes: int | None
    logs: bool
    progress: Callable[[str], Any]
    times: dict[str, float] = field(default_factory=dict)
    executor: Executor | None = None
    """Where the games run (local processes or a Ray cluster), shared by every table."""

    def run(self, name: str, grammar: Grammar, bots: tuple[str, ...],
            pairs: tuple[tuple[int, int], ...] | None = None, games: int | None = None
            ) -> TournamentResult:
        spec = TournamentSpec("substitution", Settings(grammar, self.moves).to_json(), bots,
                              games or self.games, self.seed, pairs)
        directory = self.out / name
        cached = directory / "tournament.json"
        if cached.is_file():
            data = json.loads(cached.read_text(encoding="utf-8"))
            if data.get("spec") == spec.to_json():
                from arena.tournament.report import from_json

                return from_json(data)
        started = time.perf_counter()
        with self.progress(name) as update:
            result = run_tournament(spec, out=directory if self.logs else None,
                                    processes=self.processes, progress=update, resume=True,
                                    executor=self.executor)
        self.times[name] = time.perf_counter() - started
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "wall-time.txt").write_text(f"{self.times[name]:.1f}\n", encoding="utf-8")
        if not self.logs:
            from arena.tournament.report import write_reports

            write_reports(result, directory)
        return result


def _wins(result: TournamentResult, bot: int) -> int:
    total = 0
    for (first, second), cell in result.cells.items():
        if first == bot:
            total += cell.first_wins
        if second == bot:
            total += cell.second_wins
    return total


def run_thesis(out: Path, *, games: int = 500, seed: int = 0, moves: int = 200,
               reports: tuple[str, ...] = ("primary", "second"), processes: int | None = None,
               logs: bool = True, progress: Callable[[str], Any] | None = None,
               omega_games: int | None = None, appendix_games: int | None = None,
               cluster: str | None = None) -> Path:
    """Run the experiments; write ``report.md``, figures and tables under `out`.

    The tables are tournaments (`run_tournament`), played on local processes or on the
    Ray cluster at `cluster`; an interrupted run resumes each table where it stopped.
    """
    from contextlib import nullcontext

    def quiet(name: str) -> Any:
        return nullcontext(lambda done, total: None)

    out.mkdir(parents=True, exist_ok=True)
    sections = []
    started = time.time()
    with make_executor(processes, cluster) as executor:
        for report in reports:
            medium_name, low_name = REPORTS[report]
            runner = Runner(out / report, games, seed, moves, processes, logs, progress or quiet,
                            executor=executor)
            sections.append(_report(runner, report, medium_name, low_name, omega_games or games,
                                    appendix_games or games))
    elapsed = time.time() - started
    header = [
        "# The thesis's experiments, re-run",
        "",
        (f"{games} games per cell in tables 6.1-6.3, {appendix_games or games} in tables "
        f"A.1-A.2, {omega_games or games} per seat and point in figure 9; "
        f"{moves} turns per player, seed {seed}; both seats of every pairing meet the same "
        f"dice. Wall time {elapsed / 60:.1f} min. Generated by `arena experiment thesis`."),
        "",
        ("Abbreviations as in the thesis: СС random, УСС smart-random, УУСС "
        "better-smart-random, ГСКС stupid-short-words, СКС short-words, ПС1/ПС4 "
        "search:depth=1/4, ААС10 adaptive-random:omega=10, СмС a b c d mixed with points "
        "(better-smart-random, short-words, search, adaptive), ПП1/ПП2 mixed with points "
        "from the wins in tables 6.1/6.3."),
        "",
    ]
    path = out / "report.md"
    path.write_text("\n".join(header + sections), encoding="utf-8")
    return path


def _report(runner: Runner, report: str, medium_name: str, low_name: str, omega_games: int,
            appendix_games: int) -> str:
    medium, low = preset(medium_name), preset(low_name)
    bots = tuple(spec for spec, _ in THESIS_BOTS)
    labels = dict(THESIS_BOTS)
    lines = [(f"## {report.capitalize()} report: `{medium_name}` (medium chance of S) and "
             f"`{low_name}` (low chance of S)"), ""]

    t61 = runner.run("table-6.1", medium, bots)
    lines += [markdown_table(t61, labels, f"Table 6.1 — round robin on `{medium_name}`"), ""]

    ssw = bots.index("stupid-short-words")
    pairs = tuple(sorted({(ssw, j) for j in range(len(bots))} | {(j, ssw) for j in range(len(bots))}))
    t62 = runner.run("table-6.2", trap_of(medium), bots, pairs)
    lines += [markdown_table(t62, labels, f"Table 6.2 — the trap grammar (`{medium_name}` with "
                             "S->...|T in both S groups): stupid-short-words against each bot"), ""]
    ssw_wins = _wins(t62, ssw)
    lines += [(f"stupid-short-words wins {ssw_wins} of its "
              f"{sum(c.games for c in t62.cells.values())} games on the trap grammar."), ""]

    t63 = runner.run("table-6.3", low, bots)
    lines += [markdown_table(t63, labels, f"Table 6.3 — round robin on `{low_name}`"), ""]

    # Appendix A: mixed strategies, with "percent of wins" points from our own tables.
    def wins_points(result: TournamentResult) -> tuple[int, ...]:
        return tuple(_wins(result, bots.index(b)) for b in
                     ("better-smart-random", "short-words", "search:depth=4",
                      "adaptive-random:omega=10"))

    # (with no wins at all, e.g. in a tiny smoke run, the points fall back to equal)
    pp1, pp2 = (p if sum(p) else (1, 1, 1, 1) for p in (wins_points(t61), wins_points(t63)))
    mixed = [f"mixed:points={','.join(map(str, pp1))}", f"mixed:points={','.join(map(str, pp2))}"]
    mixed += [f"mixed:points={','.join(map(str, p))}" for p in MIXED_POINTS]
    mixed_bots = tuple(mixed) + ("search:depth=4", "adaptive-random:omega=10",
                                 "better-smart-random", "short-words")
    mixed_labels = {mixed[0]: "ПП1", mixed[1]: "ПП2", "search:depth=4": "ПС4",
                    "adaptive-random:omega=10": "ААС10", "better-smart-random": "УУСС",
                    "short-words": "СКС"}
    for spec, points in zip(mixed[2:], MIXED_POINTS):
        mixed_labels[spec] = "СмС " + " ".join(map(str, points))
    lines += [(f"ПП1 = {pp1}, ПП2 = {pp2} (wins of УУСС, СКС, ПС4, ААС10 in tables 6.1 and 6.3; "
              "the thesis had (1581, 1177, 2706, 2263) and (1890, 844, 2194, 2746))."), ""]
    a1 = runner.run("table-A.1", medium, mixed_bots, games=appendix_games)
    lines += [markdown_table(a1, mixed_labels, f"Table A.1 — mixed strategies on `{medium_name}`"), ""]
    a2 = runner.run("table-A.2", low, mixed_bots, games=appendix_games)
    lines += [markdown_table(a2, mixed_labels, f"Table A.2 — mixed strategies on `{low_name}`"), ""]

    # Figure 9: omega sweep against search:depth=4 on the low grammar.
    sweep: dict[str, list[float]] = {}
    rows = ["| omega | " + " | ".join(f"{o}" for o in OMEGAS) + " |",
            "|---|" + "---|" * len(OMEGAS)]
    for finish in ("search", "short-words"):
        specs = tuple(f"adaptive-random:omega={o},finish={finish}" for o in OMEGAS)
        all_bots = specs + ("search:depth=4",)
        opponent = len(specs)
        pairs = tuple(p for i in range(len(specs)) for p in ((i, opponent), (opponent, i)))
        result = runner.run(f"figure-9-{finish}", low, all_bots, pairs, omega_games)
        shares = []
        for i in range(len(specs)):
            a, b = result.cells[(i, opponent)], result.cells[(opponent, i)]
            shares.append((a.first_wins + b.second_wins) / (a.games + b.games))
        sweep[finish] = shares
        rows.append(f"| {finish} | " + " | ".join(f"{s:.3f}" for s in shares) + " |")
    figure = runner.out / "figure-9.png"
    _plot(sweep, figure, low_name, omega_games)
    lines += [(f"### Figure 9 — win share of adaptive-random against search:depth=4 on "
              f"`{low_name}` ({omega_games} games per seat per point)"), "",
              f"![figure 9]({report}/figure-9.png)", "", *rows, ""]
    best = {finish: OMEGAS[max(range(len(OMEGAS)), key=lambda i: s[i])] for finish, s in sweep.items()}
    lines += [(f"Best omega: {best['search']} with search finishing, {best['short-words']} with "
              "short-words finishing."), ""]
    times = {}
    for path in sorted(runner.out.glob("*/wall-time.txt")):
        times[path.parent.name] = float(path.read_text(encoding="utf-8"))
    lines += ["Wall time of each table (seconds, all worker processes): "
              + ", ".join(f"{name} {seconds:.0f}" for name, seconds in times.items()), ""]
    summary = {
        "wall_times": times,
        "table-6.1": {s.bot: s.to_json() for s in summarise(t61)},
        "table-6.3": {s.bot: s.to_json() for s in summarise(t63)},
        "table-6.2-ssw-wins": ssw_wins,
        "figure-9": sweep,
        "pp1": pp1, "pp2": pp2,
        "a1": to_json(a1)["summary"], "a2": to_json(a2)["summary"],
    }
    (runner.out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return "\n".join(lines)


def _plot(sweep: dict[str, list[float]], path: Path, grammar: str, games: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(OMEGAS, sweep["search"], "-o", color="black", label="finishing: search (ПС)")
    ax.plot(OMEGAS, sweep["short-words"], "--s", color="gray", label="finishing: short-words (СКС)")
    ax.set_xlabel("Ω")
    ax.set_ylabel("share of games won against search:depth=4")
    ax.set_title(f"Figure 9: adaptive-random vs search:depth=4 on {grammar} ({games} games/seat)")
    ax.set_xticks(OMEGAS)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
