"""A knockout and a Swiss killed with SIGKILL mid-round, then run again: the same games, the
same bracket or rounds, the same final order as a run never interrupted."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.tournament.test_stages_resume import kill_after, played, results, run_to_end

PLAYERS = "".join(
    f'[[players]]\nname = "{name}"\ncommand = "builtin:{kind} --seed {{{{seed}}}}"\n'
    for name, kind in [("a", "random"), ("b", "greedy"), ("c", "random"), ("d", "random"),
                       ("e", "greedy"), ("f", "random")]
)  # fmt: skip
CONFIGS = {
    "knockout": 'format = "knockout"\n[knockout]\nseeding = "random"\nthird_place = true\n',
    "swiss": 'format = "swiss"\n[swiss]\nrounds = 3\n',
}


def write(tmp_path: Path, fmt: str, directory: str) -> Path:
    path = tmp_path / f"{directory}.toml"
    text = (
        f'name = "{fmt}"\ngame = "tic-tac-toe"\nseed = 23\nconcurrency = 2\n'
        f'directory = "{directory}"\n{CONFIGS[fmt]}[match.isolation]\nlevel = "basic+root"\n'
        f"{PLAYERS}"
    )
    path.write_text(text.replace("{{seed}}", "{seed}"))
    return path


@pytest.mark.slow
@pytest.mark.parametrize(("fmt", "games"), [("knockout", 3), ("swiss", 4)])
def test_a_killed_knockout_or_swiss_ends_as_an_uninterrupted_one(
    tmp_path: Path, fmt: str, games: int
) -> None:
    whole = write(tmp_path, fmt, "whole")
    run_to_end(tmp_path, whole)
    expected = json.loads(results(tmp_path, whole))
    assert expected["plan"]["finished"] and len(expected["plan"]["placings"]) == 6

    cut = write(tmp_path, fmt, "cut")
    assert kill_after(tmp_path, cut, games) == -signal.SIGKILL
    assert not json.loads(results(tmp_path, cut))["plan"]["finished"]
    run_to_end(tmp_path, cut)
    resumed = json.loads(results(tmp_path, cut))
    assert played(resumed) == played(expected)
    assert resumed["plan"] == expected["plan"]
    assert resumed["standings"] == expected["standings"]
