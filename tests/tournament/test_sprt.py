"""The match statistics (Elo, interval, LOS, GSPRT on game pairs) on constructed counts, checked
against values worked out here by other means; simulated matches; and `referee match` itself."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from rich.console import Console

from referee.tournament.config import parse_config
from referee.tournament.head_to_head import Tally, conclusion, match_config, player_names
from referee.tournament.runner import RunState
from referee.tournament.schedule import make_schedule
from referee.tournament.sprt import (
    PAIR_SCORES,
    Sprt,
    elo_of_score,
    llr,
    llr_approximation,
    los,
    match_stats,
    mle_with_mean,
    parse_sprt,
    pentanomial,
    pentanomial_estimate,
    score_of_elo,
    trinomial_estimate,
)
from referee.views.match_live import MatchDisplay
from tests.commandline import referee

# -- Elo, interval, LOS ---------------------------------------------------------------------


def test_elo_of_a_60_percent_score() -> None:
    # -400 * log10(1/0.6 - 1) = 400 * log10(1.5) = 400 * 0.176091... = 70.436...
    assert elo_of_score(0.6) == pytest.approx(70.4365, abs=1e-3)
    assert score_of_elo(elo_of_score(0.6)) == pytest.approx(0.6)
    assert elo_of_score(0.5) == 0.0
    assert elo_of_score(1.0) == math.inf


def test_interval_of_single_games_by_hand() -> None:
    # 50 wins, 20 draws, 30 losses: s = 0.6; per game variance
    # (50 * 0.4^2 + 20 * 0.1^2 + 30 * 0.6^2) / 100 = (8 + 0.2 + 10.8) / 100 = 0.19;
    # standard error sqrt(0.19 / 100) = 0.043589; 95%: s +- 1.96 * 0.043589 = 0.6 +- 0.085433.
    estimate = trinomial_estimate(50, 20, 30)
    assert estimate.score == pytest.approx(0.6)
    assert estimate.elo == pytest.approx(70.4365, abs=1e-3)
    low = -400 * math.log10(1 / (0.6 - 0.0854337) - 1)
    high = -400 * math.log10(1 / (0.6 + 0.0854337) - 1)
    assert estimate.low == pytest.approx(low, abs=1e-2)
    assert estimate.high == pytest.approx(high, abs=1e-2)
    assert 9.0 < estimate.low < 11.0 and 135.0 < estimate.high < 137.0


def test_interval_of_pairs_by_hand() -> None:
    # Pairs scoring 0, 1/4, 1/2, 3/4, 1 per game, counts 0, 10, 20, 10, 0: mean 1/2, variance
    # (10 * 1/16 + 10 * 1/16) / 40 = 1/32; standard error sqrt(1/32 / 40) = 0.027951.
    estimate = pentanomial_estimate([0, 10, 20, 10, 0])
    assert estimate.games == 80
    assert estimate.elo == 0.0
    half = 1.959964 * math.sqrt(1 / 32 / 40)
    assert estimate.high == pytest.approx(elo_of_score(0.5 + half), abs=1e-3)
    assert estimate.low == pytest.approx(-estimate.high)


def test_los_for_a_few_counts() -> None:
    assert los(10, 10) == pytest.approx(0.5)
    # (W - L) / sqrt(W + L) = 1 -> Phi(1) = 0.841345; 2 -> 0.977250; -2 -> 0.022750
    assert los(10, 6) == pytest.approx(0.841345, abs=1e-6)  # 4 / sqrt(16) = 1
    assert los(9, 4) == pytest.approx(0.5 * (1 + math.erf(5 / math.sqrt(13) / math.sqrt(2))))
    assert los(5, 4) == pytest.approx(0.5 * (1 + math.erf(1 / 3 / math.sqrt(2))))
    assert los(4, 0) == pytest.approx(0.977250, abs=1e-6)
    assert los(0, 4) == pytest.approx(0.022750, abs=1e-6)
    assert los(0, 0) == 0.5


# -- the GSPRT ------------------------------------------------------------------------------


def test_llr_approximation_by_hand() -> None:
    # Counts 5, 10, 20, 15, 10 (60 pairs): mean (10*0.25 + 20*0.5 + 15*0.75 + 10*1) / 60
    # = 33.75 / 60 = 0.5625; variance = E[x^2] - mean^2 =
    # (10*0.0625 + 20*0.25 + 15*0.5625 + 10*1) / 60 - 0.5625^2 = 24.0625 / 60 - 0.31640625
    # = 0.08463541; s0 = 0.5, s1 = score of 20 Elo = 0.528774;
    # LLR = 60 * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var).
    s1 = 1 / (1 + 10 ** (-20 / 400))
    expected = 60 * (s1 - 0.5) * (2 * 0.5625 - 0.5 - s1) / (2 * 0.08463541)
    assert llr_approximation([5, 10, 20, 15, 10], 0, 20) == pytest.approx(expected, rel=1e-4)
    assert expected == pytest.approx(0.981, abs=1e-3)


def _likelihood(f: list[float], p: list[float]) -> float:
    return sum(fi * math.log(pi) for fi, pi in zip(f, p, strict=True))


def test_the_constrained_mle_is_a_maximum_with_the_given_mean() -> None:
    f = [5 / 60, 10 / 60, 20 / 60, 15 / 60, 10 / 60]
    for s in (0.5, 0.528774, 0.7):
        p = mle_with_mean(f, PAIR_SCORES, s)
        assert sum(p) == pytest.approx(1.0, abs=1e-9)
        assert sum(x * q for x, q in zip(PAIR_SCORES, p, strict=True)) == pytest.approx(s)
        # Moving along any direction that keeps the sum and the mean lowers the likelihood.
        rng = random.Random(s)
        for _ in range(50):
            # a direction with sum 0 and mean 0: combination of (1,-2,1,0,0)-like vectors
            a, b, c = (rng.uniform(-1, 1) for _ in range(3))
            d = [a, -2 * a + b, a - 2 * b + c, b - 2 * c, c]
            q = [pi + 1e-3 * di for pi, di in zip(p, d, strict=True)]
            assert _likelihood(f, q) <= _likelihood(f, p) + 1e-12


def test_llr_of_a_pentanomial_sample() -> None:
    counts = [5, 10, 20, 15, 10]
    f = [c / 60 for c in counts]
    p0 = mle_with_mean(f, PAIR_SCORES, 0.5)
    p1 = mle_with_mean(f, PAIR_SCORES, score_of_elo(20))
    assert llr(counts, 0, 20) == pytest.approx(60 * (_likelihood(f, p1) - _likelihood(f, p0)))
    # Near s0 and s1 the exact LLR and the quadratic approximation agree closely.
    assert llr(counts, 0, 20) == pytest.approx(llr_approximation(counts, 0, 20), rel=0.05)
    assert llr([10, 20, 40, 20, 10], 0, 20) == pytest.approx(-0.55, abs=0.01)


def test_bounds_are_walds() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439)
    assert sprt.upper == pytest.approx(2.944439)
    assert sprt.decide(3.0) == "H1" and sprt.decide(-3.0) == "H0" and sprt.decide(0.0) is None
    assert parse_sprt(["elo1=200", "alpha=0.1", "beta=0.1"]) == Sprt(0, 200, 0.1, 0.1)
    with pytest.raises(ValueError):
        parse_sprt(["elo2=3"])
    with pytest.raises(ValueError):
        parse_sprt(["elo0=20", "elo1=0"])


def _simulate(p_first_wins: float, draw: float, seed: int, sprt: Sprt, most: int) -> Tally:
    """A match of simulated games (no processes): game by game, stopping once decided."""
    rng = random.Random(seed)
    tally = Tally("a", "b", sprt)
    for number in range(1, most + 1):
        r = rng.random()
        score = 0.5 if r < draw else (1.0 if r < draw + (1 - draw) * p_first_wins else 0.0)
        tally.scores[number] = score
        if tally.decided():
            break
    return tally


def test_a_clearly_stronger_player_is_found_stronger() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    for seed in range(3):
        # Expected score 0.65 (about +108 Elo): H1 quickly.
        tally = _simulate(0.7, 0.3, seed, sprt, 20000)
        assert tally.stats().decision == "H1"
        assert tally.stats().llr is not None and tally.stats().llr >= sprt.upper
        assert len(tally.scores) < 2000


def test_equal_players_are_not_found_stronger() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    for seed in range(3):
        tally = _simulate(0.5, 0.3, seed, sprt, 40000)
        assert tally.stats().decision == "H0"


# -- pairs ----------------------------------------------------------------------------------


def test_pairs_are_consecutive_games_with_colours_swapped() -> None:
    text = match_config("alak", [("a", "x"), ("b", "y")], 6)
    schedule = make_schedule(parse_config(text, Path("match.toml")).config)
    assert [g.number for g in schedule] == [1, 2, 3, 4, 5, 6]
    for first, second in zip(schedule[::2], schedule[1::2], strict=True):
        assert (first.blue, first.orange) == (second.orange, second.blue)
    # Pair (1, 2) scores 1 + 1/2, pair (3, 4) 0 + 0; game 5 waits for game 6; finishing order
    # does not matter.
    scores = {4: 0.0, 2: 0.5, 5: 1.0, 1: 1.0, 3: 0.0}
    assert pentanomial(scores) == [1, 0, 0, 1, 0]
    stats = match_stats(scores)
    assert (stats.wins, stats.draws, stats.losses) == (2, 1, 2)


def test_player_names_from_commands() -> None:
    assert player_names("builtin:greedy --seed {seed}", "builtin:random") == ("greedy", "random")
    assert player_names("python bots/v2/main.py", "python bots/v1/main.py") == ("v2", "v1")
    assert player_names("builtin:random", "builtin:random --seed 3") == ("random-1", "random-2")


# -- referee match --------------------------------------------------------------------------

GREEDY = "builtin:greedy --seed {seed}"
RANDOM = "builtin:random --seed {seed}"


def test_match_plays_reports_and_resumes(tmp_path: Path) -> None:
    args = ["match", "alak", "-p1", GREEDY, "-p2", RANDOM, "--games", "4", "-q", "-j", "2"]
    first = referee(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "greedy vs random: 4 games, greedy +" in first.stdout
    assert "Elo difference:" in first.stdout and "LOS (likelihood greedy" in first.stdout
    assert "SPRT" not in first.stdout
    directory = tmp_path / "referee-matches" / "greedy-vs-random"
    assert (directory / "match.toml").is_file() and (directory / "tournament.sqlite").is_file()
    again = referee(*args, "--events", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    events = [json.loads(line) for line in again.stdout.splitlines()]
    assert [e["event"] for e in events] == ["tournament-started", "tournament-finished"]
    assert events[0]["finished"] == 4
    assert "resuming: 4/4 games done" in again.stderr


def test_match_sprt_stops_once_decided(tmp_path: Path) -> None:
    # Greedy beats random at alak nearly always; wide bounds decide in a few pairs.
    args = ["match", "alak", "-p1", GREEDY, "-p2", RANDOM, "--games", "200", "-q", "-j", "2"]
    args += ["--dir", "m", "--sprt", "elo0=0", "elo1=200", "alpha=0.1", "beta=0.1"]
    first = referee(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "H1 accepted: greedy is stronger than random by at least 200 Elo" in first.stdout
    assert "bounds -2.20, 2.20" in first.stdout
    played = int(first.stdout.split(" games,")[0].split()[-1])
    assert 4 <= played < 60
    again = referee(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "the SPRT had already decided: no game to play" in again.stderr
    assert f"greedy vs random: {played} games" in again.stdout


def test_conclusions_in_plain_words() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    tally = Tally("v2", "v1", sprt, {n: 1.0 for n in range(1, 201)})
    assert conclusion(tally.stats(), sprt, "v2", "v1") == (
        "H1 accepted: v2 is stronger than v1 by at least 20 Elo, with 95% confidence"
    )
    tally.scores = {n: float(n % 2) if n < 3000 else 0.5 for n in range(1, 4001)}
    assert conclusion(tally.stats(), sprt, "v2", "v1").startswith(
        "H0 accepted: v2 is not stronger than v1 by 20 Elo or more, with 95% confidence"
    )
    tally.scores = {1: 1.0, 2: 0.0}
    assert conclusion(tally.stats(), sprt, "v2", "v1").startswith("no decision yet")


def test_the_live_view_shows_score_elo_and_llr() -> None:
    sprt = Sprt(0, 20, 0.05, 0.05)
    tally = Tally("v2", "v1", sprt, {1: 1.0, 2: 0.5, 3: 0.0, 4: 1.0})
    state = RunState(players=["v2", "v1"], total=10)
    console = Console(record=True, width=100)
    console.print(MatchDisplay(console, state, tally).render())
    text = console.export_text()
    assert "v2 vs v1: 4 games, v2 +2 =1 -1 (62.5%)" in text
    assert "pairs (0, 1/2, 1, 3/2, 2 points of 2): 0 0 1 1 0" in text
    assert "no decision yet" not in text  # while it plays, undecided is no news
    assert "LLR" in text and "(bounds -2.94, 2.94)" in text and "H0 [" in text
