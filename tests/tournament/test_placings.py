"""A staged tournament has one order: the format's final order, each place with what decided it,
and the standings (table, CSV, JSON) in that order with the place as a column of its own."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path
from typing import Any

from referee.tournament.config import TournamentConfig
from referee.tournament.formats.ties import loser
from referee.tournament.report import Report, build_report, standings_csv
from referee.tournament.schedule import ScheduledGame
from referee.tournament.standings import points_text
from referee.tournament.store import GameRow, TournamentInfo
from tests.tournament.test_formats_rules import config, play, stronger

GROUP_A = ["p00", "p01", "p02", "p03", "p04"]
GROUP_B = ["p05", "p06", "p07", "p08", "p09"]


class PaperView:
    """A store's read-only view of games decided on paper (what `build_report` reads)."""

    def __init__(self, cfg: TournamentConfig, rows: list[GameRow]) -> None:
        self.cfg, self.rows = cfg, rows
        self.directory = Path("/nonexistent/t")

    def info(self) -> TournamentInfo:
        raw = self.cfg.model_dump(mode="json")
        return TournamentInfo("t", self.cfg.game, raw, {}, "2025-01-01T00:00:00+00:00")

    def players(self) -> list[str]:
        return self.cfg.player_names

    def games(self) -> list[GameRow]:
        return self.rows

    def record_path(self, row: GameRow) -> Path | None:
        return None


def report_of(cfg: TournamentConfig, rows: list[GameRow]) -> Report:
    view: Any = PaperView(cfg, rows)
    return build_report(view)


def group_fate(game: ScheduledGame) -> str:
    """Group A: p00 and p01 beat everybody, p02-p04 forfeit every game among themselves (0
    points each). Group B: p05 and p06 beat everybody, then p07 > p08 > p09. Later: the lower
    number wins."""
    a, b = sorted(game.players)
    if {a, b} <= {"p02", "p03", "p04"}:
        return "forfeit"
    return a


def test_players_out_at_the_same_place_are_ordered_by_their_points_and_it_is_said() -> None:
    cfg = config("stages", 10, stages={"groups": {"Group A": GROUP_A, "Group B": GROUP_B}})
    plan, _ = play(cfg, group_fate)
    # Third in their groups: p07 with 8 points, then Group A's three left level with none.
    assert plan.placings[4:] == ["p07", "p02", "p03", "p04", "p08", "p09"]
    notes = plan.placing_notes
    assert notes["p07"] == "out in the First Round: 3rd in Group B, 8 pts in 8 games"
    assert notes["p02"] == (
        "out in the First Round: 3rd in Group A, 0 pts in 8 games (level), then by name"
    )
    assert notes["p08"] == "out in the First Round: 4th in Group B, 4 pts in 8 games"
    assert notes["p00"].startswith(("won the Championship", "lost the Championship"))
    assert set(notes) == set(plan.placings)


def test_the_standings_follow_the_final_order_with_the_place_and_its_reason() -> None:
    cfg = config("stages", 10, stages={"groups": {"Group A": GROUP_A, "Group B": GROUP_B}})
    plan, rows = play(cfg, group_fate)
    report = report_of(cfg, rows)
    assert [s.name for s in report.standings] == plan.placings
    assert [s.place for s in report.standings] == list(range(1, 11))
    assert [s.rank for s in report.standings] == list(range(1, 11))
    assert [s.decided_by for s in report.standings] == [
        plan.placing_notes[name] for name in plan.placings
    ]
    table = list(csv.DictReader(io.StringIO(standings_csv(report.standings))))
    assert [(row["place"], row["name"]) for row in table][4:6] == [("5", "p07"), ("6", "p02")]
    assert table[4]["decided_by"] == "out in the First Round: 3rd in Group B, 8 pts in 8 games"


def knockout_fate(game: ScheduledGame) -> str:
    """Each game to blue or orange by a draw fixed by its number: a knockout in which the
    runner-up takes more points than the champion (the final went to extra games)."""
    return game.players[random.Random(f"8/{game.number}").randrange(2)]


