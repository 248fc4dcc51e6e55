"""A tournament session's pre-flight (referee/app/preflight.py) returns what starting each bot
once found, and the refusal that stops the run, as values: it prints nothing. The terminal's
view of them (referee/views/start_checks.py) says each problem, then the refusal."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import trio
from rich.console import Console

from referee.app.config import load_config
from referee.app.preflight import preflight, start_refusal
from referee.app.session_open import OpenedSession, Refused, open_session
from referee.tournament.preflight import StartCheck
from referee.tournament.resume import open_tournament
from referee.tournament.roster import Roster
from referee.tournament.runner import tournament_host
from referee.views.start_checks import show_start_checks

CONFIG = """\
name = "cup"
game = "tic-tac-toe"
games_per_pairing = 2
[[players]]
name = "ann"
command = "builtin:random --seed 1"
[[players]]
name = "typo"
command = "python3 mian.py"
"""


def test_the_checks_and_the_refusal_are_returned_and_nothing_is_printed(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cup.toml").write_text(CONFIG)
    loaded = load_config(tmp_path / "cup.toml")
    roster = Roster.of(loaded)
    store, _ = open_tournament(loaded)
    try:
        isolation = tournament_host(loaded, roster).isolation
        found = trio.run(lambda: preflight(loaded, roster, store, isolation, 2, allow_broken=False))
    finally:
        store.discard(made_directory=True)
    assert capfd.readouterr() == ("", "")
    assert [c.name for c in found.checks] == ["ann", "typo"]
    ann, typo = found.checks
    assert ann.problem is None and typo.broken and "mian.py" in (typo.problem or "")
    assert found.refusal is not None
    assert found.refusal.startswith("not starting the tournament: typo cannot start. ")


def test_a_bot_the_machine_cannot_run_stops_the_run_even_when_broken_bots_are_allowed(
    tmp_path: Path,
) -> None:
    (tmp_path / "cup.toml").write_text(CONFIG)
    loaded = load_config(tmp_path / "cup.toml")
    checks = [
        StartCheck("ann", "its folder is out of reach", machine_failed=True, unreachable=True),
        StartCheck("typo", "exited with code 1"),
    ]
    assert start_refusal(checks, loaded, allow_broken=True) == (
        "not starting the tournament: this machine cannot run ann as a user of its own "
        "(above: the path and the fix)."
    )
    assert start_refusal(checks[1:], loaded, allow_broken=True) is None
    assert start_refusal(checks[1:], loaded, allow_broken=False) == (
        f"not starting the tournament: typo cannot start. Fix the command in {loaded.path} and "
        "run again, or add --allow-broken to score their games as losses."
    )
    in_its_words = start_refusal(
        checks[1:],
        loaded,
        allow_broken=False,
        refuse_broken=lambda names: f"not starting the match: {', '.join(names)} cannot start",
    )
    assert in_its_words == "not starting the match: typo cannot start"


def test_the_view_says_each_problem_then_the_refusal() -> None:
    text = io.StringIO()
    err = Console(file=text, width=200, color_system=None)
    checks = [
        StartCheck("ann", warning="ann runs as root"),
        StartCheck("ben", "exited with code 1"),
        StartCheck("cy", "no memory", machine_failed=True),
    ]
    show_start_checks(err, checks, "not starting the tournament: ben cannot start.")
    assert text.getvalue().splitlines() == [
        "ann runs as root",
        "ben: cannot start: exited with code 1",
        "cy: the machine failed: no memory",
        "referee: not starting the tournament: ben cannot start.",
    ]


def test_a_session_opens_its_store_and_a_refused_first_run_leaves_nothing_behind(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cup.toml").write_text(CONFIG)
    loaded = load_config(tmp_path / "cup.toml")
    opened = open_session(loaded)
    assert isinstance(opened, OpenedSession), opened
    assert opened.done() == (0, 2) and opened.isolation is not None
    assert (tmp_path / "cup" / "tournament.sqlite").is_file()
    opened.let_go()
    assert not (tmp_path / "cup").exists()
    assert capfd.readouterr() == ("", "")


def test_players_in_each_others_folders_are_refused_before_the_store_is_made(
    tmp_path: Path,
) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    nested = CONFIG.replace('command = "python3 mian.py"', 'command = "python3 x.py"\ncwd = "a/b"')
    nested = nested.replace(
        'command = "builtin:random --seed 1"', 'command = "python3 y.py"\ncwd = "a"'
    )
    (tmp_path / "cup.toml").write_text(nested)
    refused = open_session(load_config(tmp_path / "cup.toml"))
    assert isinstance(refused, Refused)
    assert refused.message.startswith(f"referee: {tmp_path / 'cup.toml'}: ")
    assert not (tmp_path / "cup").exists()
