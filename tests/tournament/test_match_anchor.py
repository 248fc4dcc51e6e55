"""`referee match --anchor`: each bot's rating by the rating model where the anchor puts the
scale, the same as the model's difference shifted there, and the special cases named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commandline import referee
from tests.scriptbots import script_bot

BASIC = ["--isolation", "basic+root", "-q", "-j", "2"]
# Loses every game on its first move (orange waits for blue's move first).
ILLEGAL = """
if hear() == "orange":
    hear()
say("this is not a move")
hear()
"""


def _match(tmp_path: Path, *args: str) -> tuple[dict[str, object], str]:
    done = referee("match", "tic-tac-toe", *args, *BASIC, "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), " ".join(done.stderr.split())


def test_anchored_ratings_are_the_difference_shifted_to_the_anchor(tmp_path: Path) -> None:
    bots = ["-p1", "builtin:random", "-p2", "builtin:random"]
    bots += ["--name1", "ann", "--name2", "bob", "--games", "10", "--dir", "m"]
    summary, words = _match(tmp_path, *bots, "--anchor", "bob=1500")
    difference = summary["rating"]
    assert isinstance(difference, dict) and difference["side"] == "two-sided"  # no sweep here
    anchored = summary["anchored"]
    assert isinstance(anchored, dict) and anchored["problem"] is None
    assert anchored["anchor"] == "bob at 1500"
    rows = {row["name"]: row for row in anchored["rows"]}
    # bob held at 1500; ann where the difference (bob held at 0) puts her, shifted by 1500.
    for key in ("rating", "low", "high"):  # an interval of no width
        assert rows["bob"][key] == pytest.approx(1500, abs=1e-3), key
    for key, value in (("rating", "difference"), ("low", "low"), ("high", "high")):
        assert rows["ann"][key] == pytest.approx(1500 + difference[value], abs=1e-6), key
    ann = rows["ann"]
    assert "rating model, bob at 1500: " in words and f"ann {round(ann['rating']):+d} (" in words
    assert "bob +1500 (held there)" in words
    # The same match, anchored on ann: bob where the difference puts him below her.
    summary, _ = _match(tmp_path, *bots, "--anchor", "ann=1000")
    anchored = summary["anchored"]
    assert isinstance(anchored, dict)
    rows = {row["name"]: row for row in anchored["rows"]}
    assert rows["bob"]["rating"] == pytest.approx(1000 - difference["difference"], abs=1e-6)


def test_an_anchor_after_a_sweep_says_why_it_cannot_hold(tmp_path: Path) -> None:
    loser = script_bot(tmp_path, "loser", ILLEGAL)
    bots = ["-p1", "builtin:random", "-p2", loser, "--name2", "loser", "--games", "4"]
    summary, words = _match(tmp_path, *bots, "--dir", "m", "--anchor", "loser=1500")
    anchored = summary["anchored"]
    assert isinstance(anchored, dict) and anchored["rows"] == []
    assert "loser" in str(anchored["problem"]) and "no finite rating" in str(anchored["problem"])
    assert "rating model, --anchor: the anchor 'loser' has no finite rating" in words
    assert "every game won (unbeaten)" in words
    # Anchored at the two bots' mean, the sweep is named on each side.
    summary, words = _match(tmp_path, *bots, "--dir", "m", "--anchor", "1500")
    anchored = summary["anchored"]
    assert isinstance(anchored, dict)
    flags = {row["name"]: row["flags"] for row in anchored["rows"]}
    assert flags == {"random": ["unbeaten"], "loser": ["winless"]}
    assert "(>= " in words and "unbeaten" in words and "(<= " in words and "winless" in words


def test_an_anchor_that_is_no_bot_of_the_match_is_refused_before_any_game(tmp_path: Path) -> None:
    bots = ["-p1", "builtin:random", "-p2", "builtin:greedy", "--games", "2", "--dir", "m"]
    done = referee("match", "tic-tac-toe", *bots, *BASIC, "--anchor", "carol=1500", cwd=tmp_path)
    assert done.returncode == 2
    assert "--anchor: carol is not a bot of the match (random, greedy)" in done.stderr
    assert not (tmp_path / "m").exists()
