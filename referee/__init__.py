"""The referee runtime: bot processes, matches, records, tournaments and the command line."""

__version__ = "0.1.0"
