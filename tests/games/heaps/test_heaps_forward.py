"""The compiled forward pass colours exactly like the Python one (its reference)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.heaps import HeapRules
from arena.games.heaps.solver import (
    ForwardColours,
    _solve_increasing_python,
    _solve_two_heaps_compiled,
    solve_heaps,
)

ops = st.lists(st.sampled_from(["+1", "+2", "+3", "+5", "*2", "*3"]), min_size=0, max_size=3, unique=True)


@st.composite
def two_heap_rules(draw: st.DrawFn) -> HeapRules:
    measure = draw(st.sampled_from(["sum", "product", "max"]))
    moves = {"any": draw(ops)}
    for key in ("larger", "smaller", "equal"):
        if draw(st.booleans()):
            moves[key] = draw(ops)
    if not any(moves.values()):
        moves["any"] = ["+1"]
    target = draw(st.integers(2, 90 if measure != "product" else 400))
    low = draw(st.integers(1, 3)) if measure == "product" else draw(st.integers(0, 3))
    return HeapRules.from_mapping(
        {"heaps": 2, "end": {"measure": measure, "at_least": target}, "moves": moves, "min_heap": low}
    )


@settings(max_examples=300, deadline=None)
@given(two_heap_rules())
def test_compiled_forward_pass_matches_python(rules: HeapRules) -> None:
    compiled = _solve_two_heaps_compiled(rules)
    python = _solve_increasing_python(rules)
    assert dict(compiled.solution.colour.items()) == python.solution.colour
    assert tuple(compiled.solution.task19_some) == python.solution.task19_some
    assert compiled.positions == python.positions
    assert compiled.solution.steps() == python.solution.steps()


def test_the_solver_uses_it_for_two_heaps():
    rules = HeapRules.from_mapping(
        {"heaps": 2, "end": {"measure": "sum", "at_least": 77}, "moves": {"any": ["+1", "*2"]}}
    )
    solution = solve_heaps(rules).solution
    assert isinstance(solution.colour, ForwardColours)
    assert solution.colour_of((38, 1)) == solution.colour[(1, 38)]
    assert (0, 1) not in solution.colour and (80, 80) not in solution.colour
