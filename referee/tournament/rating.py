"""A tournament's (or a match's) finished games rated by the rating model
(`referee.stats.rating`, docs/ratings.md): blue moves first, the game is the kind, and a
double forfeit (neither bot could start) tells nothing about strength and is left out. The
league builds the same input from its index, so the same games give the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from protocols.base import Side
from referee.stats.rating import Anchor, RatingInput, RatingOptions, rate
from referee.stats.rating_table import RatingLine, RatingTable, rating_table
from referee.tournament.standings import GameResult
from referee.tournament.store import GameRow, GameState


def finished_results(rows: Sequence[GameRow]) -> list[GameResult]:
    return [
        GameResult(r.blue, r.orange, r.winner, r.reason)
        for r in rows
        if r.state is GameState.FINISHED and r.reason is not None
    ]


def results_input(players: Sequence[str], results: Iterable[GameResult], game: str) -> RatingInput:
    data = RatingInput()
    for name in players:
        data.add_player(name)  # entered without a game: reported `alone`
    for r in results:
        if r.winner is None and r.reason.is_bot_fault:
            continue  # a double forfeit
        if r.winner is None:
            data.add(r.blue, r.orange, game, "draw")
        else:
            data.add(r.blue, r.orange, game, "first" if r.winner is Side.BLUE else "second")
    return data


def rate_results(
    players: Sequence[str],
    results: Iterable[GameResult],
    game: str,
    options: RatingOptions | None = None,
) -> RatingTable:
    return rating_table(rate(results_input(players, results, game), options))


def rating_difference(
    first: str, second: str, rows: Sequence[GameRow], game: str, level: float = 0.95
) -> RatingLine:
    """A match's rating difference by the model: `first`'s rating with `second` held at 0, so
    that its interval is the difference's (one-sided after a sweep). The same number as the
    league's and the tournament table's for these games (the model is the same; only where
    the ratings sit differs)."""
    results = _between(first, second, rows)
    held = RatingOptions(level=level, anchor=Anchor(0.0, second), min_games=0)
    try:
        return rate_results([first, second], results, game, held).by_name()[first]
    except ValueError:  # no game, or a sweep: `second` has no finite rating to hold
        pass
    table = rate_results([first, second], results, game, RatingOptions(level=level, min_games=0))
    mine, theirs = table.by_name()[first], table.by_name()[second]
    if mine.rating is None or theirs.rating is None:
        return mine
    # Each bound was found with the other bot where the fit placed it: shift it by that.
    at = theirs.rating
    return mine.model_copy(
        update={
            "rating": mine.rating - at,
            "low": None if mine.low is None else mine.low - at,
            "high": None if mine.high is None else mine.high - at,
        }
    )


def _between(first: str, second: str, rows: Sequence[GameRow]) -> list[GameResult]:
    return [r for r in finished_results(rows) if {r.blue, r.orange} == {first, second}]


def anchored_ratings(
    first: str, second: str, rows: Sequence[GameRow], game: str, anchor: Anchor, level: float = 0.95
) -> RatingTable:
    """`referee match --anchor`: both bots' ratings where `anchor` puts the scale, as
    `tournament results --anchor` of the match's folder gives them. ValueError where the
    anchor cannot hold (a bot held after a sweep has no finite rating)."""
    options = RatingOptions(level=level, anchor=anchor, min_games=0)
    return rate_results([first, second], _between(first, second, rows), game, options)


def difference_words(line: RatingLine, first: str, second: str) -> str:
    """The model's difference in one line, its special cases named."""
    head = f"rating model (docs/ratings.md): {first} - {second}"
    if line.rating is None or line.games == 0:
        return f"{head}: no game rated yet"
    if line.side == "lower" and line.low is not None:
        return f"{head}: every game won (unbeaten), at least {line.low:+.0f} Elo (one-sided bound)"
    if line.side == "upper" and line.high is not None:
        return f"{head}: every game lost (winless), at most {line.high:+.0f} Elo (one-sided bound)"
    if line.low is None or line.high is None:
        return f"{head}: {line.rating:+.0f} Elo, no interval"
    return f"{head} = {line.rating:+.0f} Elo, interval [{line.low:+.0f}, {line.high:+.0f}]"


def difference_fields(line: RatingLine) -> dict[str, object]:
    """For `--json`: the difference, its bounds (null where there is none), how, and the first
    bot's flags (unbeaten after a sweep, winless after being swept)."""
    return {
        "difference": line.rating,
        "low": line.low,
        "high": line.high,
        "side": line.side,
        "method": line.method,
        "games": line.games,
        "flags": list(line.flags),
    }
