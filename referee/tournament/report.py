"""A tournament's results as data: standings with ratings, head-to-head, the list of games, and
the format's own plan (group tables, bracket, Swiss rounds: `formats/`).

Built from a store (read-only) by `build_report`; `referee tournament results` prints it as a
table, CSV, JSON or the course runner's results CSV (`course_csv`), and other tools can use the
same model.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from protocols.base import Reason
from referee.printable import csv_cell
from referee.records import ResultLabel, result_label
from referee.stats.head_to_head import Tally, summary_fields, summary_lines
from referee.stats.rating import RatingOptions
from referee.stats.rating_table import RatingLine, RatingTable
from referee.tournament.config import TournamentConfig
from referee.tournament.events import StandingLine
from referee.tournament.formats import FormatMismatch, Plan, plan_for
from referee.tournament.formats.base import SwissLine
from referee.tournament.match_figures import match_tally
from referee.tournament.rating import (
    difference_fields,
    difference_words,
    rate_results,
    rating_difference,
)
from referee.tournament.rating import finished_results as finished_results  # its old home
from referee.tournament.standings import (
    BOT_FAULTS,
    Standing,
    compute_standings,
    head_to_head,
    in_final_order,
)
from referee.tournament.store import GameRow, GameState, StoreView


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StandingRow(StandingLine):
    """A standing line of the results report: the live event's fields and the ratings."""

    # `illegal` counts illegal moves and bad syntax.
    protocol: int  # line too long, bad encoding, out of turn
    # The tie-break of the standings (points 2, 1, 0 times the opponent's points); in a Swiss,
    # that of its own table (points 1, 1/2, 0 times the opponent's Swiss score).
    sonneborn_berger: int | float
    # The rating model's (docs/ratings.md; `Report.ratings` has every figure): None for a
    # bound that does not exist (an unbeaten bot has a lower bound only, a winless one an upper).
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    # unbeaten, winless, unbounded, provisional, alone
    elo_flags: list[str] = Field(default_factory=list)
    elo_rank: int | None = None  # dense, within its component; None: not ranked
    # A staged format's final placing (then `rank` is the same: the standings follow it), and
    # what decided it; None and "" for a round robin, or before the format has its final order.
    place: int | None = None
    decided_by: str = ""
    # A Swiss's own table, on its scale (docs/swiss.md): the score (a win 1, a draw 1/2, a bye
    # its points), Buchholz, Buchholz cut-1 and the byes; None in other formats.
    score: float | None = None
    buchholz: float | None = None
    buchholz_cut1: float | None = None
    byes: int | None = None


class Record(_Model):
    wins: int
    draws: int
    losses: int


class GameLine(_Model):
    number: int
    round: int
    blue: str
    orange: str
    state: GameState
    # The result in one word once the game is finished or void (a double forfeit is a loss
    # for both, never a draw); None before.
    result: ResultLabel | None
    winner: str | None
    reason: Reason | None
    ending: str | None  # the game's own ending, when reason is game-ending
    detail: str | None
    plies: int | None
    attempts: int
    record: str | None  # absolute path of the record file


class MatchFigures(_Model):
    """A match's own statistics, as `referee match` prints them (read by `match_figures.py`):
    its summary in words and as `referee match --json` gives it. The standings' Elo is another
    figure: each player's rating in the fit of single games that every tournament has."""

    lines: list[str]
    summary: dict[str, Any]
    # The SPRT decided: the match is over, and the games left will never be played.
    stopped_by_sprt: bool = False

    @classmethod
    def of(cls, tally: Tally, directory: str, rows: Sequence[GameRow], game: str) -> MatchFigures:
        """The pair figures, and the rating model's difference beside them."""
        model = rating_difference(tally.first, tally.second, rows, game)
        return cls(
            lines=[
                *summary_lines(tally.stats(), tally),
                difference_words(model, tally.first, tally.second),
            ],
            summary=summary_fields(tally, directory) | {"rating": difference_fields(model)},
            stopped_by_sprt=tally.decided(),
        )


class Report(_Model):
    name: str
    game: str
    directory: str
    counts: dict[GameState, int]
    standings: list[StandingRow]
    rating_anchor: str
    rating_method: str
    ratings: RatingTable  # the rating model's whole report (docs/ratings.md)
    head_to_head: dict[str, dict[str, Record]]
    games: list[GameLine]
    format: str = "round-robin"
    plan: Plan | None = None  # None: the stored config no longer reads, or its games differ
    match: MatchFigures | None = None  # a match's folder (`referee match`): its own figures


