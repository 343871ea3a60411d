"""The thesis's section 6 and appendix A, re-run: tables 6.1, 6.2, 6.3, A.1, A.2, figure 9.

Two reports: the primary one on the grammars the thesis's program shipped (``classic``
for "medium chance of S", ``low-s`` for "low chance of S"), and a second one on the
grammars its text describes (``medium``, ``low``). The trap grammar of table 6.2 is the
report's medium grammar with a useless ``T`` added to both S groups.

``rules="thesis-program"`` re-runs every table with the thesis program's strategies as
written (the ``thesis-*`` bots) under the program's bank rule, and the same tables with
the arena's strategies under the strict rules (reused when already computed, here or in
`strict_from`), and reports them side by side (`arena.experiments.thesis_rules`).
Figure 9's Ω values are an option; they are run in blocks of 20, each cached apart.
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

__all__ = ["REPORTS", "RULES", "THESIS_BOTS", "ThesisTables", "parse_omegas", "run_thesis",
           "thesis_command"]

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
OMEGA_BLOCK = 20
"""Figure 9 is played in tournaments of this many Ω values (cached one by one)."""

RULES = ("strict", "thesis-program")
"""``strict``: the arena's strategies, the rules as written; ``thesis-program``: the
program's strategies (``thesis-`` + the same spec) under its bank rule."""


def parse_omegas(text: str) -> tuple[int, ...]:
    """Ω values from ``"1-60"``, ``"1,5,10-20"`` or ``"1-20,25-60/5"`` (a range with a
    step): positive integers, kept in order, each once."""
    values: list[int] = []
    for part in text.split(","):
        span, _, step_text = part.strip().partition("/")
        low, _, high = span.partition("-")
        try:
            first, last, step = int(low), int(high or low), int(step_text or 1)
        except ValueError:
            raise ValueError(
                f"{part.strip()!r} is neither an integer nor a range like 1-60 or 25-60/5"
            ) from None
        if not 1 <= first <= last <= 1000 or step < 1:
            raise ValueError(f"Ω range {part.strip()!r} must go up, within 1-1000, by a step >= 1")
        values += [v for v in range(first, last + 1, step) if v not in values]
    return tuple(values)


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
    bank_rule: str = "strict"
    sources: tuple[Path, ...] = ()
    """Other directories that may hold finished tables (``NAME/tournament.json`` or
    ``NAME.json``), e.g. the committed docs/experiments/data/REPORT."""
    executor: Executor | None = None
    """Where the games run (local processes or a Ray cluster), shared by every table."""

    def bot(self, spec: str) -> str:
        """The bot playing `spec` under this runner's rule (the program's own under its rule)."""
        return f"thesis-{spec}" if self.bank_rule == "thesis-program" else spec

    def run(self, name: str, grammar: Grammar, bots: tuple[str, ...],
            pairs: tuple[tuple[int, int], ...] | None = None, games: int | None = None
            ) -> TournamentResult:
        spec = TournamentSpec("substitution", Settings(grammar, self.moves, self.bank_rule).to_json(),
                              tuple(self.bot(b) for b in bots), games or self.games, self.seed, pairs)
        directory = self.out / name
        found = _cached(spec, [directory / "tournament.json"]
                        + [p for source in self.sources for p in (source / name / "tournament.json",
                                                                   source / f"{name}.json")])
        if found is not None:
            return found
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


def _cached(spec: TournamentSpec, paths: list[Path]) -> TournamentResult | None:
    """The first finished table among `paths` played with exactly `spec` (settings
    without a bank rule are strict, with or without ``"bank_rule": "strict"``; a spec
    written before formats existed is a round robin)."""
    from arena.tournament.report import from_json

    def normal(recorded: Any) -> Any:
        if not isinstance(recorded, dict) or not isinstance(recorded.get("settings"), dict):
            return recorded
        try:
            recorded = TournamentSpec.from_json(recorded).to_json()
        except (KeyError, TypeError, ValueError):
            return recorded
        settings = {k: v for k, v in recorded["settings"].items()
                    if (k, v) != ("bank_rule", "strict")}
        return {**recorded, "settings": settings}

    wanted = spec.to_json()
    for path in paths:
        if not path.is_file():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        if normal(data.get("spec")) == normal(wanted):
            return from_json({**data, "spec": wanted})
    return None


