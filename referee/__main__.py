"""`python -m referee` is the `referee` command."""

import sys

try:
    from referee.cli import program
except KeyboardInterrupt:  # Ctrl-C while the command line itself loads: nothing was started
    print("interrupted", file=sys.stderr)
    sys.exit(130)

program()
