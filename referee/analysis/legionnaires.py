"""Combinatorial game values of Legionnaires positions, as in Boardman's paper.

A position is the pair of pawn sets; from it both players may move (Left = Black = orange,
Right = White = blue), and who cannot move loses. Its value is `{orange's options | blue's
options}`, built bottom-up from the values of the positions one move away, each reduced to
canonical form by pycgt. Values are memoised on positions, so the count of distinct positions
reached is the paper's count (the start included).

Boards from 1x1 to 26x26 are allowed here (the paper's impartial 3xn family starts at a board
one square wide); the rules are the game's own (`protocols.legionnaires.rules.capture_map`).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocols.legionnaires.defaults import MAX_SIZE
from protocols.legionnaires.rules import Board, board_for, capture_map
from referee import EXIT_OK
from referee.analysis import cgt_notation
from referee.analysis.atomic_weight import atomic_weight
from referee.analysis.legionnaires_layouts import LAYOUTS

if TYPE_CHECKING:
    from pycgt import Game
    from rich.console import Console

# How often (in new positions) the progress callback is called.
PROGRESS_EVERY = 512


class TooManyPositions(Exception):
    """The search reached more positions than it was allowed."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the search; `positions` had been valued by then."""

    def __init__(self, positions: int) -> None:
        super().__init__(positions)
        self.positions = positions


@dataclass(frozen=True)
class Request:
    """One position to value: the board and each colour's pawns (square names)."""

    width: int
    height: int
    blue: tuple[str, ...]
    orange: tuple[str, ...]
    layout: str | None = None


@dataclass(frozen=True)
class Valuation:
    """A position's value and what it took to compute it."""

    request: Request
    game: Game
    positions: int
    seconds: float


def _squares(text: str | None) -> tuple[str, ...]:
    return tuple(text.replace(",", " ").split()) if text else ()


def request_from_args(
    *,
    width: int | None,
    height: int | None,
    blue: str | None,
    orange: str | None,
    layout: str | None,
) -> Request:
    """The position the command line names; ValueError says what is wrong with it."""
    if layout is not None:
        if any(value is not None for value in (width, height, blue, orange)):
            raise ValueError("give either --layout or the board and pawns, not both")
        found = LAYOUTS.get(layout)
        if found is None:
            raise ValueError(f"no layout {layout!r}; --list-layouts lists them")
        return make_request(
            found.width, found.height, _squares(found.blue), _squares(found.orange), layout
        )
    if blue is None or orange is None:
        raise ValueError("give --blue and --orange (and --width, --height), or --layout NAME")
    return make_request(width or 8, height or 8, _squares(blue), _squares(orange))


def make_request(
    width: int,
    height: int,
    blue: tuple[str, ...],
    orange: tuple[str, ...],
    layout: str | None = None,
) -> Request:
    """A checked Request: the board size is 1..26 each way and every square is on the board,
    listed once, and held by one colour only."""
    for name, size in (("width", width), ("height", height)):
        if not 1 <= size <= MAX_SIZE:
            raise ValueError(f"{name} must be 1..{MAX_SIZE}, not {size}")
    board = board_for(width, height)
    for colour, squares in (("blue", blue), ("orange", orange)):
        for square in squares:
            if square not in board.index:
                last = board.names[-1]
                raise ValueError(
                    f"{colour} pawn {square!r} is not a square of the {width}x{height} board "
                    f"(a1..{last})"
                )
        if len(set(squares)) != len(squares):
            raise ValueError(f"{colour} lists a square twice")
    shared = sorted(set(blue) & set(orange))
    if shared:
        raise ValueError(f"blue and orange both have a pawn on {', '.join(shared)}")
    return Request(width, height, blue, orange, layout)


def _mask(board: Board, squares: tuple[str, ...]) -> int:
    mask = 0
    for square in squares:
        mask |= 1 << board.index[square]
    return mask


def _bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def value(
    request: Request,
    on_progress: Callable[[int], None] | None = None,
    max_positions: int | None = None,
) -> Valuation:
    """The canonical value of the requested position (Left = orange, Right = blue).

    `on_progress(positions)` is called every PROGRESS_EVERY new positions; once more than
    `max_positions` positions are reached, TooManyPositions is raised.
    """
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import Game, canonical

    board = board_for(request.width, request.height)
    shift = request.width * request.height
    low_mask = (1 << shift) - 1
    memo: dict[int, Game] = {}
    limit = sys.maxsize if max_positions is None else max_positions

    def solve(key: int) -> Game:
        found = memo.get(key)
        if found is not None:
            return found
        blue, orange = key & low_mask, key >> shift
        # Left (orange) moves: its pawn leaves src and lands on dst, blue loses dst.
        left = [
            solve((blue & ~(1 << dst)) | ((orange ^ 1 << src) | 1 << dst) << shift)
            for src, targets in capture_map(board, orange, blue)
            for dst in _bits(targets)
        ]
        right = [
            solve(((blue ^ 1 << src) | 1 << dst) | (orange & ~(1 << dst)) << shift)
            for src, targets in capture_map(board, blue, orange)
            for dst in _bits(targets)
        ]
        game = canonical(Game(frozenset(left), frozenset(right)))
        memo[key] = game
        if len(memo) > limit:
            raise TooManyPositions(f"more than {limit:,} positions reached; no value computed")
        if on_progress is not None and len(memo) % PROGRESS_EVERY == 0:
            on_progress(len(memo))
        return game

    start = time.perf_counter()
    root = _mask(board, request.blue) | _mask(board, request.orange) << shift
    # Each move removes a pawn, so the recursion is as deep as there are pawns, and pycgt's
    # own recursion (order, canonical form) goes as deep again for each level.
    depth = 200 * (len(request.blue) + len(request.orange) + 10)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, depth))
    try:
        game = solve(root)
    except KeyboardInterrupt:
        raise Interrupted(len(memo)) from None
    finally:
        sys.setrecursionlimit(old_limit)
    return Valuation(request, game, len(memo), time.perf_counter() - start)


