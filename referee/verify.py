"""Re-verify a game record through the rules: every move legal, the result following from them.

Records store moves, not positions (like PGN); replaying them through the same rule module the
referee used is what makes a record trustworthy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocols import UnknownGame, get_game
from protocols.base import IllegalMove, Outcome, Reason
from referee.openings import apply_opening
from referee.records import GameRecord


@dataclass
class Verification:
    """What replaying a record found: `problems` is empty for a consistent record."""

    # State before each recorded ply, then the final one: the first is the position after the
    # header's opening, where the bots took over.
    states: list[Any] = field(default_factory=list)
    moves: list[Any] = field(default_factory=list)  # each legal ply's move, as the rules parsed it
    problems: list[str] = field(default_factory=list)
    outcome: Outcome | None = None  # the rules' ending of the final position, if any

    @property
    def ok(self) -> bool:
        return not self.problems


# Faults only the player on move can commit; the idle player can also crash or write garbage.
_MOVER_ONLY_FAULTS = frozenset({Reason.ILLEGAL_MOVE, Reason.BAD_SYNTAX, Reason.TIMEOUT})


def verify_record(record: GameRecord) -> Verification:
    """Replay every ply; compare the recorded result with what the rules say."""
    found = Verification()
    try:
        game = get_game(record.header.game)
        state = game.initial_state(game.parse_options(record.header.options))
        state = apply_opening(game, state, record.header.opening or [])
    except (UnknownGame, ValueError) as exc:
        found.problems.append(f"header: {exc}")
        return found
    found.states.append(state)
    for ply in record.plies:
        if game.outcome(state) is not None:
            found.problems.append(f"ply {ply.ply}: the game was already over")
            return found
        if ply.side is not state.to_move:
            found.problems.append(
                f"ply {ply.ply}: recorded for {ply.side}, but {state.to_move} moves"
            )
            return found
        try:
            move = game.parse_move(state, ply.received)
        except IllegalMove as exc:
            found.problems.append(f"ply {ply.ply}: {ply.received!r} is illegal: {exc.reason}")
            return found
        if game.format_move(move) != ply.move:
            found.problems.append(f"ply {ply.ply}: canonical form is {game.format_move(move)!r}")
        state = game.apply(state, move)
        found.moves.append(move)
        found.states.append(state)
    found.outcome = game.outcome(state)
    _check_result(record, found)
    return found


def _check_result(record: GameRecord, found: Verification) -> None:
    result = record.result
    if result is None:
        return
    where = f"result (after ply {len(record.plies)})"
    if result.plies != len(record.plies):
        found.problems.append(
            f"{where}: says {result.plies} plies, the record has {len(record.plies)}"
        )
    outcome = found.outcome
    if result.reason.is_bot_fault or result.reason.voids_game:
        if outcome is not None:
            found.problems.append(
                f"{where}: the rules ended the game ({outcome.why}) before the recorded "
                f"{result.why}"
            )
        elif result.reason.is_bot_fault and result.winner is not None:
            mover = found.states[-1].to_move
            if result.winner is mover and result.reason in _MOVER_ONLY_FAULTS:
                found.problems.append(f"{where}: {result.winner} was to move and cannot win by it")
        return
    recorded = (result.winner, result.reason, result.ending)
    if outcome is None:
        found.problems.append(f"{where}: recorded {result.why}, but the game is not over")
    elif (outcome.winner, outcome.reason, outcome.ending) != recorded:
        found.problems.append(
            f"{where}: recorded {result.winner or 'draw'} by {result.why}, "
            f"the rules say {outcome.winner or 'draw'} by {outcome.why}"
        )
