"""Check a tournament's finished games against their records, for disputes about results.

For every finished game of a store: its record exists and reads, its hash chain is intact
(`referee.records`), its final hash is the one the store kept when the game was committed (so
lines removed or added at the end show too), it is a game of the tournament's game, its players
are the scheduled ones, and replaying its moves through the rules (`referee.verify`) gives the
result the store holds. Games finished by a referee that wrote no hash chain are checked all the
same, and noted. The league checks every game the same way before rating it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocols.base import Side
from referee.records import GameRecord, RecordError, read_chained_record
from referee.tournament.store import GameRow, StoreView
from referee.verify import verify_record

NO_CHAIN = "no hash chain (written by an older referee)"


@dataclass
class GameAudit:
    """What checking one game found: `problems` is empty for a game whose record holds."""

    number: int
    record: str | None  # relative to the tournament directory
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def audit_game(view: StoreView, row: GameRow, game: str | None = None) -> GameAudit:
    """Check one finished game's record against the store and the rules (and, given the
    tournament's `game`, that the record is of that game)."""
    return audit_record(view, row, game)[0]


def audit_record(
    view: StoreView, row: GameRow, game: str | None = None
) -> tuple[GameAudit, GameRecord | None, str | None]:
    """`audit_game`, with the record it read and the record's final hash (None, None when it
    could not be read): what a reader that goes on to use the game (the league) needs."""
    found = GameAudit(row.number, row.record)
    path = view.record_path(row)
    if path is None:
        found.problems.append("the store names no record for it")
        return found, None, None
    if not path.is_file():
        found.problems.append(f"{path}: the record is missing")
        return found, None, None
    try:
        record, chain = read_chained_record(path)
    except RecordError as exc:
        found.problems.append(str(exc))
        return found, None, None
    if game is not None and record.header.game != game:
        found.problems.append(f"the record is a game of {record.header.game}, not of {game}")
    _check_chain(found, row, chain)
    _check_players(found, row, record)
    _check_result(found, row, record)
    return found, record, chain


def _check_chain(found: GameAudit, row: GameRow, chain: str | None) -> None:
    if chain is None and row.chain is None:
        found.notes.append(NO_CHAIN)
    elif chain is None:
        found.problems.append(
            "the record has no hash chain, but the store kept its final hash: it was rewritten"
        )
    elif row.chain is None:
        found.notes.append("the store kept no final hash (committed by an older referee)")
    elif chain != row.chain:
        found.problems.append(
            "the record's final hash is not the one the store kept when the game ended: "
            "lines were removed or added at its end, or it was rewritten"
        )


def _check_players(found: GameAudit, row: GameRow, record: GameRecord) -> None:
    players = record.header.players
    recorded = tuple(p.name if (p := players.get(side)) else "nobody" for side in Side)
    if recorded != (row.blue, row.orange):
        found.problems.append(
            f"the record's players are {recorded[0]} (blue) and {recorded[1]} (orange), "
            f"the schedule's {row.blue} and {row.orange}"
        )


def _check_result(found: GameAudit, row: GameRow, record: GameRecord) -> None:
    found.problems.extend(verify_record(record).problems)
    result = record.result
    if result is None:
        found.problems.append("unfinished: the record has no result line")
        return
    recorded = (result.winner, result.reason, result.ending, result.plies, result.void)
    stored = (row.winner, row.reason, row.ending, row.plies, False)
    if recorded != stored:
        found.problems.append(
            f"the record says {_verdict(result.winner, result.why, result.plies)}"
            f"{' (void)' if result.void else ''}, the store "
            f"{_verdict(row.winner, _stored_why(row), row.plies)}"
        )


def _verdict(winner: Side | None, why: str, plies: int | None) -> str:
    return f"{f'{winner} wins' if winner else 'draw'} by {why} after {plies} plies"


def _stored_why(row: GameRow) -> str:
    return row.ending or (row.reason.value if row.reason else "nothing")
