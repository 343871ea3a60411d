"""The thesis's tables under both bank rules, side by side (`arena experiment thesis
--rules thesis-program`).

First the thesis's conclusions, each checked under both rules
(`arena.experiments.thesis_claims`); then for every table: each bot's win rate and mean
score under the strict rules (the arena's strategies) and under the thesis program's
rule (its strategies as written), then both cross tables; figure 9 with the four
curves in one plot. The bots of the two
sides are matched by their thesis abbreviation (ПС4 is ``search:depth=4`` on one side,
``thesis-search:depth=4`` on the other). `bank_skips` measures the mechanism: how often
each program strategy ends a turn with an applicable bank group unused, which only its
own rule allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.games.substitution import Grammar, Settings, SubstitutionGame, check_turn
from arena.match import play_match
from arena.registry import default_registry
from arena.tournament.report import BotSummary, markdown_table, summarise
from arena.tournament.results import TournamentResult
from arena.tournament.spec import game_seed

if TYPE_CHECKING:
    from arena.experiments.thesis import ThesisTables

__all__ = ["BankSkips", "bank_skips", "head_to_head", "render_bank_skips", "render_side_by_side"]

TABLES = (
    ("table-6.1", "Table 6.1 — round robin on `{medium}`"),
    ("table-6.2", "Table 6.2 — the trap grammar (`{medium}` with S->...|T): stupid-short-words against each bot"),
    ("table-6.3", "Table 6.3 — round robin on `{low}`"),
    ("table-A.1", "Table A.1 — mixed strategies on `{medium}`"),
    ("table-A.2", "Table A.2 — mixed strategies on `{low}`"),
)


def _by_label(result: TournamentResult, labels: dict[str, str]) -> dict[str, BotSummary]:
    return {labels.get(s.bot, s.bot): s for s in summarise(result) if s.games}


def head_to_head(result: TournamentResult, labels: dict[str, str], a: str, b: str) -> tuple[int, int, int]:
    """(wins of `a`, wins of `b`, draws) over both seatings of two bots named by label."""
    index = {labels.get(bot, bot): i for i, bot in enumerate(result.spec.bots)}
    i, j = index[a], index[b]
    first, second = result.cells[(i, j)], result.cells[(j, i)]
    return (first.first_wins + second.second_wins, first.second_wins + second.first_wins,
            first.draws + second.draws)


def _comparison(strict: TournamentResult, program: TournamentResult, strict_labels: dict[str, str],
                program_labels: dict[str, str]) -> list[str]:
    left, right = _by_label(strict, strict_labels), _by_label(program, program_labels)
    lines = [
        ("| bot | win rate, strict (95% CI) | win rate, program (95% CI) | change | "
         "mean score, strict | mean score, program |"),
        "|---|---|---|---|---|---|",
    ]
    for label, s in left.items():
        p = right.get(label)
        if p is None:
            continue
        lines.append(
            f"| {label} | {s.win_rate:.3f} ({s.win_ci[0]:.3f}-{s.win_ci[1]:.3f}) | "
            f"{p.win_rate:.3f} ({p.win_ci[0]:.3f}-{p.win_ci[1]:.3f}) | {p.win_rate - s.win_rate:+.3f} | "
            f"{s.mean_score:.1f} | {p.mean_score:.1f} |"
        )
    rank_s = sorted(left, key=lambda k: -left[k].win_rate)
    rank_p = sorted(right, key=lambda k: -right[k].win_rate)
    lines += ["", f"Ranking by win rate — strict: {', '.join(rank_s)}; program: {', '.join(rank_p)}."]
    return lines


def _forfeits(result: TournamentResult) -> int:
    return sum(cell.forfeits for cell in result.cells.values())


def render_side_by_side(strict: ThesisTables, program: ThesisTables, out: Path, report: str,
                        bots: Sequence[tuple[str, str]] = (), skip_games: int = 50) -> str:
    """The report section of one pair of grammars, both rules; writes the combined figure.

    With `bots` (spec, label), it also measures how often each program strategy skips
    the bank (`bank_skips`, `skip_games` self-play games per grammar).
    """
    names = {"medium": strict.medium, "low": strict.low}
    lines = [(f"## {report.capitalize()} report: `{strict.medium}` (medium chance of S) and "
              f"`{strict.low}` (low chance of S)"), ""]
    from arena.experiments.thesis_claims import render_claims

    lines += ["### The thesis's conclusions under each rule", ""]
    lines += render_claims(strict, program) + [""]
    if bots:
        from arena.games.substitution import preset

        moves = int(program.results["table-6.1"].spec.settings["moves"])
        specs = [spec for spec, _ in bots]
        table = {name: bank_skips(preset(name), moves, specs, skip_games)
                 for name in (strict.medium, strict.low)}
        lines += ["### How often the program's strategies leave an applicable bank group unused", ""]
        lines += render_bank_skips(table, dict(bots), skip_games, moves) + [""]
    for key, title in TABLES:
        s, p = strict.results[key], program.results[key]
        lines += [f"### {title.format(**names)}", ""]
        lines += [(f"{s.spec.games} games per cell under the strict rules, {p.spec.games} under "
                   f"the program's; forfeits (illegal moves): {_forfeits(s)} strict, "
                   f"{_forfeits(p)} program."), ""]
        lines += _comparison(s, p, strict.labels, program.labels) + [""]
        if key == "table-6.2":
            lines += [(f"stupid-short-words wins {strict.ssw_wins} of its {strict.ssw_games} games "
                       f"under the strict rules, {program.ssw_wins} of {program.ssw_games} under the "
                       "program's."), ""]
        if key in ("table-6.1", "table-6.3"):
            pairs = [("ПС4", "ААС10"), ("ГСКС", "СКС"), ("УУСС", "УСС")]
            facts = []
            for a, b in pairs:
                hs, hp = head_to_head(s, strict.labels, a, b), head_to_head(p, program.labels, a, b)
                facts.append(f"{a} against {b}: {hs[0]}-{hs[1]} strict, {hp[0]}-{hp[1]} program")
            lines += ["Head to head (both seatings, draws left out): " + "; ".join(facts) + ".", ""]
        if key == "table-6.3":
            lines += [(f"ПП1 = {strict.pp1} strict, {program.pp1} program; ПП2 = {strict.pp2} strict, "
                       f"{program.pp2} program (wins of УУСС, СКС, ПС4, ААС10 in tables 6.1 and 6.3; "
                       "the thesis had (1581, 1177, 2706, 2263) and (1890, 844, 2194, 2746))."), ""]
        lines += ["<details><summary>The cross tables</summary>", ""]
        lines += [markdown_table(s, strict.labels, "Strict rules, the arena's strategies"), ""]
        lines += [markdown_table(p, program.labels, "The program's rule, its strategies as written"), ""]
        lines += ["</details>", ""]
    figure = out / f"{report}-figure-9-rules.png"
    _plot_both(strict, program, figure)
    omegas = strict.omegas
    lines += [(f"### Figure 9 — win share of adaptive-random against search:depth=4 on `{strict.low}` "
               f"({strict.omega_games} games per seat per point strict, {program.omega_games} program)"),
              "", f"![figure 9 under both rules]({figure.name})", ""]
    lines += ["| Ω | " + " | ".join(map(str, omegas)) + " |", "|---|" + "---|" * len(omegas)]
    for rule, tables in (("strict", strict), ("program", program)):
        for finish, shares in tables.sweep.items():
            lines.append(f"| {rule}, {finish} | " + " | ".join(f"{v:.3f}" for v in shares) + " |")
    lines.append("")
    for rule, tables in (("strict", strict), ("program", program)):
        for finish, shares in tables.sweep.items():
            best = max(range(len(omegas)), key=lambda i: shares[i])
            lines.append(f"* {rule}, finishing with {finish}: best Ω = {omegas[best]} "
                         f"(share {shares[best]:.3f})" + _marks(omegas, shares))
    lines.append("")
    for rule, tables in (("strict rules", strict), ("program's rule", program)):
        if tables.wall_times:
            lines.append(f"Wall time of each table under the {rule} (seconds, when it was played): "
                         + ", ".join(f"{name} {seconds:.0f}"
                                     for name, seconds in tables.wall_times.items()) + ".")
    lines.append("")
    return "\n".join(lines)


def _marks(omegas: tuple[int, ...], shares: list[float]) -> str:
    marks = [f"Ω={o}: {shares[omegas.index(o)]:.3f}" for o in (1, 10, 20, 40, 60) if o in omegas]
    return "; " + ", ".join(marks) if marks else ""


def _plot_both(strict: ThesisTables, program: ThesisTables, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.5))
    styles = {("strict", "search"): ("-o", "black"), ("strict", "short-words"): ("--s", "black"),
              ("program", "search"): ("-o", "tab:red"), ("program", "short-words"): ("--s", "tab:red")}
    for rule, tables in (("strict", strict), ("program", program)):
        for finish, shares in tables.sweep.items():
            style, color = styles[(rule, finish)]
            who = "arena strategies, strict rules" if rule == "strict" else "program's strategies and rule"
            ax.plot(tables.omegas, shares, style, color=color, markersize=3,
                    label=f"{who}; finishing: {finish}")
    ax.set_xlabel("Ω")
    ax.set_ylabel("share of games won against search:depth=4")
    ax.set_title(f"Figure 9 on {strict.low} under both bank rules")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


@dataclass(frozen=True)
class BankSkips:
    """How one program strategy used the bank in self-play under the program's rule."""

    turns: int
    skips: int
    """Turns that end with a bank group still applicable (illegal under the strict rule)."""
    bank_steps: int
    strict_bank_steps: int
    """Bank steps the strict rule would have demanded at least: what was played plus one
    for every skipping turn (a lower bound)."""

    @property
    def rate(self) -> float:
        return self.skips / self.turns if self.turns else 0.0


