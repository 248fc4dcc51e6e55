"""How far the final has got, for the staff page and the queue: its games finished, being
played and in all, read from the final's own store (DIR/final/tournament.sqlite), read-only,
as `referee tournament results` reads it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.tournament.store import GameState, StoreError, open_view

FINAL_DIR = "final"  # the final's tournament folder, DIR/final


@dataclass(frozen=True)
class FinalProgress:
    finished: int  # games played to their end
    running: int  # games being played now
    total: int  # games scheduled, their void attempts aside (a staged final adds its next
    # stage's games as the one before ends)


def final_progress(root: Path) -> FinalProgress | None:
    """The final's progress in the arena at `root`; None before its store exists (or when it
    cannot be read: its pages show nothing rather than fail). Blocking: reads a file."""
    try:
        view = open_view(root / FINAL_DIR)
    except StoreError:
        return None
    try:
        rows = view.games()
    except StoreError:
        return None
    finally:
        view.close()
    counted = [r for r in rows if r.state is not GameState.VOID]
    return FinalProgress(
        finished=sum(r.state is GameState.FINISHED for r in counted),
        running=sum(r.state is GameState.RUNNING for r in counted),
        total=len(counted),
    )
