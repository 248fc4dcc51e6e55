"""The Swiss format on constructed fields (no pair meets twice, one bye each at most, colours
balanced, tie-breaks, the same rounds for the same seed) and played by the runner."""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console

from referee.app.config import load_config
from referee.tournament.config import ConfigError, TournamentConfig
from referee.tournament.report import build_report, standings_csv
from referee.tournament.resume import open_tournament
from referee.tournament.runner import Runner
from referee.tournament.store import GameRow, GameState, TournamentInfo, open_view
from referee.views.tournament import stage_view
from tests.tournament.test_formats_rules import config, play, stronger


@pytest.mark.parametrize("players", [2, 7, 8, 13])
def test_no_rematch_one_bye_at_most_and_balanced_colours(players: int) -> None:
    cfg = config("swiss", players)
    plan, rows = play(cfg, stronger)
    (stage,) = plan.stages
    rounds = (players + 1) // 2
    assert len(stage.rounds) == rounds and plan.finished
    pairs = [frozenset((r.blue, r.orange)) for r in rows]
    assert len(pairs) == len(set(pairs))  # nobody met twice
    byes = Counter(r.bye for r in stage.rounds if r.bye)
    assert all(n == 1 for n in byes.values()) and len(byes) == rounds * (players % 2)
    blues = Counter(r.blue for r in rows)
    oranges = Counter(r.orange for r in rows)
    for name in cfg.player_names:
        assert abs(blues[name] - oranges[name]) <= 2
    # Scores: a win 1, a bye 1; the strongest wins every game.
    top = stage.standings[0]
    assert (top.name, top.score) == ("p00", float(rounds))
    assert [line.rank for line in stage.standings] == list(range(1, players + 1))


def test_draws_and_tiebreaks() -> None:
    cfg = config("swiss", 6, swiss={"rounds": 3})
    plan, _ = play(cfg, lambda g: "draw")
    standings = plan.stages[0].standings
    assert all(line.score == 1.5 for line in standings)
    assert all(line.buchholz == 4.5 and line.sonneborn_berger == 2.25 for line in standings)
    again, _ = play(cfg, lambda g: "draw")
    assert again == plan


def test_void_games_count_as_a_meeting_worth_nothing() -> None:
    cfg = config("swiss", 4, swiss={"rounds": 2})
    plan, rows = play(cfg, lambda g: "void" if g.number == 1 else stronger(g))
    first = plan.stages[0].rounds[0].pairs[0]
    assert first.result == "0-0"
    met = [frozenset((r.blue, r.orange)) for r in rows]
    assert len(met) == len(set(met))
    scores = {line.name: line.score for line in plan.stages[0].standings}
    assert sum(scores.values()) == 3.0  # three games played and won, one void


def test_too_many_rounds_are_refused_at_their_line(tmp_path: Path) -> None:
    path = tmp_path / "swiss.toml"
    players = "".join(f'[[players]]\nname = "p{i}"\ncommand = "x"\n' for i in range(4))
    text = f'name = "s"\ngame = "alak"\nformat = "swiss"\n\n[swiss]\nrounds = {{}}\n\n{players}'
    path.write_text(text.format(4))
    refusal = (
        r"swiss.toml:6: swiss.rounds: 4 players can play 3 rounds at most \(by then everybody "
        r"has met everybody\); 2 can always be paired, and a later round that cannot be paired "
        r"without a rematch ends the Swiss early"
    )
    with pytest.raises(ConfigError, match=refusal):
        load_config(path)
    path.write_text(text.format(3))
    assert load_config(path).config.swiss.rounds == 3


def test_rounds_past_those_that_always_pair_are_played_when_they_pair() -> None:
    cfg = config("swiss", 6, swiss={"rounds": 4})
    plan, rows = play(cfg, stronger)
    (stage,) = plan.stages
    assert len(stage.rounds) == 4 and plan.finished and stage.note == ""
    met = [frozenset((r.blue, r.orange)) for r in rows]
    assert len(met) == 12 == len(set(met))


