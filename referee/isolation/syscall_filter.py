"""The system-call filter every bot runs under: what it closes, and its seccomp program.

A bot never needs the kernel's rarer interfaces, and several of them reach past every namespace
and user of its own: kernel keys are in no namespace, a vsock socket reaches a virtual machine's
host, io_uring, userfaultfd, perf events and BPF are large attack surfaces, a new user namespace
gives back capabilities, and ptrace or the mount and module calls are an administrator's. So,
as the programming-contest judges do, each bot's launcher installs a seccomp filter as its last
step before exec, at every level (after setting no-new-privileges), and the bot and everything
it starts keep it.

Each closed call fails with an error number, never a kill: a runtime that probes for a feature
falls back, as on a kernel without it. `ENOSYS` where the feature may be missing from a kernel
(`clone3` above all: the C library then creates threads with `clone`, whose flags the filter can
see), `EPERM` where an unprivileged caller would be refused, `EAFNOSUPPORT` for the vsock address
family. What stays open is everything Python, the JVM (threads, signals, its memory calls),
C and shells use; the list is `CLOSED`, and docs/isolation.md shows it.

There is one list, here: the referee builds the classic BPF program (`program`) and hands it to
the launcher (`--seccomp HEX`), whether that is the compiled helper or the Python program, which
install it as they are given it. The program checks the architecture first: a call of another
ABI than the machine's own (32-bit x86 on x86_64, x32) kills the process, since the numbers of
its calls are not the ones the filter looks at. On an architecture without a table here the
filter cannot be built, and the referee refuses to run bots (`unavailable_reason`).
"""

from __future__ import annotations

import errno
import functools
import os
import struct
import sys
from dataclasses import dataclass

# Flags of clone() and unshare() that make a namespace; CLONE_NEWTIME (0x80) only in unshare(),
# where clone() has the exit signal instead.
CLONE_NEW_FLAGS = 0x7E020000  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
CLONE_NEWTIME = 0x80
AF_VSOCK = 40


@dataclass(frozen=True)
class Closed:
    """A system call the filter closes: always, or only when its first argument has one of
    `mask`'s bits (`clone`, `unshare`) or equals `value` (`socket`'s address family)."""

    name: str
    errno: int
    why: str
    mask: int | None = None
    value: int | None = None


def _each(names: str, error: int, why: str) -> tuple[Closed, ...]:
    return tuple(Closed(name, error, why) for name in names.split())


CLOSED: tuple[Closed, ...] = (
    Closed("clone3", errno.ENOSYS, "its flags cannot be seen: the C library falls back to clone"),
    Closed("clone", errno.EPERM, "with a namespace flag", mask=CLONE_NEW_FLAGS),
    Closed("unshare", errno.EPERM, "with a namespace flag", mask=CLONE_NEW_FLAGS | CLONE_NEWTIME),
    Closed("setns", errno.EPERM, "entering another namespace"),
    Closed("socket", errno.EAFNOSUPPORT, "vsock: the host's sockets", value=AF_VSOCK),
    *_each("add_key request_key keyctl", errno.ENOSYS, "kernel keys: in no namespace"),
    *_each("io_uring_setup io_uring_enter io_uring_register", errno.ENOSYS, "io_uring"),
    *_each("userfaultfd perf_event_open bpf", errno.ENOSYS, "kernel attack surface"),
    *_each("ptrace process_vm_readv process_vm_writev pidfd_getfd", errno.EPERM, "other processes"),
    *_each(
        "mount umount2 pivot_root chroot open_tree move_mount fsopen fsconfig fsmount fspick "
        "mount_setattr swapon swapoff reboot kexec_load kexec_file_load init_module "
        "finit_module delete_module acct quotactl quotactl_fd settimeofday clock_settime "
        "clock_adjtime sethostname setdomainname open_by_handle_at syslog iopl ioperm",
        errno.EPERM,
        "the administrator's",
    ),
)

# The system call numbers, per architecture (`uname -m`): x86_64's own table, and the generic
# one of asm-generic/unistd.h that aarch64 uses. A name missing from a table (iopl and ioperm
# exist on x86 only) has nothing to close there.
NUMBERS: dict[str, dict[str, int]] = {
    "x86_64": {
        "clone3": 435, "clone": 56, "unshare": 272, "setns": 308, "socket": 41,
        "add_key": 248, "request_key": 249, "keyctl": 250,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "userfaultfd": 323, "perf_event_open": 298, "bpf": 321,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438,
        "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
        "mount_setattr": 442, "swapon": 167, "swapoff": 168, "reboot": 169, "kexec_load": 246,
        "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176,
        "acct": 163, "quotactl": 179, "quotactl_fd": 443, "settimeofday": 164,
        "clock_settime": 227, "clock_adjtime": 305, "sethostname": 170, "setdomainname": 171,
        "open_by_handle_at": 304, "syslog": 103, "iopl": 172, "ioperm": 173,
    },
    "aarch64": {
        "clone3": 435, "clone": 220, "unshare": 97, "setns": 268, "socket": 198,
        "add_key": 217, "request_key": 218, "keyctl": 219,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "userfaultfd": 282, "perf_event_open": 241, "bpf": 280,
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438,
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
        "mount_setattr": 442, "swapon": 224, "swapoff": 225, "reboot": 142, "kexec_load": 104,
        "kexec_file_load": 294, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "acct": 89, "quotactl": 60, "quotactl_fd": 443, "settimeofday": 170,
        "clock_settime": 112, "clock_adjtime": 266, "sethostname": 161, "setdomainname": 162,
        "open_by_handle_at": 265, "syslog": 116,
    },
}  # fmt: skip
# AUDIT_ARCH_* of linux/audit.h: what the kernel says a call's ABI is (seccomp_data.arch).
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000  # x86_64's x32 ABI: the same arch value, numbers with this bit

