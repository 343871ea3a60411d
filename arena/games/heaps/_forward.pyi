"""Type stubs for the compiled forward pass (`_forward.pyx`)."""

from array import array
from collections.abc import Iterator

class ForwardTable:
    low: int
    rows: int
    colours: array[int]
    row_start: array[int]
    row_last: array[int]
    some: array[int]
    def index(self, x: int, y: int) -> int: ...
    def flagged(self) -> list[tuple[int, int]]: ...
    def positions(self) -> Iterator[tuple[int, int]]: ...

def forward_colours(
    measure: int,
    target: int,
    low: int,
    ops_equal: list[tuple[int, int]],
    ops_smaller: list[tuple[int, int]],
    ops_larger: list[tuple[int, int]],
) -> ForwardTable: ...
