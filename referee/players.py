"""Player commands: short names for the built-in bots (`builtin:random`) and command checks."""

from __future__ import annotations

import json
import shlex
import sys

from protocols.base import GameOptions

BUILTIN_PREFIX = "builtin:"


def resolve_command(command: str, game: str, options: GameOptions | None = None) -> str:
    """Expand `builtin:NAME [args]` to the command that runs that built-in bot for `game`.

    Game options are not sent on the wire, so a built-in bot is told them on its command line
    (only those that differ from the defaults). Any other command is returned unchanged.
    """
    stripped = command.strip()
    if not stripped.startswith(BUILTIN_PREFIX):
        return command
    name, _, rest = stripped[len(BUILTIN_PREFIX) :].partition(" ")
    argv = [sys.executable, "-m", "bots", name, "--game", game]
    changed = options.model_dump(mode="json", exclude_defaults=True) if options else {}
    if changed:
        argv += ["--options", json.dumps(changed, separators=(",", ":"))]
    return shlex.join(argv) + (f" {rest.strip()}" if rest.strip() else "")