def test_a_knockouts_first_csv_row_is_the_champion_not_the_most_points() -> None:
    cfg = config("knockout", 5, knockout={"games": 2})
    plan, rows = play(cfg, knockout_fate)
    report = report_of(cfg, rows)
    champion = plan.placings[0]
    assert plan.placing_notes[champion].startswith("won the Final")
    by_points = max(report.standings, key=lambda s: s.points)
    assert by_points.name != champion  # the case where the two orders differ
    table = list(csv.DictReader(io.StringIO(standings_csv(report.standings))))
    assert (table[0]["name"], table[0]["place"], table[0]["rank"]) == (champion, "1", "1")
    assert [row["name"] for row in table] == plan.placings
    out_in_semis = [n for n in plan.placings if plan.placing_notes[n].startswith("out in the Semi")]
    assert [plan.placing_notes[n] for n in out_in_semis] == [
        f"out in the Semi-final, seed {cfg.player_names.index(n) + 1}" for n in out_in_semis
    ]


def test_a_swiss_says_which_tie_break_orders_players_on_the_same_score() -> None:
    cfg = config("swiss", 6)
    plan, rows = play(cfg, knockout_fate)
    report = report_of(cfg, rows)
    assert [s.name for s in report.standings] == plan.placings
    lines = {line.name: line for line in plan.stages[0].standings}
    for i, name in enumerate(plan.placings):
        note, score = plan.placing_notes[name], lines[name].score
        assert note.startswith(points_text(score))
        neighbours = [plan.placings[j] for j in (i - 1, i + 1) if 0 <= j < len(plan.placings)]
        if all(lines[n].score != score for n in neighbours):
            assert note == points_text(score)
        else:
            assert ", Buchholz " in note


def test_an_unfinished_staged_tournament_has_no_places_yet() -> None:
    cfg = config("knockout", 5, knockout={"games": 2})
    _, rows = play(cfg, knockout_fate)
    report = report_of(cfg, rows[:2])
    assert all(s.place is None and s.decided_by == "" for s in report.standings)
    assert [s.rank for s in report.standings] == sorted(s.rank for s in report.standings)


def test_a_tie_is_told_from_each_players_own_side() -> None:
    cfg = config("knockout", 2, knockout={"games": 2})  # 2 points a win
    plan, _ = play(cfg, stronger)
    assert [plan.placing_notes[name] for name in plan.placings] == [
        "won the Final (4-0)",
        "lost the Final (0-4)",
    ]
    # The lower seed wins: its points first too, and the higher seed's second.
    plan, _ = play(cfg, lambda game: "p01")
    assert plan.placing_notes == {"p01": "won the Final (4-0)", "p00": "lost the Final (0-4)"}
    # A level tie decided by a rule says so on both sides.
    plan, _ = play(cfg, lambda game: "draw")
    (tie,) = plan.stages[-1].ties
    assert tie.decided_by != "games" and tie.first_points == tie.second_points
    level = f"{tie.first_points}-{tie.second_points}, {tie.decided_by}"
    assert plan.placing_notes == {
        tie.winner: f"won the Final ({level})",
        loser(tie): f"lost the Final ({level})",
    }


def test_the_standings_csv_writes_flags_as_words_separated_by_spaces() -> None:
    # As the league's CSV writes them: a cell a spreadsheet or `cut` reads, not a Python list.
    cfg = config("stages", 10, stages={"groups": {"Group A": GROUP_A, "Group B": GROUP_B}})
    _, rows = play(cfg, group_fate)
    report = report_of(cfg, rows)
    flagged = report.standings[0].model_copy(update={"elo_flags": ["provisional", "alone"]})
    table = list(csv.DictReader(io.StringIO(standings_csv([flagged]))))
    assert table[0]["elo_flags"] == "provisional alone"
