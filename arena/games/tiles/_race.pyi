"""Type stub of the compiled race solver (`_race.pyx`)."""

import numpy as np
import numpy.typing as npt

def solve_wins(
    children: npt.NDArray[np.intc],
    probs: npt.NDArray[np.float64],
    voluntary: bool,
    threads: int = 1,
) -> npt.NDArray[np.float64]: ...
