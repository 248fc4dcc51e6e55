"""The referee runtime: bot processes, matches, records, tournaments and the command line."""

__version__ = "0.1.0"

# The `referee` command's exit codes, shared by every subcommand and the tournament session.
EXIT_OK = 0
EXIT_USAGE = 2  # a bad command line, config, record or store
EXIT_VOID = 3  # games were left void
EXIT_INTERRUPTED = 130  # Ctrl-C: finished games are kept; run again to resume
