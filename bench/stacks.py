"""Sum py-spy's collapsed stacks (``py-spy record --format raw``, as
`bench_cluster_server.py --profile DIR` writes them) by function: the share of the
samples each function was running in itself (self) and under it (total), the top ones.

    python bench/stacks.py FILE... [--top 40] [--under TEXT] [--self]

Several files (the rounds of one process) are summed. `--under TEXT` keeps only the
stacks with a frame containing TEXT (the move's path, say) and gives their share first;
`--self` sorts by self rather than total.
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

_LINE = re.compile(r" \(([^()]*):\d+\)$")


def frame_name(frame: str) -> str:
    """``func (path/to/file.py:12)`` as ``func (file.py)``: the lines of one function
    counted together."""
    match = _LINE.search(frame)
    if match is None:
        return frame.strip()
    return f"{frame[:match.start()].strip()} ({Path(match.group(1)).name})"


def read(paths: list[Path]) -> list[tuple[list[str], int]]:
    stacks = []
    for path in paths:
        for line in path.read_text(errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            if stack and count.isdigit():
                stacks.append(([frame_name(f) for f in stack.split(";")], int(count)))
    return stacks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--under", default=None)
    parser.add_argument("--self", action="store_true", dest="by_self")
    args = parser.parse_args()
    stacks = read(args.files)
    total = sum(count for _, count in stacks) or 1
    if args.under:
        kept = [(frames, count) for frames, count in stacks
                if any(args.under in frame for frame in frames)]
        print(f"stacks under {args.under!r}: {sum(c for _, c in kept) / total:.1%} "
              f"of {total} samples")
        stacks = kept
    own: collections.Counter[str] = collections.Counter()
    under: collections.Counter[str] = collections.Counter()
    for frames, count in stacks:
        own[frames[-1]] += count
        for name in set(frames):
            under[name] += count
    print(f"{total} samples; share of all: self, total")
    ranked = own if args.by_self else under
    for name, _ in ranked.most_common(args.top):
        print(f"{own[name] / total:7.1%} {under[name] / total:7.1%}  {name}")


if __name__ == "__main__":
    main()