def test_a_round_that_cannot_be_paired_ends_the_swiss_and_says_so() -> None:
    # Three rounds of draws leave two triangles of players yet to meet: no fourth round.
    cfg = config("swiss", 6, swiss={"rounds": 4})
    plan, rows = play(cfg, lambda g: "draw")
    (stage,) = plan.stages
    assert len(stage.rounds) == 3 and len(rows) == 9 and plan.finished
    assert stage.note == "ended after 3 of 4 rounds: round 4 cannot be paired without a rematch"
    shown = Console(width=100, file=io.StringIO())
    shown.print(stage_view(stage))
    assert "Swiss ended after 3 of 4 rounds: round 4 cannot be paired" in shown.file.getvalue()
    notes = plan.placing_notes
    assert all(note.startswith("1.5 points") for note in notes.values())


def test_a_placing_note_says_1_point() -> None:
    cfg = config("swiss", 3, swiss={"rounds": 1})
    plan, _ = play(cfg, stronger)
    assert sorted(n.split(",")[0] for n in plan.placing_notes.values()) == [
        "0 points",
        "1 point",
        "1 point",
    ]


async def test_a_swiss_played_by_the_runner(tmp_path: Path) -> None:
    players = "".join(
        f'[[players]]\nname = "b{i}"\ncommand = "builtin:{kind} --seed {{seed}}"\n'
        for i, kind in enumerate(["random", "greedy", "random", "greedy", "random"])
    )
    path = tmp_path / "swiss.toml"
    path.write_text(
        'name = "s"\ngame = "tic-tac-toe"\nformat = "swiss"\nconcurrency = 2\n'
        '[swiss]\nrounds = 3\n[match.isolation]\nlevel = "basic+root"\n' + players
    )
    loaded = load_config(path)
    store, first = open_tournament(loaded)
    assert len(first) == 2  # five players: two boards and a bye
    try:
        final = await Runner(loaded, store).run(handle_signals=False)
    finally:
        store.close()
    assert final.complete
    view = open_view(loaded.directory)
    try:
        report = build_report(view)
        rows = view.games()
    finally:
        view.close()
    assert len(rows) == 6 and {r.state for r in rows} == {GameState.FINISHED}
    assert report.plan is not None and report.plan.finished
    (stage,) = report.plan.stages
    assert [len(r.pairs) for r in stage.rounds] == [2, 2, 2]
    assert len({r.bye for r in stage.rounds}) == 3


class _StoredRows:
    """What `build_report` reads of a store, for games decided without a store."""

    def __init__(self, cfg: TournamentConfig, rows: list[GameRow], directory: Path) -> None:
        self.config, self.rows, self.directory = cfg, rows, directory

    def info(self) -> TournamentInfo:
        dumped = self.config.model_dump(mode="json")
        return TournamentInfo("t", self.config.game, dumped, {}, "2026-01-05T09:00:00+00:00")

    def players(self) -> list[str]:
        return self.config.player_names

    def games(self) -> list[GameRow]:
        return self.rows

    def record_path(self, row: GameRow) -> Path | None:
        return None


def test_the_csv_gives_the_swiss_tiebreaks_of_its_table(tmp_path: Path) -> None:
    # Five players, three rounds, one draw: byes, Buchholz and Sonneborn-Berger all differ.
    cfg = config("swiss", 5, swiss={"rounds": 3})
    plan, rows = play(cfg, lambda g: "draw" if g.number == 2 else stronger(g))
    report = build_report(_StoredRows(cfg, rows, tmp_path))  # type: ignore[arg-type]
    table = {line.name: line for line in plan.stages[0].standings}
    csv_rows = list(csv.DictReader(io.StringIO(standings_csv(report.standings))))
    assert [r["name"] for r in csv_rows] == [line.name for line in plan.stages[0].standings]
    for r in csv_rows:
        line = table[r["name"]]
        assert float(r["score"]) == line.score
        assert float(r["buchholz"]) == line.buchholz
        assert float(r["buchholz_cut1"]) == line.buchholz_cut1
        assert float(r["sonneborn_berger"]) == line.sonneborn_berger
        assert int(r["byes"]) == line.byes
    assert len({line.sonneborn_berger for line in table.values()}) > 2
