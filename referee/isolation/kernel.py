"""What the launcher asks of the kernel for a bot, besides limits and its user: the system-call
filter.

Loaded by the launcher (`launch.py`, run by path: standard library only, and nothing imported
after the switch to the bot's user, who may not read this interpreter's files). `kernel.c` is the
compiled helper's copy of these steps.

- `install_filter`: no-new-privileges, then the seccomp program the referee built
  (`syscall_filter.py`): the last step before exec.
"""

from __future__ import annotations

import ctypes
import os

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2

_libc = ctypes.CDLL(None, use_errno=True)


class KernelRefused(Exception):
    """A step the kernel refused: its message says which, and why."""


def _failed(what: str) -> KernelRefused:
    return KernelRefused(f"{what}: {os.strerror(ctypes.get_errno())}")


class _Program(ctypes.Structure):
    _fields_ = [("length", ctypes.c_ushort), ("instructions", ctypes.c_void_p)]


def install_filter(program: bytes) -> None:
    """No new privileges, then the seccomp program (8 bytes an instruction)."""
    one = ctypes.c_ulong(1)
    zero = ctypes.c_ulong(0)
    if _libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), one, zero, zero, zero) != 0:
        raise _failed("cannot set no-new-privileges")
    instructions = ctypes.create_string_buffer(program, len(program))
    fprog = _Program(len(program) // 8, ctypes.addressof(instructions))
    mode = ctypes.c_ulong(SECCOMP_MODE_FILTER)
    if _libc.prctl(ctypes.c_int(PR_SET_SECCOMP), mode, ctypes.byref(fprog), zero, zero) != 0:
        raise _failed("cannot install the system-call filter")