def analyse_with_progress(
    request: Request, err: Console, max_positions: int | None = None
) -> Valuation:
    """`value(request)` with a live count of positions on stderr (rich) when it is a terminal."""
    if not err.is_terminal:
        return value(request, None, max_positions)
    # Deferred: the progress display loads only on a terminal.
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (
        SpinnerColumn(),
        TextColumn("valuing {task.description}: {task.completed:,} positions"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task(describe_position(request), total=None)

        def update(positions: int) -> None:
            progress.update(task, completed=positions)

        return value(request, update, max_positions)


def describe_position(request: Request) -> str:
    """`3x3 blue a1 c1 / orange a3 c3`, or the layout's name."""
    if request.layout is not None:
        return request.layout
    return (
        f"{request.width}x{request.height} blue {' '.join(request.blue) or '-'} / "
        f"orange {' '.join(request.orange) or '-'}"
    )


def result_json(valuation: Valuation) -> dict[str, Any]:
    """The --json object: the value, its explicit form, the outcome, the atomic weight (null
    when the value is not all-small) and the position count."""
    request = valuation.request
    code, meaning = cgt_notation.outcome_class(valuation.game)
    weight = atomic_weight(valuation.game)
    found: dict[str, Any] = {
        "value": cgt_notation.render(valuation.game),
        "explicit": cgt_notation.explicit(valuation.game),
        "outcome": code,
        "outcome_meaning": meaning,
        **cgt_notation.thermal(valuation.game),
        "atomic_weight": None if weight is None else cgt_notation.render(weight),
        "positions": valuation.positions,
        "seconds": round(valuation.seconds, 3),
        "width": request.width,
        "height": request.height,
        "blue": list(request.blue),
        "orange": list(request.orange),
        "layout": request.layout,
    }
    layout = LAYOUTS.get(request.layout) if request.layout else None
    if layout is not None:
        found["paper"] = {"value": layout.paper_value, "positions": layout.paper_positions}
    return found


# What the outcome classes mean for the two colours.
WINNERS = {
    "N": "the player to move wins",
    "P": "the player to move loses",
    "L": "orange (Black, Left) wins whoever moves first",
    "R": "blue (White, Right) wins whoever moves first",
}


def print_result(valuation: Valuation, out: Console, *, as_json: bool) -> None:
    """The value for people (one fact a line) or as one JSON object."""
    found = result_json(valuation)
    weight = found["atomic_weight"]
    if as_json:
        out.out(json.dumps(found), highlight=False)
        return
    lines = [
        f"position   {describe_position(valuation.request)}",
        f"value      {found['value']}",
        f"outcome    {found['outcome']}: {WINNERS[found['outcome']]}",
        f"stops      {found['left_stop']} (Left), {found['right_stop']} (Right); "
        f"mean {found['mean']}, temperature {found['temperature']}",
        f"birthday   {found['birthday']}",
        f"atomic wt  {weight if weight is not None else 'none: the value is not all-small'}",
        f"positions  {found['positions']:,}",
        f"seconds    {found['seconds']}",
    ]
    paper = found.get("paper")
    if paper is not None:
        said = [f"value {paper['value']}"] if paper["value"] else []
        said += [f"{paper['positions']:,} positions"] if paper["positions"] else []
        lines.append(f"paper      {', '.join(said) if said else 'gives no figure'}")
    for line in lines:
        out.out(line, highlight=False)


def print_layouts(out: Console, *, as_json: bool) -> int:
    """List the named layouts (name, board, pawns, what the paper says)."""
    if as_json:
        listed = {name: layout._asdict() for name, layout in LAYOUTS.items()}
        out.out(json.dumps(listed), highlight=False)
        return EXIT_OK
    for name, layout in LAYOUTS.items():
        out.out(
            f"{name:<10} {layout.width}x{layout.height}  blue {layout.blue:<18} "
            f"orange {layout.orange:<18} {layout.about}",
            highlight=False,
        )
    return EXIT_OK
