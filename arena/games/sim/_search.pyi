"""Type stub of the compiled Sim search core (`_search.pyx`)."""

from collections.abc import Callable, Sequence

class BudgetExceeded(Exception): ...
class CountMemoryExceeded(MemoryError): ...

class Searcher:
    n: int
    num_edges: int
    symmetry: bool
    table: dict[int, int]
    calls: int
    budget: int
    max_bytes: int
    progress: Callable[[int, int], object] | None
    progress_every: float
    @property
    def counted(self) -> int: ...
    @property
    def count_bytes(self) -> int: ...
    def release_counts(self) -> None: ...
    n_auts: int
    def __init__(
        self,
        n: int,
        symmetry: bool = True,
        budget: int = -1,
        graph: int | None = None,
        automorphisms: Sequence[Sequence[int]] = (),
    ) -> None: ...
    def canon(self, mine: int, theirs: int) -> int: ...
    def value(self, mine: int, theirs: int) -> int: ...
    def count(self, mine: int, theirs: int) -> list[int]: ...
