"""What a tournament's pre-flight found, as the terminal shows it: a warning for a bot that
starts but runs as root, a line for each bot that cannot start (or that the machine could not
run) with why, then the refusal that stops the run, if any."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

from rich.console import Console

from referee.printable import printable
from referee.tournament.preflight import StartCheck


def starting_bots(err: Console, count: int) -> AbstractContextManager[object]:
    """The line shown while `count` bots start once."""
    return err.status(f"starting each of {count} bots once...")


def show_start_checks(err: Console, checks: Sequence[StartCheck], refusal: str | None) -> None:
    """Each check's warning and problem, then `refusal` (None: the run goes on)."""
    for check in checks:
        if check.warning is not None:  # it names the bot
            err.print(printable(check.warning), markup=False, highlight=False)
        if check.problem is not None:
            what = "cannot start"
            if check.machine_failed:
                what = "cannot run here" if check.unreachable else "the machine failed"
            # The problem may quote the bot (its last words on stderr): shown, never obeyed.
            shown = f"{printable(check.name)}: {what}: {printable(check.problem)}"
            err.print(shown, markup=False, highlight=False)
    if refusal is not None:
        err.print(f"referee: {refusal}", markup=False, highlight=False)
