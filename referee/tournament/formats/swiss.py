"""The Swiss format: N rounds paired by `referee/tournament/swiss.py` (score groups, one
maximum-weight matching a round, no rematch, colours balanced), standings by score with Buchholz
and Sonneborn-Berger.

Each round is one game per pair, colours as the pairing gives them. Scores are the chess ones: a
win 1, a draw ½, a loss 0 (a double forfeit 0 for both); a bye is worth 1. A game void for good
counts as a meeting (the pair is never paired again) worth nothing to either player. The
initial ranking, which orders score groups' halves, is the config's player order. If a round
cannot be paired without a rematch, the Swiss ends after the rounds played (said in the plan).
"""

from __future__ import annotations

import functools
from collections import defaultdict

from referee.tournament.config import TournamentConfig
from referee.tournament.formats.base import (
    Ledger,
    Stage,
    SwissLine,
    SwissPairingLine,
    SwissRoundTable,
)
from referee.tournament.formats.outcome import Outcome
from referee.tournament.standings import DRAW, WIN, points_text
from referee.tournament.swiss import (
    Colour,
    Entrant,
    SwissPairingError,
    SwissRound,
    max_rounds,
    pair_round,
    standings_order,
    tiebreaks,
)

STAGE = "Swiss"
BYE = 1.0


@functools.lru_cache(maxsize=512)
def _paired(entrants: tuple[Entrant, ...], number: int, seed: int) -> SwissRound:
    """A round's pairing, computed once: the plan is asked for again after every game, and the
    rounds before the current one are paired from the same entrants every time."""
    return pair_round(entrants, number, seed)


class _Tally:
    def __init__(self, players: list[str]) -> None:
        self.score: dict[str, float] = dict.fromkeys(players, 0.0)
        self.opponents: dict[str, list[str]] = defaultdict(list)
        self.colours: dict[str, list[Colour]] = defaultdict(list)
        self.byes: dict[str, int] = defaultdict(int)
        self.games: list[tuple[str, str, float, float]] = []

    def entrants(self, ranks: dict[str, int]) -> list[Entrant]:
        return [
            Entrant(name, ranks[name], self.score[name], tuple(self.opponents[name]),
                    tuple(self.colours[name]), self.byes[name])
            for name in ranks
        ]  # fmt: skip


def _score(points: int) -> float:
    return 1.0 if points == WIN else 0.5 if points == DRAW else 0.0


def replay(config: TournamentConfig, ledger: Ledger) -> Outcome:
    players = list(config.player_names)
    ranks = {name: i for i, name in enumerate(players)}
    rounds = config.swiss.rounds or max_rounds(len(players))
    tally = _Tally(players)
    tables: list[SwissRoundTable] = []
    note = ""
    for number in range(1, rounds + 1):
        try:
            paired = _paired(tuple(tally.entrants(ranks)), number, config.seed)
        except SwissPairingError:
            # No round without a rematch: the Swiss ends here, and says so.
            note = (
                f"ended after {number - 1} of {rounds} rounds: round {number} cannot be paired "
                "without a rematch"
            )
            break
        label = f"Round {number}"
        numbers = [ledger.add(STAGE, label, number, [pair])[0] for pair in paired.pairs]
        decided = ledger.decided(numbers)
        lines = []
        for (blue, orange), game in zip(paired.pairs, numbers, strict=True):
            result = _result(ledger, game, blue, orange)
            lines.append(SwissPairingLine(blue=blue, orange=orange, game=game, result=result))
        tables.append(SwissRoundTable(number=number, pairs=lines, bye=paired.bye))
        if not decided:
            return _outcome(tally, ranks, tables, current=label)
        _count(ledger, tally, paired.pairs, numbers, paired.bye)
    return _outcome(tally, ranks, tables, current=None, note=note)


def _result(ledger: Ledger, game: int, blue: str, orange: str) -> str:
    result = ledger.result(game)
    if result is None:
        return "0-0" if ledger.decided([game]) else ""
    points = result.points()
    marks = {WIN: "1", DRAW: "½", 0: "0"}
    return f"{marks[points[blue]]}-{marks[points[orange]]}"


def _count(
    ledger: Ledger,
    tally: _Tally,
    pairs: tuple[tuple[str, str], ...],
    numbers: list[int],
    bye: str | None,
) -> None:
    for (blue, orange), game in zip(pairs, numbers, strict=True):
        result = ledger.result(game)
        points = result.points() if result is not None else {blue: -1, orange: -1}
        blue_score, orange_score = _score(points[blue]), _score(points[orange])
        tally.score[blue] += blue_score
        tally.score[orange] += orange_score
        tally.opponents[blue].append(orange)
        tally.opponents[orange].append(blue)
        tally.colours[blue].append("blue")
        tally.colours[orange].append("orange")
        tally.games.append((blue, orange, blue_score, orange_score))
    if bye is not None:
        tally.score[bye] += BYE
        tally.byes[bye] += 1


def _outcome(
    tally: _Tally,
    ranks: dict[str, int],
    tables: list[SwissRoundTable],
    current: str | None,
    note: str = "",
) -> Outcome:
    breaks = tiebreaks(tally.score, tally.games, tally.byes)
    order = standings_order(tally.score, breaks, ranks)
    lines = [
        SwissLine(rank=i + 1, name=name, score=tally.score[name],
                  buchholz=breaks[name].buchholz, buchholz_cut1=breaks[name].buchholz_cut1,
                  sonneborn_berger=breaks[name].sonneborn_berger, byes=tally.byes[name])
        for i, name in enumerate(order)
    ]  # fmt: skip
    finished = current is None
    stage = Stage(
        name=STAGE, kind="swiss", rounds=tables, standings=lines, decided=finished, note=note
    )
    if not finished:
        return Outcome(stages=[stage], current=current, finished=False)
    return Outcome(stages=[stage], current=None, finished=True, placings=order,
                   placing_notes=_placing_notes(lines, ranks))  # fmt: skip


def _placing_notes(lines: list[SwissLine], ranks: dict[str, int]) -> dict[str, str]:
    """Each player's score, and the tie-breaks down to the one that orders it with a neighbour
    on the same score ("2 points, Buchholz 6")."""

    def criteria(line: SwissLine) -> list[tuple[str, float]]:
        return [("Buchholz", line.buchholz), ("S-B", line.sonneborn_berger),
                ("initial rank", ranks[line.name] + 1)]  # fmt: skip

    notes = {}
    for i, line in enumerate(lines):
        depth = 0
        for other in (lines[i - 1] if i else None, lines[i + 1] if i + 1 < len(lines) else None):
            if other is None or other.score != line.score:
                continue
            pairs = zip(criteria(line), criteria(other), strict=True)
            differs = [k for k, ((_, a), (_, b)) in enumerate(pairs) if a != b]
            depth = max(depth, (differs[0] if differs else 2) + 1)
        shown = [f"{label} {value:g}" for label, value in criteria(line)[:depth]]
        notes[line.name] = ", ".join([points_text(line.score), *shown])
    return notes
