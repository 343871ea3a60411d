"""The seccomp filter (`arena.sandbox.seccomp`), read back instruction by instruction: a
foreign ABI is killed, every denied call lands on EPERM, everything else is allowed."""

from __future__ import annotations

import errno
import struct

from arena.sandbox.seccomp import DENIED, X86_64, seccomp_filter


def run(program: bytes, arch: int, nr: int) -> int:
    """What the classic BPF program returns for one system call (a tiny interpreter of
    the four instructions it uses)."""
    ops = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        code, jump_true, jump_false, k = ops[pc]
        if code == 0x20:
            accumulator = {0: nr, 4: arch}[k]
        elif code == 0x15:
            pc += jump_true if accumulator == k else jump_false
        elif code == 0x35:
            pc += jump_true if accumulator >= k else jump_false
        elif code == 0x06:
            return k
        pc += 1


def test_every_denied_call_is_refused_and_others_are_allowed() -> None:
    program = seccomp_filter("x86_64")
    assert program is not None
    assert set(DENIED) <= set(X86_64)
    x86_64 = 0xC000003E
    for name in DENIED:
        assert run(program, x86_64, X86_64[name]) == 0x00050000 | errno.EPERM, name
    for allowed in (0, 1, 2, 56, 57, 59, 60, 231, 435):  # read, write, open, clone...
        assert run(program, x86_64, allowed) == 0x7FFF0000
    assert run(program, x86_64, 0x40000000 + 1) == 0x00050000 | errno.EPERM  # x32
    assert run(program, 0x40000003, 11) == 0x80000000  # i386 calls: killed


def test_there_is_no_filter_where_there_is_no_table() -> None:
    assert seccomp_filter("riscv64") is None