STOPPED_BY_SPRT = "not played: the SPRT stopped the match"


def not_played(report: Report) -> int:
    """The games a match will never play, its SPRT having decided (0 for anything else):
    they are still `pending` in the store, but nothing is waiting for them."""
    if report.match is None or not report.match.stopped_by_sprt:
        return 0
    return report.counts.get(GameState.PENDING, 0)


def count_words(report: Report) -> list[str]:
    """The games by state, in words (`16 finished, 84 not played: the SPRT stopped the
    match`), the states without games left out."""
    stopped = not_played(report)
    words = [
        f"{count} {state.value}"
        for state, count in report.counts.items()
        if count and not (state is GameState.PENDING and stopped)
    ]
    return [*words, f"{stopped} {STOPPED_BY_SPRT}"] if stopped else words


def rating_note(report: Report) -> str:
    """What the standings' Elo is; for a match, also that the match's pair figures are
    another statistic (its rating difference from the model is the same as the table's)."""
    note = f"Elo: {report.rating_method}; {report.rating_anchor}"
    if report.match is None:
        return note
    return (
        f"{note}; the match's pentanomial Elo above is from its game pairs, a statistic of "
        f"its own beside the model's rating difference"
    )


def build_report(view: StoreView, options: RatingOptions | None = None) -> Report:
    """The results of the tournament in `view`, rated by the rating model with `options`
    (a `ValueError` for an anchor that is not a rated player)."""
    info = view.info()
    players = view.players()
    rows = view.games()
    results = finished_results(rows)
    ratings = rate_results(players, results, info.game, options)
    h2h: dict[str, dict[str, Record]] = {name: {} for name in players}
    for (a, b), (w, d, lost) in head_to_head(results).items():
        h2h[a][b] = Record(wins=w, draws=d, losses=lost)
    plan = _plan(info.config, rows)
    tally = match_tally(view.directory, players, rows)
    directory = str(view.directory.resolve())
    return Report(
        name=info.name,
        game=info.game,
        directory=directory,
        counts={state: sum(r.state is state for r in rows) for state in GameState},
        standings=_standing_rows(compute_standings(players, results), ratings.by_name(), plan),
        rating_anchor=ratings.anchor,
        rating_method=ratings.model,
        ratings=ratings,
        head_to_head=h2h,
        games=[_game_line(view, r) for r in rows],
        format=str(info.config.get("format", "round-robin")),
        plan=plan,
        match=MatchFigures.of(tally, directory, rows, info.game) if tally is not None else None,
    )


def _standing_rows(
    standings: list[Standing], ratings: dict[str, RatingLine], plan: Plan | None
) -> list[StandingRow]:
    """The standings with ratings (and a Swiss's tie-breaks); a staged format's in its final
    order, with the places."""
    swiss = {
        line.name: line
        for stage in (plan.stages if plan is not None else [])
        if stage.kind == "swiss"
        for line in stage.standings
    }
    if plan is None or not plan.finished or not plan.placings:
        return [_standing_row(s, ratings[s.name], swiss=swiss.get(s.name)) for s in standings]
    placed = in_final_order(standings, plan.placings)
    return [
        _standing_row(
            s,
            ratings[s.name],
            place=s.rank,
            decided_by=plan.placing_notes.get(s.name),
            swiss=swiss.get(s.name),
        )
        for s in placed
    ]


def _plan(stored: dict[str, Any], rows: list[GameRow]) -> Plan | None:
    """The format's plan, from the config stored with the tournament."""
    try:
        return plan_for(TournamentConfig.model_validate(stored), rows)
    except (ValidationError, FormatMismatch):
        return None