def bank_skips(grammar: Grammar, moves: int, specs: Sequence[str], games: int,
               seed: int = 0) -> dict[str, BankSkips]:
    """Self-play `games` games per program strategy (``thesis-`` + spec) under the
    program's rule, and judge every turn again by the strict rule."""
    game = SubstitutionGame(Settings(grammar, moves, "thesis-program"))
    registry = default_registry()
    found = {}
    for spec in specs:
        bot = registry.make_bot(game, f"thesis-{spec}")
        turns = skips = bank_steps = 0
        for index in range(games):
            match = play_match(game, [bot, bot], seed=game_seed(seed, index))
            state = game.initial_state()
            for record in match.turns:
                state = game.apply_chance(state, record.chance)
                steps = game.parse_move(record.move).steps
                verdict = check_turn(game.compiled, state, steps)
                turns += 1
                bank_steps += max(0, len(steps) - 1)
                if getattr(verdict, "code", None) == "bank-group-applicable":
                    skips += 1
                after = game.check_move(state, game.parse_move(record.move))
                assert isinstance(after, type(state)), after
                state = after
        found[spec] = BankSkips(turns, skips, bank_steps, bank_steps + skips)
    return found


def render_bank_skips(table: dict[str, dict[str, BankSkips]], labels: dict[str, str],
                      games: int, moves: int) -> list[str]:
    """The skip rates as a Markdown table, one column per grammar."""
    grammars = list(table)
    lines = ["| bot | " + " | ".join(f"turns skipping a bank group, `{g}`" for g in grammars) + " |",
             "|---|" + "---|" * len(grammars)]
    for spec in table[grammars[0]]:
        cells = [f"{table[g][spec].rate:.1%} ({table[g][spec].skips} of {table[g][spec].turns})"
                 for g in grammars]
        lines.append(f"| {labels.get(spec, spec)} | " + " | ".join(cells) + " |")
    lines += ["", (f"Self-play, {games} games per strategy and grammar, {moves} turns per player, "
                   "under the program's rule; each turn judged again by the strict rule "
                   "(`arena.experiments.thesis_rules.bank_skips`).")]
    return lines
