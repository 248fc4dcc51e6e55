"""Who may see what of the ladder: the one place the `[visibility]` settings and the roles are
read, so that every page, JSON answer and event stream asks the same questions.

A viewer is the signed-in `Account`, or None for a visitor. Staff see everything. A student
always sees their own games, and their own side's private parts of them (stderr, the command,
what the bot wrote out of turn); others' games and the leaderboard as `[visibility]` says:
`hidden` (staff only), `participants` (any signed-in account) or `public` (anyone). Nobody but
staff ever sees another student's private parts, whatever the setting.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocols.base import Side
from referee.arena.config import Visibility, VisibilitySettings
from referee.arena.rows import Account

Viewer = Account | None


@dataclass(frozen=True)
class Owners:
    """The accounts whose versions played a game, by colour."""

    blue: int
    orange: int

    def sides_of(self, account_id: int) -> frozenset[Side]:
        found = set()
        if self.blue == account_id:
            found.add(Side.BLUE)
        if self.orange == account_id:
            found.add(Side.ORANGE)
        return frozenset(found)


def allowed_by(setting: Visibility, viewer: Viewer) -> bool:
    """What a `[visibility]` setting lets a viewer see of others' things."""
    if viewer is not None and viewer.is_staff:
        return True
    if setting == "public":
        return True
    return setting == "participants" and viewer is not None


def may_see_leaderboard(settings: VisibilitySettings, viewer: Viewer) -> bool:
    return allowed_by(settings.leaderboard, viewer)


def may_see_others_games(settings: VisibilitySettings, viewer: Viewer) -> bool:
    """Whether the viewer may see games in which no version of theirs played."""
    return allowed_by(settings.games, viewer)


def may_see_game(settings: VisibilitySettings, viewer: Viewer, owners: Owners) -> bool:
    if viewer is not None and owners.sides_of(viewer.id):
        return True
    return may_see_others_games(settings, viewer)


def private_sides(viewer: Viewer, owners: Owners) -> frozenset[Side]:
    """The sides of a game whose private parts (stderr, command, unasked lines) the viewer may
    see: both for staff, their own for a player, none for anyone else."""
    if viewer is None:
        return frozenset()
    if viewer.is_staff:
        return frozenset(Side)
    return owners.sides_of(viewer.id)


def may_see_student(viewer: Viewer, account: Account) -> bool:
    """A student's page: their own, and anyone's for staff."""
    if viewer is None:
        return False
    return viewer.is_staff or viewer.id == account.id
