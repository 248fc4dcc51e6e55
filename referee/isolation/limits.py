"""Resource limits of one bot: what each limit means, its default, and how it is enforced.

The defaults let an ordinary Python, Java (JVM) or compiled bot run comfortably; a tournament or
a match may tighten or loosen them. Every limit is applied in the bot's own process before its
program starts (by `referee/launch.py`), so nothing runs unlimited even for a moment.

How each limit is enforced:

- `memory_mb`: the memory the bot's whole process tree may use. With the cgroup level this is the
  cgroup's memory limit (resident memory, page cache and private /tmp included): a bot that goes
  over it is killed by the kernel and the verdict says so. Without cgroups it falls back to
  `RLIMIT_DATA` per process (heap and private writable mappings): allocation fails inside the bot
  (a `MemoryError`, `OutOfMemoryError` or NULL from malloc). An address-space limit
  (`RLIMIT_AS`) is never used: the JVM and Node reserve far more address space than they touch
  and would not even start.
- `cpu_seconds`: CPU time per process (`RLIMIT_CPU`): SIGXCPU at the limit, SIGKILL a second
  later. It catches a bot that burns CPU in the background for a whole game; the per-move time
  limit is the match's business.
- `processes`: processes and threads. The cgroup level enforces it on the whole tree
  (`pids.max`). Otherwise it is `RLIMIT_NPROC`, which the kernel counts per user: it is only
  applied when the bot runs under a user of its own (the users level), since for a shared user it
  would count the referee's processes too, and root is exempt from it.
- `file_size_mb`: the largest file the bot may write (`RLIMIT_FSIZE`); a write beyond it fails
  (EFBIG; SIGXFSZ kills programs that do not ignore it).
- `open_files`: open file descriptors per process (`RLIMIT_NOFILE`).
- `tmp_mb`: all the bot may write in its private writable space, not only per file: where the
  referee is root, at every level, one tmpfs of this size holds the bot's private /tmp (its HOME
  and TMPDIR), /var/tmp, /dev/shm and /run/lock; in the sandbox of a referee that is not root,
  each of these is a tmpfs of this size (with cgroups it also counts towards `memory_mb`). A bot
  that fills it gets ENOSPC. What a bot with a user of its own leaves in the machine's
  world-writable directories is removed after the game (see `referee/isolation/scratch.py`).
- Core dumps are always off (`RLIMIT_CORE` 0): a crashing bot must not fill the disk.

`None` switches a limit off.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MB = 1024 * 1024


class Limits(BaseModel):
    """The resource limits of one bot process tree; see the module docstring."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_mb: int | None = Field(
        1024, ge=16, description="memory of the whole bot (cgroup), else heap per process"
    )
    cpu_seconds: int | None = Field(1800, ge=1, description="CPU seconds per process")
    processes: int | None = Field(512, ge=4, description="processes and threads of the bot")
    file_size_mb: int | None = Field(64, ge=1, description="largest file the bot may write")
    open_files: int | None = Field(512, ge=16, description="open file descriptors per process")
    tmp_mb: int = Field(64, ge=1, description="all the bot may write in its private /tmp and HOME")

    def rlimits(self, *, memory_by_rlimit: bool, nproc: bool) -> list[tuple[str, int, int | None]]:
        """The `setrlimit` calls for the bot, as (resource name, soft, hard or None = soft).

        `memory_by_rlimit`: no cgroup enforces `memory_mb`, so `RLIMIT_DATA` stands in.
        `nproc`: the bot has a user of its own, so `RLIMIT_NPROC` counts only the bot.
        """
        calls: list[tuple[str, int, int | None]] = [("RLIMIT_CORE", 0, 0)]
        if self.cpu_seconds is not None:
            # The hard limit one second later: SIGXCPU first (a verdict we can name), then KILL.
            calls.append(("RLIMIT_CPU", self.cpu_seconds, self.cpu_seconds + 1))
        if self.file_size_mb is not None:
            calls.append(("RLIMIT_FSIZE", self.file_size_mb * MB, None))
        if self.open_files is not None:
            calls.append(("RLIMIT_NOFILE", self.open_files, None))
        if memory_by_rlimit and self.memory_mb is not None:
            calls.append(("RLIMIT_DATA", self.memory_mb * MB, None))
        if nproc and self.processes is not None:
            calls.append(("RLIMIT_NPROC", self.processes, None))
        return calls

    def summary(self) -> str:
        """One line for people: the limits in force."""
        parts = [
            f"memory {_value(self.memory_mb, 'MB')}",
            f"CPU {_value(self.cpu_seconds, 's')}",
            f"processes {_value(self.processes, '')}",
            f"file size {_value(self.file_size_mb, 'MB')}",
            f"open files {_value(self.open_files, '')}",
            f"private /tmp and HOME {self.tmp_mb} MB",
        ]
        return ", ".join(parts)


def _value(value: int | None, unit: str) -> str:
    return "unlimited" if value is None else f"{value}{' ' + unit if unit else ''}"