def _wins(result: TournamentResult, bot: int) -> int:
    total = 0
    for (first, second), cell in result.cells.items():
        if first == bot:
            total += cell.first_wins
        if second == bot:
            total += cell.second_wins
    return total


@dataclass(frozen=True)
class ThesisTables:
    """Every result of one report (one pair of grammars) under one rule."""

    report: str
    medium: str
    low: str
    results: dict[str, TournamentResult]
    labels: dict[str, str]
    pp1: tuple[int, ...]
    pp2: tuple[int, ...]
    ssw_wins: int
    ssw_games: int
    omegas: tuple[int, ...]
    sweep: dict[str, list[float]]
    omega_games: int
    wall_times: dict[str, float] = field(default_factory=dict)
    """Seconds each table took when it was played (the tables reused keep theirs)."""


def run_thesis(out: Path, *, games: int = 500, seed: int = 0, moves: int = 200,
               reports: tuple[str, ...] = ("primary", "second"), processes: int | None = None,
               logs: bool = True, progress: Callable[[str], Any] | None = None,
               omega_games: int | None = None, appendix_games: int | None = None,
               rules: str = "strict", omegas: tuple[int, ...] = OMEGAS,
               strict_from: Path | None = None, cluster: str | None = None) -> Path:
    """Run the experiments; write ``report.md``, figures and tables under `out`.

    The tables are tournaments (`run_tournament`), played on local processes or on the
    Ray cluster at `cluster`; an interrupted run resumes each table where it stopped.
    Under ``rules="thesis-program"`` the tables are played under both rules (the strict
    ones go to ``out/strict``, reused from `strict_from` where it holds the same table)
    and the report sets them side by side.
    """
    from contextlib import nullcontext

    if rules not in RULES:
        raise ValueError(f"rules {rules!r} is not one of {', '.join(RULES)}")

    def quiet(name: str) -> Any:
        return nullcontext(lambda done, total: None)

    out.mkdir(parents=True, exist_ok=True)
    sections = []
    started = time.time()
    omega_games = omega_games or games
    appendix_games = appendix_games or games
    with make_executor(processes, cluster) as executor:
        for report in reports:
            medium_name, low_name = REPORTS[report]
            if rules == "strict":
                runner = Runner(out / report, games, seed, moves, processes, logs,
                                progress or quiet, executor=executor)
                sections.append(_report(runner, report, medium_name, low_name, omega_games,
                                        appendix_games, omegas)[0])
                continue
            from arena.experiments.thesis_rules import render_side_by_side

            sources = (strict_from / report,) if strict_from is not None else ()
            both = [
                _report(Runner(out / rule / report, games, seed, moves, processes, logs,
                               progress or quiet, bank_rule=rule,
                               sources=sources if rule == "strict" else (), executor=executor),
                        report, medium_name, low_name, omega_games, appendix_games, omegas)[1]
                for rule in RULES
            ]
            sections.append(render_side_by_side(both[0], both[1], out, report, THESIS_BOTS))
    elapsed = time.time() - started
    which = ("the arena's strategies under the strict rules" if rules == "strict" else
             "the thesis program's strategies (thesis-*) under its bank rule, beside the "
             "arena's strategies under the strict rules")
    header = [
        "# The thesis's experiments, re-run" + ("" if rules == "strict" else ": the program's rule"),
        "",
        (f"{games} games per cell in tables 6.1-6.3, {appendix_games} in tables "
        f"A.1-A.2, {omega_games} per seat and point in figure 9 (Ω {_omega_option(omegas)}); "
        f"{moves} turns per player, seed {seed}; both seats of every pairing meet the same "
        f"dice; {which}. Wall time {elapsed / 60:.1f} min (tables found finished are reused, "
        f"not played again: each table's own time is listed with its report). Generated by "
        f"`{thesis_command(games, appendix_games, omega_games, moves, seed, reports, rules, omegas)}`"
        + (" (add `--strict-from DIR` to reuse finished strict tables)." if rules != "strict"
           else ".")),
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


def thesis_command(games: int, appendix_games: int, omega_games: int, moves: int, seed: int,
                   reports: tuple[str, ...], rules: str, omegas: tuple[int, ...]) -> str:
    """The `arena experiment thesis` command that reproduces a report (its tables and
    figures; the output directory left to the reader), written into the report."""
    parts = ["arena experiment thesis", f"--games {games}", f"--appendix-games {appendix_games}",
             f"--omega-games {omega_games}"]
    if moves != 200:
        parts.append(f"--moves {moves}")
    if seed != 0:
        parts.append(f"--seed {seed}")
    if tuple(reports) != ("primary", "second"):
        parts += [f"--report {report}" for report in reports]
    if rules != "strict":
        parts.append(f"--rules {rules}")
    if omegas != OMEGAS:
        parts.append(f"--omegas {_omega_option(omegas)}")
    return " ".join(parts + ["--out DIR"])


def _omega_option(omegas: tuple[int, ...]) -> str:
    """`omegas` as an --omegas value (runs of a constant step as ranges)."""
    parts, i = [], 0
    while i < len(omegas):
        j = i + 1
        step = omegas[j] - omegas[i] if j < len(omegas) else 1
        while j < len(omegas) and omegas[j] - omegas[j - 1] == step and step > 0:
            j += 1
        if j - i >= 3 or (j - i == 2 and step == 1):
            parts.append(f"{omegas[i]}-{omegas[j - 1]}" + (f"/{step}" if step != 1 else ""))
            i = j
        else:
            parts.append(str(omegas[i]))
            i += 1
    return ",".join(parts)


def _report(runner: Runner, report: str, medium_name: str, low_name: str, omega_games: int,
            appendix_games: int, omegas: tuple[int, ...] = OMEGAS) -> tuple[str, ThesisTables]:
    medium, low = preset(medium_name), preset(low_name)
    bots = tuple(spec for spec, _ in THESIS_BOTS)
    labels = {runner.bot(spec): label for spec, label in THESIS_BOTS}
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
    mixed_labels = {runner.bot(spec): label for spec, label in (
        (mixed[0], "ПП1"), (mixed[1], "ПП2"), ("search:depth=4", "ПС4"),
        ("adaptive-random:omega=10", "ААС10"), ("better-smart-random", "УУСС"),
        ("short-words", "СКС"))}
    for spec, points in zip(mixed[2:], MIXED_POINTS):
        mixed_labels[runner.bot(spec)] = "СмС " + " ".join(map(str, points))
    lines += [(f"ПП1 = {pp1}, ПП2 = {pp2} (wins of УУСС, СКС, ПС4, ААС10 in tables 6.1 and 6.3; "
              "the thesis had (1581, 1177, 2706, 2263) and (1890, 844, 2194, 2746))."), ""]
    a1 = runner.run("table-A.1", medium, mixed_bots, games=appendix_games)
    lines += [markdown_table(a1, mixed_labels, f"Table A.1 — mixed strategies on `{medium_name}`"), ""]
    a2 = runner.run("table-A.2", low, mixed_bots, games=appendix_games)
    lines += [markdown_table(a2, mixed_labels, f"Table A.2 — mixed strategies on `{low_name}`"), ""]

    # Figure 9: omega sweep against search:depth=4 on the low grammar, in blocks of Ω.
    sweep: dict[str, list[float]] = {}
    rows = ["| omega | " + " | ".join(f"{o}" for o in omegas) + " |",
            "|---|" + "---|" * len(omegas)]
    results = {"table-6.1": t61, "table-6.2": t62, "table-6.3": t63, "table-A.1": a1, "table-A.2": a2}
    for finish in ("search", "short-words"):
        shares = []
        for start in range(0, len(omegas), OMEGA_BLOCK):
            block = omegas[start:start + OMEGA_BLOCK]
            name = f"figure-9-{finish}"
            if block != OMEGAS:
                name += f"-omega-{block[0]}-{block[-1]}"
            specs = tuple(f"adaptive-random:omega={o},finish={finish}" for o in block)
            all_bots = specs + ("search:depth=4",)
            opponent = len(specs)
            pairs = tuple(p for i in range(len(specs)) for p in ((i, opponent), (opponent, i)))
            result = results[name] = runner.run(name, low, all_bots, pairs, omega_games)
            for i in range(len(specs)):
                a, b = result.cells[(i, opponent)], result.cells[(opponent, i)]
                shares.append((a.first_wins + b.second_wins) / (a.games + b.games))
        sweep[finish] = shares
        rows.append(f"| {finish} | " + " | ".join(f"{s:.3f}" for s in shares) + " |")
    figure = runner.out / "figure-9.png"
    _plot(sweep, figure, low_name, omega_games, omegas, runner.bank_rule)
    lines += [(f"### Figure 9 — win share of adaptive-random against search:depth=4 on "
              f"`{low_name}` ({omega_games} games per seat per point)"), "",
              f"![figure 9]({report}/figure-9.png)", "", *rows, ""]
    best = {finish: omegas[max(range(len(omegas)), key=lambda i: s[i])] for finish, s in sweep.items()}
    lines += [(f"Best omega: {best['search']} with search finishing, {best['short-words']} with "
              "short-words finishing."), ""]
    times = {}
    for path in sorted(runner.out.glob("*/wall-time.txt")):
        times[path.parent.name] = float(path.read_text(encoding="utf-8"))
    lines += ["Wall time of each table (seconds, all worker processes): "
              + ", ".join(f"{name} {seconds:.0f}" for name, seconds in times.items()), ""]
    summary = {
        "bank_rule": runner.bank_rule,
        "wall_times": times,
        "table-6.1": {s.bot: s.to_json() for s in summarise(t61)},
        "table-6.3": {s.bot: s.to_json() for s in summarise(t63)},
        "table-6.2-ssw-wins": ssw_wins,
        "figure-9-omegas": list(omegas),
        "figure-9": sweep,
        "pp1": pp1, "pp2": pp2,
        "a1": to_json(a1)["summary"], "a2": to_json(a2)["summary"],
    }
    (runner.out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    tables = ThesisTables(report, medium_name, low_name, results, {**labels, **mixed_labels}, pp1,
                          pp2, ssw_wins, sum(c.games for c in t62.cells.values()), omegas, sweep,
                          omega_games, times)
    return "\n".join(lines), tables


def _plot(sweep: dict[str, list[float]], path: Path, grammar: str, games: int,
          omegas: tuple[int, ...] = OMEGAS, bank_rule: str = "strict") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7 if len(omegas) <= 20 else 10, 4))
    ax.plot(omegas, sweep["search"], "-o", color="black", markersize=3, label="finishing: search (ПС)")
    ax.plot(omegas, sweep["short-words"], "--s", color="gray", markersize=3,
            label="finishing: short-words (СКС)")
    ax.set_xlabel("Ω")
    ax.set_ylabel("share of games won against search:depth=4")
    rule = "" if bank_rule == "strict" else ", the program's strategies and rule"
    ax.set_title(f"Figure 9: adaptive-random vs search:depth=4 on {grammar} ({games} games/seat{rule})")
    ax.set_xticks([o for o in omegas if len(omegas) <= 20 or o % 5 == 0 or o == omegas[0]])
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
