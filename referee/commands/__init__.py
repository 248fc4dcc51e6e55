"""The subcommands of `referee`: each module has `register(subparsers)` and sets `run`.

A command's `run(args, out, err) -> int` gets the parsed arguments and two rich consoles (stdout
for results that scripts read, stderr for everything people read) and returns the exit code.
"""

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_VOID = 3
EXIT_INTERRUPTED = 130
