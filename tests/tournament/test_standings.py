"""Standings from constructed results: points, tie-breaks, fault counts and head-to-head."""

from __future__ import annotations

from protocols.base import Reason, Side
from referee.tournament.standings import GameResult, compute_standings, head_to_head

BLUE, ORANGE = Side.BLUE, Side.ORANGE


def test_points_records_and_faults() -> None:
    results = [
        GameResult("ann", "bob", BLUE, Reason.NO_LEGAL_MOVE),  # ann beats bob
        GameResult("bob", "ann", None, Reason.REPETITION),  # draw
        GameResult("cat", "ann", BLUE, Reason.TIMEOUT),  # ann timed out
        GameResult("bob", "cat", BLUE, Reason.ILLEGAL_MOVE),  # cat played an illegal move
        GameResult("cat", "bob", ORANGE, Reason.BAD_SYNTAX),  # cat wrote garbage
        GameResult("ann", "cat", None, Reason.CRASH),  # neither could start: both lose
        GameResult("dan", "ann", ORANGE, Reason.OUT_OF_TURN),  # dan wrote out of turn
    ]
    table = {s.name: s for s in compute_standings(["ann", "bob", "cat", "dan", "eve"], results)}
    ann, bob, cat, dan, eve = (table[n] for n in ("ann", "bob", "cat", "dan", "eve"))
    assert (ann.games, ann.wins, ann.draws, ann.losses, ann.points) == (5, 2, 1, 2, 5)
    assert (bob.games, bob.wins, bob.draws, bob.losses, bob.points) == (4, 2, 1, 1, 5)
    assert (cat.wins, cat.losses, cat.points) == (1, 3, 2)
    assert (dan.games, dan.points, eve.games, eve.points) == (1, 0, 0, 0)
    assert (ann.timeouts, ann.crashes, ann.illegal) == (1, 1, 0)
    assert (cat.timeouts, cat.crashes, cat.illegal, cat.protocol) == (0, 1, 2, 0)
    assert dan.protocol == 1 and bob.faults.total() == 0
    # Sonneborn-Berger: ann 2*5(bob) + 1*5(bob) + 2*0(dan) = 15; bob 1*5 + 2*2 + 2*2 = 13.
    assert (ann.sonneborn_berger, bob.sonneborn_berger) == (15, 13)
    order = [s.name for s in compute_standings(["ann", "bob", "cat", "dan", "eve"], results)]
    assert order == ["ann", "bob", "cat", "dan", "eve"]
    assert [table[n].rank for n in order] == [1, 2, 3, 4, 4]  # dan and eve tie on everything


def test_head_to_head_counts_each_side() -> None:
    results = [
        GameResult("ann", "bob", BLUE, Reason.NO_LEGAL_MOVE),
        GameResult("bob", "ann", BLUE, Reason.NO_LEGAL_MOVE),
        GameResult("bob", "ann", None, Reason.PLY_LIMIT),
        GameResult("ann", "bob", BLUE, Reason.CRASH),
    ]
    h2h = head_to_head(results)
    assert h2h[("ann", "bob")] == (2, 1, 1)
    assert h2h[("bob", "ann")] == (1, 1, 2)
