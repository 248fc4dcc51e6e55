"""Each bot in a Landlock domain of its own: no other process of the machine is within its reach.

A process in a Landlock domain may trace only processes of its own domain (or of domains made
inside it): the kernel's ptrace check, which also guards another process's `/proc/PID/mem`,
`/proc/PID/fd`, `environ` and `maps`, refuses it every process outside, whoever runs them, its
opponent's above all. From Landlock's ABI 6 on, a domain can also be scoped: it then sends no
signal to a process outside it and reaches no abstract unix socket made outside it. That is
what keeps two bots apart at the levels where nothing else does: at `basic` under a referee that
is not root both run as the referee's own user, which the kernel otherwise lets read and write
each other's memory and descriptors and signal each other (and the referee).

The launcher makes the domain, as its last step before the system-call filter, for every bot at
every level (the compiled helper and the Python program alike: `kernel.own_domain`). Its ruleset
restricts nothing a bot needs of the file system; the referee chooses it for the kernel's ABI,
once, and hands it to the launcher (`--landlock FS,SCOPED`), as it does the filter:

- ABI 6 and later: no file-system right handled at all, the signal and abstract-socket scopes;
- ABI 2 to 5: only the right to move a file to another folder (`REFER`) handled, and granted
  beneath `/`: nothing is restricted, but a domain is made (renaming works as without it);
- ABI 1: only the right to make a block device handled (no bot may make one anyway); renaming
  or linking a file into another folder then fails with `EXDEV`, as across file systems, which
  Landlock's first version does to every domain (`mv` and most libraries copy instead);
- no Landlock (a kernel before 5.13, or one that did not enable it at boot): no domain; `referee
  doctor` and docs/isolation.md say what that leaves open at the levels without users of their
  own or a sandbox.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from referee.isolation import kernel

ACCESS_FS_MAKE_BLOCK = 1 << 11  # linux/landlock.h: LANDLOCK_ACCESS_FS_MAKE_BLOCK (ABI 1)
ACCESS_FS_REFER = kernel.LANDLOCK_ACCESS_FS_REFER  # ABI 2: granted beneath / by the launcher
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6
FIRST_SCOPED_ABI = 6
FIRST_REFER_ABI = 2


@dataclass(frozen=True)
class Ruleset:
    """What a bot's domain handles: file-system rights (none a bot needs) and scopes."""

    handled_fs: int
    scoped: int

    def argument(self) -> str:
        """As the launcher's `--landlock` option takes it."""
        return f"{self.handled_fs},{self.scoped}"


@functools.cache
def abi() -> int:
    """The Landlock ABI this kernel offers (0: none)."""
    return kernel.landlock_abi()


def ruleset_for(version: int) -> Ruleset | None:
    """The ruleset a bot's domain is made with on a kernel of Landlock ABI `version` (see the
    module docstring); None where there is no Landlock."""
    if version >= FIRST_SCOPED_ABI:
        return Ruleset(0, SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET)
    if version >= FIRST_REFER_ABI:
        return Ruleset(ACCESS_FS_REFER, 0)
    if version >= 1:
        return Ruleset(ACCESS_FS_MAKE_BLOCK, 0)
    return None


def argument() -> str | None:
    """This kernel's ruleset as the launcher's `--landlock` option (None: no domain)."""
    ruleset = ruleset_for(abi())
    return None if ruleset is None else ruleset.argument()


def summary() -> str:
    """What the domain gives each bot here, in a line (for `referee doctor`)."""
    version = abi()
    if version == 0:
        return (
            "other processes: no Landlock in this kernel: at a level without users and "
            "without the sandbox, a bot may read and write the memory and descriptors of every "
            "process of its user, its opponent's and the referee's among them, and signal them"
        )
    scopes = ", signal it or reach its abstract sockets" if version >= FIRST_SCOPED_ABI else ""
    line = f"other processes: each bot in a Landlock domain of its own (ABI {version}): it may "
    line += f"not trace a process outside it, read its memory or descriptors{scopes}"
    if version < FIRST_SCOPED_ABI:
        line += " (no scopes before ABI 6: without users it may still signal its user's)"
    return line
