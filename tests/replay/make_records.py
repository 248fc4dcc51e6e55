"""Game records made without processes: random legal games played through the rules and written
with the referee's own record writer, for tests of everything that reads records."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from protocols import builtin_names, get_game
from protocols.base import Outcome, Reason, Side
from referee.records import (
    GameRecord,
    Header,
    PlayerInfo,
    Ply,
    Result,
    TimeControl,
    read_record,
    utc_now,
    write_lines,
)

GAMES = builtin_names()


def random_states(
    game_name: str, seed: int, max_plies: int = 400, options: dict[str, Any] | None = None
) -> tuple[list[Any], list[str]]:
    """The states of a random game (start included) and the canonical moves between them."""
    game = get_game(game_name)
    rng = random.Random(seed)
    state = game.initial_state(game.parse_options(options or {}))
    states, moves = [state], []
    while game.outcome(state) is None and len(moves) < max_plies:
        move = rng.choice(list(game.legal_moves(state)))
        moves.append(game.format_move(move))
        state = game.apply(state, move)
        states.append(state)
    return states, moves


def header_for(game_name: str, seed: int = 0) -> Header:
    return Header(
        game=game_name,
        options=get_game(game_name).parse_options({}).model_dump(mode="json"),
        seed=seed,
        players={
            Side.BLUE: PlayerInfo(name="alice", command="alice-bot"),
            Side.ORANGE: PlayerInfo(name="bob", command="bob-bot"),
        },
        time_control=TimeControl(move_timeout=5, grace=0.5, startup_allowance=5),
        started_at=utc_now(),
    )


def record_lines(game_name: str, seed: int, max_plies: int = 400) -> list[Header | Ply | Result]:
    """Header, plies and result of a random game that ended by the rules (or was cut short)."""
    game = get_game(game_name)
    states, moves = random_states(game_name, seed, max_plies)
    lines: list[Header | Ply | Result] = [header_for(game_name, seed)]
    for number, (state, move) in enumerate(zip(states, moves, strict=False), start=1):
        lines.append(
            Ply(ply=number, side=state.to_move, received=move, move=move, time_ms=number * 1.5)
        )
    outcome = game.outcome(states[-1])
    if outcome is None:  # cut short: recorded as an interrupted (void) game
        outcome = Outcome(None, Reason.INTERRUPTED, "cut short by the test")
    lines.append(Result.of_outcome(outcome, len(moves)))
    return lines


def opening_record_lines(
    game_name: str, seed: int, opening_plies: int, max_plies: int = 400
) -> list[Header | Ply | Result]:
    """`record_lines` of a game whose first `opening_plies` moves were an opening: in the
    header, played before the bots took over; the plies are numbered from the next move."""
    lines = record_lines(game_name, seed, max_plies)
    header, plies, result = lines[0], lines[1:-1], lines[-1]
    assert isinstance(header, Header) and isinstance(result, Result)
    assert len(plies) > opening_plies, "a game shorter than its opening"
    opening = [ply.move for ply in plies[:opening_plies] if isinstance(ply, Ply)]
    rest = [
        ply.model_copy(update={"ply": number})
        for number, ply in enumerate(plies[opening_plies:], start=1)
        if isinstance(ply, Ply)
    ]
    ended = result.model_copy(update={"plies": len(rest)})
    return [header.model_copy(update={"opening": opening}), *rest, ended]


def write_record(path: Path, lines: list[Header | Ply | Result]) -> GameRecord:
    write_lines(path, lines)
    return read_record(path)


def random_record(path: Path, game_name: str, seed: int, max_plies: int = 400) -> GameRecord:
    """Write a random finished game of `game_name` to `path` and read it back."""
    return write_record(path, record_lines(game_name, seed, max_plies))


def strip_chain(path: Path) -> None:
    """Rewrite a record as a referee from before the hash chain wrote it: no `chain` on any line,
    schema version 1."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        del line["chain"]
    lines[0]["schema_version"] = 1
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
