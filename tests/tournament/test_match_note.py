"""A match opened again with another clock (referee/app/match_session.py): the note that the
games already played had another time control is returned as a value for the command to say;
opening it prints nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.app.match_session import MatchRequest, open_match
from referee.app.tournament_session import SessionSettings, play_tournament
from referee.tournament.match_setup import MatchSpec

PLAYERS = (("ann", "builtin:random --seed 1"), ("ben", "builtin:random --seed 2"))


def request(folder: Path, clock: float) -> MatchRequest:
    time_control = {"clock_total": clock, "clock_increment": 0.0}
    spec = MatchSpec("tic-tac-toe", PLAYERS, 2, time_control=time_control, folder=folder)
    return MatchRequest(spec, folder / "m", None, "pentanomial")


def test_the_other_time_control_is_returned_not_printed(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    first = open_match(request(tmp_path, 30.0))
    assert first.note is None and not first.tally.scores
    final = play_tournament(first.loaded, settings=SessionSettings(concurrency=1))
    assert final is not None and final.finished == 2

    same = open_match(request(tmp_path, 30.0))
    assert same.note is None and len(same.tally.scores) == 2
    other = open_match(request(tmp_path, 60.0))
    assert other.note is not None and "had another time control" in other.note
    assert len(other.tally.scores) == 2
    assert capfd.readouterr() == ("", "")
