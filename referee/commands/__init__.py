"""The subcommands of `referee`: each module has `register(parser)`, which declares the
command's arguments on its own parser and sets `run`. The command's name and help line live in
the table in `cli.py`, which imports a command's module only when that command runs.

A command's `run(args, out, err) -> int` gets the parsed arguments and two rich consoles (stdout
for results that scripts read, stderr for everything people read) and returns the exit code.
Command modules never import each other: what two commands share lives in the package it belongs
to (the sessions of `referee.app`, the views, the web package).
"""

from referee import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_VOID

__all__ = ["EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "EXIT_VOID"]
