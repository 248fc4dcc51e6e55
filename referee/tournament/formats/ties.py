"""Mini-matches: a knockout tie, a final, a third-place match.

A tie is `games` games between two players, colours alternating (the higher seed has blue in
the first). Points are the group points (win 2, draw 1, loss 0; a double forfeit gives both 0; a
game void for good counts as not played). A tie level after its games plays `extra_games` more,
colours still alternating; still level, it goes by the colour rule: the player with more wins
as orange (the second to move) goes through; still level, the higher seed does.

Every tie of a stage plays its games, then every level tie its extra games, in that order, so
that the games of a stage are numbered the same way however the run was interrupted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.tournament.formats.base import Ledger, Pairing, Tie
from referee.tournament.standings import WIN, GameResult


@dataclass(frozen=True)
class TieSpec:
    label: str
    first: str | None  # the higher seed
    second: str | None  # None: `first` has a bye
    first_seed: int | None = None
    second_seed: int | None = None


def alternating(first: str, second: str, count: int, start: int = 0) -> list[Pairing]:
    """`count` games, `first` blue in the even-numbered ones (counting from `start`)."""
    return [(first, second) if (start + i) % 2 == 0 else (second, first) for i in range(count)]


def play_ties(
    ledger: Ledger,
    stage: str,
    round: int,
    specs: Sequence[TieSpec],
    games: int,
    extra_games: int,
) -> tuple[list[Tie], bool]:
    """The ties of one stage, and whether every one is decided (else some of their games are
    still to be played: those ties are shown as they stand)."""
    regular: list[list[int]] = []
    for spec in specs:
        if spec.first is None or spec.second is None:
            regular.append([])
            continue
        regular.append(
            ledger.add(stage, spec.label, round, alternating(spec.first, spec.second, games))
        )
    if not all(ledger.decided(numbers) for numbers in regular):
        return [_standing(ledger, s, r) for s, r in zip(specs, regular, strict=True)], False
    extra: list[list[int]] = []
    for spec, numbers in zip(specs, regular, strict=True):
        if spec.first is None or spec.second is None or not extra_games:
            extra.append([])
            continue
        first_pts, second_pts = _points(spec, ledger.results(numbers))
        if first_pts != second_pts:
            extra.append([])
            continue
        pairs = alternating(spec.first, spec.second, extra_games, start=games)
        extra.append(ledger.add(stage, spec.label, round, pairs))
    ties = [_decide(ledger, s, r, e) for s, r, e in zip(specs, regular, extra, strict=True)]
    if not all(ledger.decided(numbers) for numbers in extra):
        shown = [
            _standing(ledger, s, [*r, *e]) if e else tie
            for s, r, e, tie in zip(specs, regular, extra, ties, strict=True)
        ]
        return shown, False
    return ties, True


def _base(spec: TieSpec) -> Tie:
    return Tie(label=spec.label, first=spec.first, second=spec.second,
               first_seed=spec.first_seed, second_seed=spec.second_seed)  # fmt: skip


def _standing(ledger: Ledger, spec: TieSpec, numbers: list[int]) -> Tie:
    """A tie being played: its games and points so far, no winner yet (a bye has one)."""
    if spec.first is None or spec.second is None:
        return _decide(ledger, spec, [], [])
    first_pts, second_pts = _points(spec, ledger.results(numbers))
    return _base(spec).model_copy(
        update={"first_points": first_pts, "second_points": second_pts, "games": numbers}
    )


def _points(spec: TieSpec, results: Sequence[GameResult]) -> tuple[int, int]:
    first = second = 0
    for game in results:
        points = game.points()
        first += points.get(spec.first or "", 0)
        second += points.get(spec.second or "", 0)
    return first, second


def _orange_wins(name: str, results: Sequence[GameResult]) -> int:
    return sum(g.orange == name and g.points()[name] == WIN for g in results)


def _decide(ledger: Ledger, spec: TieSpec, regular: list[int], extra: list[int]) -> Tie:
    base = _base(spec)
    if spec.first is None or spec.second is None:
        winner = spec.first or spec.second
        return base.model_copy(update={"winner": winner, "decided_by": "bye"})
    results = ledger.results([*regular, *extra])
    first_pts, second_pts = _points(spec, results)
    if first_pts != second_pts:
        winner = spec.first if first_pts > second_pts else spec.second
        how = "extra games" if extra else "games"
    else:
        first_orange = _orange_wins(spec.first, results)
        second_orange = _orange_wins(spec.second, results)
        if first_orange != second_orange:
            winner = spec.first if first_orange > second_orange else spec.second
            how = "colour rule"
        else:
            winner, how = spec.first, "seed order"
    return base.model_copy(
        update={
            "first_points": first_pts,
            "second_points": second_pts,
            "games": [*regular, *extra],
            "winner": winner,
            "decided_by": how,
        }
    )


def loser(tie: Tie) -> str | None:
    if tie.winner is None or tie.first is None or tie.second is None:
        return None
    return tie.second if tie.winner == tie.first else tie.first


def outcome_note(tie: Tie, name: str, what: str) -> str:
    """How `name` came out of a decided `tie` (`what`: "Final", "third place match"), its own
    points first: "won the Final (4-2)", "lost the Final (2-4)", "lost the Final (4-4, colour
    rule)", "won the Final (a bye)"."""
    result = "won" if name == tie.winner else "lost"
    if tie.decided_by == "bye":
        return f"{result} the {what} (a bye)"
    own, other = tie.first_points, tie.second_points
    if name != tie.first:
        own, other = other, own
    how = "" if tie.decided_by == "games" else f", {tie.decided_by}"
    return f"{result} the {what} ({own}-{other}{how})"
