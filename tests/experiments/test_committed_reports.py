"""The committed experiment reports are what their committed tables give.

docs/experiments/thesis.md and thesis-program.md quote tables, verdicts and figure 9's
shares; docs/experiments/data holds the tables' JSON written by the runs. Rendering the
reports again from that JSON (no game is played: a missing table fails the test) must
give the rows the documents show.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.experiments.thesis import REPORTS, Runner, ThesisTables, _report, parse_omegas
from arena.experiments.thesis_claims import render_claims

DOCS = Path(__file__).resolve().parents[2] / "docs" / "experiments"
DATA = DOCS / "data"


def no_play(name: str) -> Any:
    raise AssertionError(f"table {name} is not in docs/experiments/data: it would be played")


def tables(tmp: Path, report: str, rule: str, games: int, appendix: int, omega: int,
           omegas: tuple[int, ...], sources: tuple[Path, ...]) -> tuple[str, ThesisTables]:
    runner = Runner(tmp / rule / report, games, 0, 200, 1, False, no_play, bank_rule=rule,
                    sources=sources)
    medium, low = REPORTS[report]
    return _report(runner, report, medium, low, omega, appendix, omegas)


def table_rows(text: str) -> list[str]:
    """The rows of every table; the per-bot summaries cut to the eight columns the
    committed strict report has (the Elo columns came later, from pentanomial pairs
    those tables did not record)."""
    rows, summary = [], False
    for line in text.splitlines():
        if not line.startswith("|"):
            summary = False
            continue
        summary = summary or line.startswith("| bot | games |")
        if line.startswith("|---"):
            continue
        rows.append("|".join(line.split("|")[:9]) + "|" if summary else line)
    return rows


@pytest.mark.parametrize("report, appendix, omega", [("primary", 200, 500), ("second", 20, 50)])
def test_thesis_md_shows_the_committed_strict_tables(tmp_path, report, appendix, omega):
    text, _ = tables(tmp_path, report, "strict", 500, appendix, omega, tuple(range(1, 21)),
                     (DATA / report,))
    document = set((DOCS / "thesis.md").read_text(encoding="utf-8").splitlines())
    missing = [row for row in table_rows(text) if row not in document]
    assert not missing, missing[:3]


@pytest.mark.parametrize("report", ["primary", "second"])
def test_thesis_program_md_shows_the_committed_tables_and_verdicts(tmp_path, report):
    """Both rules at the thesis's sizes: 500 games per cell in tables 6.1-6.3, 100 in
    A.1-A.2, 250 per seat and point in figure 9."""
    runs = DATA / "program-rule"
    omegas = parse_omegas("1-20,25-60/5")
    _, strict = tables(tmp_path, report, "strict", 500, 100, 250, omegas,
                       (runs / "strict" / report, DATA / report))
    _, program = tables(tmp_path, report, "thesis-program", 500, 100, 250, omegas,
                        (runs / "thesis-program" / report,))
    document = (DOCS / "thesis-program.md").read_text(encoding="utf-8")
    claims = render_claims(strict, program)
    assert [line for line in claims if line not in document] == []
    assert "100 games per cell under the strict rules, 100 under the program's" in document
    for rule, found in (("strict", strict), ("program", program)):
        for finish, shares in found.sweep.items():
            row = f"| {rule}, {finish} | " + " | ".join(f"{v:.3f}" for v in shares) + " |"
            assert row in document
