"""The links of every page's navigation bar: those of the pages the viewer may open (a link to a
page that would answer 404 or send them to the login page is left out): the ladder's pages, a
student's uploads and grade, the staff's pages, the versions of all and the grades."""

from __future__ import annotations

from referee.arena.config import VisibilitySettings
from referee.arena.visibility import Viewer, may_see_leaderboard, may_see_others_games


def links(settings: VisibilitySettings, viewer: Viewer) -> list[tuple[str, str]]:
    """(address, label) of each page the viewer may open."""
    found = []
    if may_see_leaderboard(settings, viewer):
        found.append(("/leaderboard", "Leaderboard"))
    if viewer is not None or may_see_others_games(settings, viewer):
        found += [("/games", "Games"), ("/queue", "Queue")]
    if viewer is not None and not viewer.is_staff:
        found.append((f"/students/{viewer.id}", "My page"))
        found += [("/versions", "Upload"), ("/grades", "Grade")]
    if viewer is not None and viewer.is_staff:
        found += [("/staff", "Staff"), ("/versions", "Versions"), ("/staff/grades", "Grades")]
    return found
