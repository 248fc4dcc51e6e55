"""Player commands: short names for the built-in bots (`builtin:random`) and command checks."""

from __future__ import annotations

import shlex
import sys

BUILTIN_PREFIX = "builtin:"


def resolve_command(command: str, game: str) -> str:
    """Expand `builtin:NAME [args]` to the command that runs that built-in bot for `game`.

    Any other command is returned unchanged.
    """
    stripped = command.strip()
    if not stripped.startswith(BUILTIN_PREFIX):
        return command
    name, _, rest = stripped[len(BUILTIN_PREFIX) :].partition(" ")
    argv = [sys.executable, "-m", "bots", name, "--game", game]
    return shlex.join(argv) + (f" {rest.strip()}" if rest.strip() else "")
