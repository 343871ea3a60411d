"""The sandbox's seccomp filter: system calls a bot never needs, refused with ``EPERM``.

Namespaces, no privileges and ``no_new_privs`` already make most of these fail; the filter
takes them off the table before the kernel looks any further (its attack surface:
io_uring, BPF, perf events, the keyring, userfaultfd...), and refuses ``ptrace`` so a
program cannot trace its own sandbox's processes. It is a classic BPF program
(`seccomp_filter`), loaded by bubblewrap (``--seccomp FD``) just before the program
runs. A process of another ABI (32-bit calls on a 64-bit machine, where the numbers
differ) is killed: a deny-list holds only for the numbers it names.

Only x86-64 has the table here; elsewhere the sandbox runs without the filter, and
`docs/security.md` says so.
"""

from __future__ import annotations

import errno
import platform
import struct

__all__ = ["DENIED", "X86_64", "seccomp_filter"]

DENIED = (
    # what changes the machine or the mounts
    "mount", "umount2", "pivot_root", "chroot", "swapon", "swapoff", "reboot", "sethostname",
    "setdomainname", "iopl", "ioperm", "init_module", "finit_module", "delete_module",
    "kexec_load", "kexec_file_load", "acct", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex", "quotactl", "syslog", "vhangup",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # namespaces (bubblewrap also disables new user namespaces)
    "unshare", "setns",
    # kernel surfaces no bot needs
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "lookup_dcookie",
    "name_to_handle_at", "open_by_handle_at", "fanotify_init",
    # other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
)
"""The system calls refused."""

X86_64 = {
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "swapon": 167,
    "swapoff": 168, "reboot": 169, "sethostname": 170, "setdomainname": 171, "iopl": 172,
    "ioperm": 173, "init_module": 175, "finit_module": 313, "delete_module": 176,
    "kexec_load": 246, "kexec_file_load": 320, "acct": 163, "settimeofday": 164,
    "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159, "quotactl": 179,
    "syslog": 103, "vhangup": 153, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "unshare": 272,
    "setns": 308, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "lookup_dcookie": 212,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "fanotify_init": 300,
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
}
"""System call numbers of x86-64 (``asm/unistd_64.h``)."""

_ARCHES = {"x86_64": (0xC000003E, X86_64)}
"""``platform.machine()`` -> (its ``AUDIT_ARCH_*``, its numbers)."""

_LOAD_WORD = 0x20   # BPF_LD | BPF_W | BPF_ABS
_JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RETURN = 0x06      # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_KILL_PROCESS = 0x80000000
_X32 = 0x40000000
"""x86-64's x32 ABI: system call numbers from here on."""


def _op(code: int, k: int, jump_true: int = 0, jump_false: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jump_true, jump_false, k)


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """The filter for `machine` (this one by default) as bubblewrap reads it: an array of
    ``struct sock_filter``; None where there is no table for the machine."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, numbers = arch
    denied = sorted({numbers[name] for name in DENIED})
    refuse = _ERRNO | errno.EPERM
    count = len(denied)
    program = [
        _op(_LOAD_WORD, 4),                                 # seccomp_data.arch
        _op(_JUMP_EQUAL, audit_arch, 1, 0),
        _op(_RETURN, _KILL_PROCESS),                        # another ABI: killed
        _op(_LOAD_WORD, 0),                                 # seccomp_data.nr
        _op(_JUMP_AT_LEAST, _X32, count + 1, 0),            # x32: refused
    ]
    for index, number in enumerate(denied):
        program.append(_op(_JUMP_EQUAL, number, count - index, 0))
    program += [_op(_RETURN, _ALLOW), _op(_RETURN, refuse)]
    return b"".join(program)
