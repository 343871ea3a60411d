"""A line-protocol program that plays a golden transcript's part (`tests/golden/lines.py`).

``python line_program.py TRANSCRIPT LOG``: after each ``turn`` or ``legal`` line it reads,
it writes the transcript's next group of ``>`` lines (one group: the lines between two
``<`` lines); it logs every line read (``< ``) and written (``> ``) to LOG, and exits
when its input ends (or after ``quit``).
"""

import sys
from pathlib import Path

groups: list[list[str]] = []
current: list[str] | None = None
for line in Path(sys.argv[1]).read_text(encoding="utf-8").splitlines():
    if line.startswith("> "):
        if current is None:
            current = []
            groups.append(current)
        current.append(line[2:])
    elif line.startswith("< "):
        current = None
with Path(sys.argv[2]).open("a", encoding="utf-8") as log:
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        log.write("< " + line + "\n")
        log.flush()
        if line == "quit":
            break
        if line.startswith(("turn ", "legal ")) and groups:
            for out in groups.pop(0):
                log.write("> " + out + "\n")
                log.flush()
                print(out, flush=True)