def _standing_row(
    s: Standing,
    rating: RatingLine,
    place: int | None = None,
    decided_by: str | None = None,
    swiss: SwissLine | None = None,
) -> StandingRow:
    tiebreaks: dict[str, Any] = {"sonneborn_berger": s.sonneborn_berger}
    if swiss is not None:  # the Swiss table's figures, on its scale, not the standings'
        tiebreaks = {
            "score": swiss.score,
            "buchholz": swiss.buchholz,
            "buchholz_cut1": swiss.buchholz_cut1,
            "sonneborn_berger": swiss.sonneborn_berger,
            "byes": swiss.byes,
        }
    return StandingRow.of(
        s,
        protocol=s.protocol,
        # The model's figures as they are (as in `ratings`): each table rounds them once, so
        # the standings and the Ratings table show the same Elo.
        elo=rating.rating,
        elo_low=rating.low,
        elo_high=rating.high,
        elo_flags=rating.flags,
        elo_rank=rating.rank,
        place=place,
        decided_by=decided_by or "",
        **tiebreaks,
    )


def _game_line(view: StoreView, row: GameRow) -> GameLine:
    path: Path | None = view.record_path(row)
    return GameLine(
        number=row.number,
        round=row.round,
        blue=row.blue,
        orange=row.orange,
        state=row.state,
        result=_label(row),
        winner=row.winner_name,
        reason=row.reason,
        ending=row.ending,
        detail=row.detail,
        plies=row.plies,
        attempts=row.attempts,
        record=str(path.resolve()) if path else None,
    )


def _label(row: GameRow) -> ResultLabel | None:
    if row.state not in (GameState.FINISHED, GameState.VOID) or row.reason is None:
        return None
    return result_label(row.winner, row.reason)


def to_csv(rows: Sequence[BaseModel]) -> str:
    """Rows of one model as CSV with a header line (empty cells for None)."""
    if not rows:
        return ""
    return _csv(list(type(rows[0]).model_fields), [row.model_dump(mode="json") for row in rows])


def standings_csv(rows: Sequence[StandingRow]) -> str:
    """The standings as CSV. `faults` becomes one column per bot-fault reason, named by the
    reason and zeros included, so every tournament's file has the same header."""
    if not rows:
        return ""
    fields = [name for name in StandingRow.model_fields if name != "faults"]
    fields += [reason.value for reason in BOT_FAULTS]
    flat = []
    for row in rows:
        data = row.model_dump(mode="json", exclude={"faults"})
        flat.append(data | {reason.value: row.faults.get(reason, 0) for reason in BOT_FAULTS})
    return _csv(fields, flat)


def _csv(fields: list[str], rows: list[dict[str, Any]]) -> str:
    """Rows as CSV. Every text cell may hold a bot's words (a verdict's detail quotes its
    stderr; a collected student names a bot), so each is made printable on one line and can
    never be taken for a formula (`csv_cell`). A list (`elo_flags`) is its words separated by
    spaces, as the league's CSV writes flags."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for data in rows:
        writer.writerow({k: "" if v is None else csv_cell(_words(v)) for k, v in data.items()})
    return out.getvalue()


def _words(value: object) -> object:
    return " ".join(str(word) for word in value) if isinstance(value, list) else value


COURSE_COLUMNS = [
    "Round",
    "Group",
    "Game Number",
    "Player 1",
    "Player 2",
    "Winner",
    "Is Draw",
    "Error",
]


def course_csv(report: Report) -> str:
    """Every played game in the course runner's results CSV (`tournament_results.csv`): its
    round (stage) and group, the game's number within the group, blue as Player 1, the winner,
    `true`/`false` for a draw, and in Error why a game has no result (void for good: the reason;
    a double forfeit: the fault). Games not yet played are left out, as the course's file does."""
    slots = report.plan.slots if report.plan is not None else {}
    rows = []
    for game in report.games:
        if game.state not in (GameState.FINISHED, GameState.VOID):
            continue
        slot = slots.get(game.number)
        draw = game.result == "draw"
        error = ""
        if game.state is GameState.VOID:
            error = f"void: {_why(game)}"
        elif game.result == "double-forfeit":
            error = f"both players: {_why(game)}"
        rows.append({
            "Round": slot.stage if slot else "",
            "Group": slot.group if slot else "",
            "Game Number": slot.index if slot else game.number,
            "Player 1": game.blue,
            "Player 2": game.orange,
            "Winner": game.winner or "",
            "Is Draw": "true" if draw else "false",
            "Error": error,
        })  # fmt: skip
    return _csv(COURSE_COLUMNS, rows)


def _why(game: GameLine) -> str:
    reason = game.ending or (game.reason.value if game.reason else "")
    return f"{reason}: {game.detail}" if game.detail else reason
