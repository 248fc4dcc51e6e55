"""The program a bot's command really runs, where a version manager stands in front of it.

A command such as `python3 bot.py` found through pyenv's shims runs a bash script
(`~/.pyenv/shims/python3`) that asks pyenv which interpreter the folder wants, then executes it.
That script needs pyenv's own files and the caller's HOME, which a contained bot does not have:
started as it is, every such bot would crash at start for a reason that is the machine's. So the
referee asks pyenv once, in the bot's folder, which interpreter the shim would run, and starts
that interpreter itself, with its folder first on the PATH, as `pyenv exec` does. What the bot
then needs of the machine (the interpreter's prefix) is what its view shows it.

A library installed with `pip install --user` lives under the caller's user base (`~/.local`),
which Python finds through HOME; a bot with a HOME of its own is told where it is
(PYTHONUSERBASE), and the sandbox shows it read-only.

A command that starts with `env NAME=VALUE ...` (how one runs a bot from a copy of some code,
`env PYTHONPATH=old python -m bots ...`) names its real program after the assignments: the
referee makes the assignments itself and starts that program, so that the program, its
interpreter and the folders the assignments name are what the bot's view shows.
"""

from __future__ import annotations

import functools
import os
import re
import site
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

SHIM_LINE = re.compile(rb'^exec "(?P<pyenv>[^"]+/libexec/pyenv)" exec "\$program"', re.MULTILINE)
PYENV_ROOT_LINE = re.compile(rb'^export PYENV_ROOT="(?P<root>[^"]+)"', re.MULTILINE)
SHIM_BYTES = 4096  # a shim is a short script; a real interpreter is not read further
ASK_TIMEOUT = 20.0


ASSIGNMENT = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$", re.DOTALL)


class ShimError(Exception):
    """A version manager's shim that does not say which interpreter it would run."""


def pyenv_of(executable: Path) -> tuple[Path, Path] | None:
    """For a pyenv shim: pyenv's own program and its root; None for any other program."""
    if executable.parent.name != "shims":
        return None
    try:
        with executable.open("rb") as file:
            head = file.read(SHIM_BYTES)
    except OSError:
        return None
    shim, root = SHIM_LINE.search(head), PYENV_ROOT_LINE.search(head)
    if shim is None or root is None:
        return None
    return Path(shim["pyenv"].decode()), Path(root["root"].decode())


def unshim(
    argv: Sequence[str], executable: Path, cwd: Path, env: Mapping[str, str]
) -> tuple[list[str], Path, dict[str, str]]:
    """The command, its program and its environment with a pyenv shim replaced by the
    interpreter it runs in `cwd` (unchanged for any other program); `ShimError` if pyenv
    cannot tell."""
    found = pyenv_of(executable)
    if found is None:
        return list(argv), executable, dict(env)
    pyenv, root = found
    version = tuple(sorted((k, v) for k, v in env.items() if k.startswith("PYENV")))
    real = _which(str(pyenv), str(root), executable.name, str(cwd), version)
    environment = dict(env)
    environment["PATH"] = os.pathsep.join([str(real.parent), env.get("PATH", "")])
    return [str(real), *argv[1:]], real, environment


def without_env(argv: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """`env NAME=VALUE... PROGRAM ARGS` as `PROGRAM ARGS` and its assignments; any other
    command (env with options of its own, or with no program) unchanged, with none."""
    if not argv or Path(argv[0]).name != "env":
        return list(argv), {}
    assignments: dict[str, str] = {}
    for index, token in enumerate(argv[1:], start=1):
        found = ASSIGNMENT.match(token)
        if found is None:
            if token.startswith("-") or "=" in token:  # env's own options, odd names: env's job
                return list(argv), {}
            return list(argv[index:]), assignments
        assignments[found["name"]] = found["value"]
    return list(argv), {}


@functools.cache
def _which(
    pyenv: str, root: str, name: str, cwd: str, variables: tuple[tuple[str, str], ...]
) -> Path:
    """`pyenv which NAME` in `cwd` (a bash script: about 30 ms, so asked once per folder)."""
    environment = {**os.environ, **dict(variables), "PYENV_ROOT": root}
    try:
        done = subprocess.run(
            [pyenv, "which", name],
            cwd=cwd,
            env=environment,
            capture_output=True,
            timeout=ASK_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ShimError(f"pyenv could not say which {name} it runs here: {exc}") from None
    said = done.stdout.decode(errors="replace").strip()
    if done.returncode != 0 or not said:
        why = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
        raise ShimError(f"pyenv could not say which {name} it runs in {cwd}: {why}")
    return Path(said).absolute()


def user_base() -> Path | None:
    """The caller's user base (`pip install --user` installs there), if it has one."""
    base = Path(site.getuserbase())
    return base if base.is_dir() else None


def user_site_environment() -> dict[str, str]:
    """PYTHONUSERBASE for a bot whose HOME is not the caller's, so that libraries the caller
    installed with `pip install --user` are found (nothing where the caller has none)."""
    base = user_base()
    if base is None or "PYTHONUSERBASE" in os.environ:
        return {}
    return {"PYTHONUSERBASE": str(base)}
