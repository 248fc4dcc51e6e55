"""The compiled supervisor, launcher and sandbox (`helper.c`, `kernel.c`, `sandbox.c`), built once
per machine and kept on disk.

Every bot starts through a supervisor and, in the sandbox, an inner launcher. As the Python
programs `supervise.py` and `launch.py` they cost two interpreter starts per bot: 30-50 ms of
CPU, and as much before the bot's own start. `helper.c` is the same two programs in C, and
`kernel.c` is `kernel.py`'s steps in C (keyring, private places, the system-call filter), and
`sandbox.c` makes a bot's namespaces and private view where the referee is root (bubblewrap
does that otherwise, and without the compiled helper); the first
referee on a machine that has a C compiler (`cc`, or `$CC`) compiles it into the cache folder
(`helpers/` beside the built-in bots' tables; about 0.2 s, once), named by the hash of its
source, so a changed source is compiled again. Without a compiler, or when compiling fails, the
Python programs are used, with the same behaviour; `REFEREE_NATIVE_HELPER=0` asks for them.

The binary runs as the referee's user (root, for the users level) before the bot's confinement
is complete, so it is only used when it and its folder belong to the referee's user and nobody
else may write to them; otherwise the Python programs are used.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from referee.builtin_tables import table_cache_directory

# The sources compiled into the one program: the supervisor and launcher, their kernel steps,
# and the sandbox.
SOURCES = tuple(Path(__file__).with_name(name) for name in ("helper.c", "kernel.c", "sandbox.c"))
COMPILE_TIMEOUT = 120.0  # seconds; a compiler that hangs means no compiled helper, not no game


def _owned_and_private(path: Path) -> bool:
    """Whether `path` belongs to us and only we may write to it."""
    try:
        info = path.stat()
    except OSError:
        return False
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@functools.cache
def _digest(sources: tuple[Path, ...]) -> str:
    return hashlib.sha256(b"".join(source.read_bytes() for source in sources)).hexdigest()[:16]


def helper_path() -> Path:
    """Where the helper compiled from the current source lives (it may not exist yet)."""
    return table_cache_directory() / "helpers" / f"referee-helper-{_digest(SOURCES)}"


def _compiler() -> str | None:
    wanted = os.environ.get("CC", "cc")
    return shutil.which(wanted) or shutil.which("gcc")


def build(target: Path) -> bool:
    """Compile the helper to `target`; whether it worked. The binary appears at once and whole
    (compiled beside it, then renamed), so referees building it at the same time cannot see a
    half-written file."""
    compiler = _compiler()
    if compiler is None:
        return False
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        if not _owned_and_private(target.parent):
            return False
        handle, temporary = tempfile.mkstemp(prefix=".build-", dir=target.parent)
        os.close(handle)
        try:
            done = subprocess.run(
                [compiler, "-O2", "-o", temporary, *map(str, SOURCES)],
                capture_output=True,
                timeout=COMPILE_TIMEOUT,
                check=False,
            )
            if done.returncode != 0:
                return False
            os.chmod(temporary, 0o755)
            os.replace(temporary, target)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def native_helper() -> Path | None:
    """The compiled helper, built if it is missing; None: use the Python programs."""
    if os.environ.get("REFEREE_NATIVE_HELPER", "1") == "0":
        return None
    return helper_at(helper_path())


@functools.cache
def helper_at(target: Path) -> Path | None:
    """The helper at `target`, built if it is missing; None if it cannot be had there. Looked
    for once per place: a process that names another cache folder (`REFEREE_CACHE_DIR`) is
    never handed the helper of the folder it named before, which may be gone."""
    usable = _owned_and_private(target) and _owned_and_private(target.parent)
    if not usable and not build(target):
        return None
    return target if _owned_and_private(target) else None