# Classic BPF (linux/filter.h, linux/seccomp.h): one instruction is (code, jt, jf, k).
LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
JUMP_EQUAL, JUMP_AT_LEAST, JUMP_ANY_BIT = 0x15, 0x35, 0x45  # BPF_JMP | BPF_JEQ/JGE/JSET | BPF_K
RETURN = 0x06  # BPF_RET | BPF_K
KILL_PROCESS, ERRNO, ALLOW = 0x80000000, 0x00050000, 0x7FFF0000  # SECCOMP_RET_*
NR, ARCH, FIRST_ARGUMENT = 0, 4, 16  # offsets in seccomp_data (its low word: little-endian)
INSTRUCTION = struct.Struct("=HBBI")
Instruction = tuple[int, int, int, int]


class FilterUnavailable(Exception):
    """No filter can be built for this machine."""


def machine() -> str:
    """The architecture the bots run on, as the filter's tables name it (`uname -m`; a 32-bit
    referee on a 64-bit kernel is neither)."""
    name = os.uname().machine
    return name if sys.maxsize > 2**32 else f"{name} (a 32-bit referee)"


def unavailable_reason(arch: str | None = None) -> str | None:
    """Why no filter can be built here, or None."""
    arch = arch or machine()
    if arch in NUMBERS:
        return None
    known = " and ".join(NUMBERS)
    return (
        f"no system-call filter for this machine's architecture ({arch}): the referee has the "
        f"system call numbers of {known} only (referee/isolation/syscall_filter.py)"
    )


@functools.cache
def program(arch: str | None = None) -> bytes:
    """The seccomp program for `arch` (this machine's by default), as the kernel reads it.
    Raises `FilterUnavailable` where there is no table."""
    arch = arch or machine()
    reason = unavailable_reason(arch)
    if reason is not None:
        raise FilterUnavailable(reason)
    numbers = NUMBERS[arch]
    code: list[Instruction] = [
        (LOAD_WORD, 0, 0, ARCH),
        (JUMP_EQUAL, 1, 0, AUDIT_ARCH[arch]),
        (RETURN, 0, 0, KILL_PROCESS),
        (LOAD_WORD, 0, 0, NR),
    ]
    if arch == "x86_64":  # an x32 call: its number has the bit set, and means another call
        code += [(JUMP_AT_LEAST, 0, 1, X32_SYSCALL_BIT), (RETURN, 0, 0, KILL_PROCESS)]
    for closed in CLOSED:
        if closed.name in numbers:
            code += _rule(numbers[closed.name], closed)
    code.append((RETURN, 0, 0, ALLOW))
    return b"".join(INSTRUCTION.pack(*instruction) for instruction in code)


def _rule(number: int, closed: Closed) -> list[Instruction]:
    """The instructions for one closed call, entered with its number loaded; each jumps past
    itself for any other call."""
    refuse = (RETURN, 0, 0, ERRNO | closed.errno)
    if closed.mask is not None:
        test = (JUMP_ANY_BIT, 0, 1, closed.mask)
    elif closed.value is not None:
        test = (JUMP_EQUAL, 0, 1, closed.value)
    else:
        return [(JUMP_EQUAL, 0, 1, number), refuse]
    # This call: look at its first argument, then refuse or allow it (no later rule is about it).
    argument = (LOAD_WORD, 0, 0, FIRST_ARGUMENT)
    return [(JUMP_EQUAL, 0, 4, number), argument, test, refuse, (RETURN, 0, 0, ALLOW)]


def argument(arch: str | None = None) -> str:
    """The program as the launcher's `--seccomp` option takes it (hexadecimal)."""
    return program(arch).hex()


def summary() -> str:
    """What the filter closes, in a line (for `referee doctor`)."""
    return (
        "closed: new namespaces, kernel keys, io_uring, userfaultfd, perf events, bpf, vsock, "
        "ptrace and other processes' memory, mount and the other administrator's calls"
    )
