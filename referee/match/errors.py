"""A bug of the referee's own is loud: its traceback on stderr and in the run's log.

The game it happened in is voided as `referee-error` (never blamed on a bot, never counted as
the machine's failure), and the record's detail names the exception and where its traceback
was written. `REFEREE_ERROR_LOG`, when set, names one more file every referee error is appended
to, whatever the run (a CI job or a course machine collecting them; the test suite fails a test
that caused one).
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

from referee.records import utc_now

ERROR_LOG_ENV = "REFEREE_ERROR_LOG"
ERROR_MARK = "referee error"  # how an entry starts, in every log it is written to


def report_referee_error(exc: BaseException, where: str, log: Path | None) -> str:
    """Write `exc` with its traceback, saying `where` it happened, to stderr, to the run's
    `log` and to `$REFEREE_ERROR_LOG`; the one-line detail for the game's record."""
    text = "".join(traceback.format_exception(exc))
    entry = f"{utc_now().isoformat()} {ERROR_MARK} in {where}:\n{text}"
    sys.stderr.write(entry)
    sys.stderr.flush()
    if (extra := os.environ.get(ERROR_LOG_ENV)) is not None:
        _append(Path(extra), entry)
    kept = (
        f"traceback in {log}" if log is not None and _append(log, entry) else "traceback on stderr"
    )
    return f"{type(exc).__name__}: {exc} ({kept})"


def _append(path: Path, entry: str) -> bool:
    """Append `entry` to `path` in one write; False if it cannot be written (stderr has it)."""
    try:
        with path.open("a", encoding="utf-8") as file:
            file.write(entry)
    except OSError:
        return False
    return True
