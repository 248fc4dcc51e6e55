"""Legionnaires (Boardman): pawns slide diagonally, then capture like a chess king.

A move takes one own pawn, slides it diagonally one or more squares through empty squares
(blocked by any pawn and by the edge) to a square m, then captures an enemy pawn on a square t
next to m (8-neighbourhood): the enemy pawn is removed and the mover ends on t. Both parts are
compulsory. The wire line is `<from> <to>` with `<to>` the captured pawn's square; the slide
square is not sent, so several slides can make one move. The player to move with no legal move
loses; every move removes a pawn, so games are short and there are no draws.

Squares are named by file letter (`a`.. left to right) and rank number (`1`.. bottom to top).
Blue is White in Boardman's paper and moves first.

Positions are two bitboards (bit `rank * width + file`), one per colour, plus a shared `Board`
of precomputed geometry for the board size.

`state_json(state)` returns::

    {"to_move": "blue", "ply": 3, "width": 8, "height": 8,
     "pawns": {"blue": ["a6", "c6", ...], "orange": ["a1", ...]}}

with each colour's squares in board order (rank by rank from a1).

Tests and analysis build arbitrary positions with `position(blue=[...], orange=[...], ...)`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from protocols.base import (
    BadSyntax,
    Game,
    IllegalMove,
    Outcome,
    Reason,
    Side,
    Touched,
    options_model_at,
    split_tokens,
)

# The tournament game (`LegionnairesOptions`' defaults), which a game given no options plays.
from protocols.legionnaires.defaults import (
    DEFAULT_BLUE,
    DEFAULT_ORANGE,
    HEIGHT,
    WIDTH,
    board_name,
    square_names,
)

if TYPE_CHECKING:
    from protocols.legionnaires.options import LegionnairesOptions
    from protocols.options import GameOptions

_DIAGONALS = ((1, 1), (-1, 1), (1, -1), (-1, -1))


class Move(NamedTuple):
    """A move as sent on the wire: the pawn's square and the captured pawn's square."""

    frm: str
    to: str


@dataclass(frozen=True, slots=True)
class Board:
    """The geometry of one board size: square names, diagonal rays and king neighbourhoods."""

    width: int
    height: int
    names: tuple[str, ...] = field(compare=False, repr=False)
    index: Mapping[str, int] = field(compare=False, repr=False)
    # ring[sq]: bitmask of the up to 8 squares a king on sq touches.
    ring: tuple[int, ...] = field(compare=False, repr=False)
    # slides[sq]: one ray per diagonal from sq, nearest square first (sq itself excluded), each
    # square given as (its bit, its ring) so the hot loop does no shifting.
    slides: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = field(compare=False, repr=False)
    # Move values already made, by src * size + dst: legal_moves hands out shared objects.
    moves: dict[int, Move] = field(default_factory=dict, compare=False, repr=False)

    def move(self, src: int, dst: int) -> Move:
        """The (shared) move of the pawn on src capturing on dst."""
        key = src * len(self.names) + dst
        move = self.moves.get(key)
        if move is None:
            move = self.moves[key] = Move(self.names[src], self.names[dst])
        return move


@cache
def board_for(width: int, height: int) -> Board:
    """The (shared, cached) geometry of a width x height board."""
    size = width * height
    names = square_names(width, height)
    ring = tuple(_ring(width, height, sq) for sq in range(size))
    slides = tuple(
        tuple(tuple((1 << m, ring[m]) for m in ray) for ray in _rays(width, height, sq))
        for sq in range(size)
    )
    index = {name: sq for sq, name in enumerate(names)}
    return Board(width, height, names, index, ring, slides)


def _rays(width: int, height: int, sq: int) -> tuple[tuple[int, ...], ...]:
    """The non-empty diagonal rays from sq, each listed outwards."""
    x, y = sq % width, sq // width
    rays = []
    for dx, dy in _DIAGONALS:
        ray = []
        cx, cy = x + dx, y + dy
        while 0 <= cx < width and 0 <= cy < height:
            ray.append(cy * width + cx)
            cx, cy = cx + dx, cy + dy
        if ray:
            rays.append(tuple(ray))
    return tuple(rays)


def _ring(width: int, height: int, sq: int) -> int:
    """Bitmask of the squares next to sq (a chess king's reach)."""
    x, y = sq % width, sq // width
    mask = 0
    for cx in range(max(x - 1, 0), min(x + 2, width)):
        for cy in range(max(y - 1, 0), min(y + 2, height)):
            if (cx, cy) != (x, y):
                mask |= 1 << (cy * width + cx)
    return mask


@dataclass(frozen=True, slots=True)
class LegionnairesState:
    """A position: each colour's pawns as a bitboard, the side to move, and plies played."""

    to_move: Side
    ply: int
    blue: int
    orange: int
    board: Board


def _bits(mask: int) -> Iterable[int]:
    """The set bits of mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _targets(board: Board, src: int, occupied: int, enemy: int) -> int:
    """Bitmask of enemy pawns the pawn on src can capture after some diagonal slide."""
    reach = 0
    # The slide leaves src, so src itself never lies on the path and need not be vacated first.
    for ray in board.slides[src]:
        for bit, ring in ray:
            if occupied & bit:
                break
            reach |= ring
    return reach & enemy


def capture_map(board: Board, own: int, enemy: int) -> list[tuple[int, int]]:
    """(source square, bitmask of capturable squares) for each own pawn that can move."""
    occupied = own | enemy
    found = []
    for src in _bits(own):
        targets = _targets(board, src, occupied, enemy)
        if targets:
            found.append((src, targets))
    return found


def _move_list(board: Board, own: int, enemy: int) -> list[Move]:
    """Every legal move of `own` against `enemy`, by source then target square."""
    # The hot path of every search: bit loops inlined, Move objects shared through the board.
    occupied = own | enemy
    slides, move = board.slides, board.move
    found = []
    while own:
        low = own & -own
        own ^= low
        src = low.bit_length() - 1
        reach = 0
        for ray in slides[src]:
            for bit, ring in ray:
                if occupied & bit:
                    break
                reach |= ring
        targets = reach & enemy
        while targets:
            low = targets & -targets
            targets ^= low
            found.append(move(src, low.bit_length() - 1))
    return found


def _has_move(board: Board, own: int, enemy: int) -> bool:
    occupied = own | enemy
    return any(_targets(board, src, occupied, enemy) for src in _bits(own))


def size_of(board: Board) -> str:
    return board_name(board.width, board.height)


class Legionnaires(Game[LegionnairesState, Move, "LegionnairesOptions"]):
    """The rules of Legionnaires on any board from 2x2 to 26x26."""

    name: ClassVar[str] = "legionnaires"
    options_model: ClassVar[type[GameOptions]] = options_model_at(
        "protocols.legionnaires.options", "LegionnairesOptions"
    )

    def initial_state(self, options: LegionnairesOptions | None = None) -> LegionnairesState:
        # No options: the tournament game, 8x8 from the spec's start.
        board = board_for(options.width, options.height) if options else board_for(WIDTH, HEIGHT)
        blue, orange = options.start() if options else (DEFAULT_BLUE, DEFAULT_ORANGE)
        return LegionnairesState(Side.BLUE, 0, _mask(board, blue), _mask(board, orange), board)

    def legal_moves(self, state: LegionnairesState) -> Sequence[Move]:
        own, enemy = _sides(state)
        return _move_list(state.board, own, enemy)

    def parse_move(self, state: LegionnairesState, line: str) -> Move:
        board = state.board
        tokens = split_tokens(line)
        if not tokens:
            raise BadSyntax("empty line: expected a move '<from> <to>', e.g. 'e6 g3'")
        if len(tokens) != 2:
            raise BadSyntax(f"expected two squares '<from> <to>', got {len(tokens)} tokens")
        for token in tokens:
            if token not in board.index:
                raise BadSyntax(f"{token!r} is not a square of {size_of(board)}")
        outcome = self.outcome(state)
        if outcome is not None:
            raise IllegalMove(f"the game is over: {outcome.detail}")
        move = Move(tokens[0], tokens[1])
        _check_legal(state, move)
        return move

    def apply(self, state: LegionnairesState, move: Move) -> LegionnairesState:
        index = state.board.index
        src, dst = 1 << index[move.frm], 1 << index[move.to]
        if state.to_move is Side.BLUE:
            blue, orange = (state.blue ^ src) | dst, state.orange & ~dst
        else:
            blue, orange = state.blue & ~dst, (state.orange ^ src) | dst
        return LegionnairesState(state.to_move.other, state.ply + 1, blue, orange, state.board)

    def outcome(self, state: LegionnairesState) -> Outcome | None:
        own, enemy = _sides(state)
        if _has_move(state.board, own, enemy):
            return None
        loser = state.to_move
        return Outcome(loser.other, Reason.NO_LEGAL_MOVE, f"{loser} has no legal move")

    def format_move(self, move: Move) -> str:
        return f"{move.frm} {move.to}"

    def squares(self, state: LegionnairesState) -> Sequence[str]:
        return state.board.names

    def touched(self, state: LegionnairesState, move: Move) -> Touched:
        # The pawn ends where it captured; the slide square between is not part of the move.
        return Touched(from_=(move.frm,), to=(move.to,), removed=(move.to,))

    def render_text(self, state: LegionnairesState) -> str:
        return f"{self.render_final(state)}; {state.to_move} to move (ply {state.ply})"

    def render_final(self, state: LegionnairesState) -> str:
        board = state.board
        files = " ".join(chr(97 + x) for x in range(board.width))
        lines = [f"    {files}"]
        for y in reversed(range(board.height)):
            cells = [_cell(state, y * board.width + x) for x in range(board.width)]
            lines.append(f"{y + 1:>2}  {' '.join(cells)}  {y + 1}")
        lines.append(f"    {files}")
        lines.append("B = blue, O = orange")
        return "\n".join(lines)

    def state_json(self, state: LegionnairesState) -> Mapping[str, Any]:
        names = state.board.names
        return {
            "to_move": str(state.to_move),
            "ply": state.ply,
            "width": state.board.width,
            "height": state.board.height,
            "pawns": {
                "blue": [names[sq] for sq in _bits(state.blue)],
                "orange": [names[sq] for sq in _bits(state.orange)],
            },
        }


def _sides(state: LegionnairesState) -> tuple[int, int]:
    """(mover's pawns, opponent's pawns)."""
    if state.to_move is Side.BLUE:
        return state.blue, state.orange
    return state.orange, state.blue


def _mask(board: Board, squares: Iterable[str]) -> int:
    mask = 0
    for name in squares:
        mask |= 1 << board.index[name]
    return mask


def _cell(state: LegionnairesState, sq: int) -> str:
    if state.blue >> sq & 1:
        return "B"
    if state.orange >> sq & 1:
        return "O"
    return "."


def _check_legal(state: LegionnairesState, move: Move) -> None:
    """Raise IllegalMove with the most specific reason why `move` is not legal in `state`."""
    board = state.board
    me, them = state.to_move, state.to_move.other
    own, enemy = _sides(state)
    src, dst = board.index[move.frm], board.index[move.to]
    line = f"{move.frm} {move.to}"
    if not own >> src & 1:
        holder = f"{_a(them)} pawn" if enemy >> src & 1 else "no pawn"
        raise IllegalMove(f"{line}: {move.frm} holds {holder}; {me} must move one of its own pawns")
    if own >> dst & 1:
        raise IllegalMove(f"{line}: {move.to} holds {me}'s own pawn; a move must capture")
    if not enemy >> dst & 1:
        hint = " (a pawn slides diagonally, then captures an enemy pawn next to where it stops)"
        if _slide_squares(board, src, own | enemy) >> dst & 1:
            hint = " (send the captured pawn's square, not the square the slide stops on)"
        raise IllegalMove(
            f"{line}: every move must capture, and {move.to} holds no {them} pawn{hint}"
        )
    if not _targets(board, src, own | enemy, enemy) >> dst & 1:
        if board.ring[src] >> dst & 1:
            raise IllegalMove(
                f"{line}: a pawn must slide diagonally before capturing, "
                f"and no slide from {move.frm} stops next to {move.to}"
            )
        raise IllegalMove(
            f"{line}: no diagonal slide from {move.frm} through empty squares stops next to "
            f"{move.to}"
        )


def _slide_squares(board: Board, src: int, occupied: int) -> int:
    """Bitmask of the squares a pawn on src can slide to."""
    reach = 0
    for ray in board.slides[src]:
        for bit, _ in ray:
            if occupied & bit:
                break
            reach |= bit
    return reach


def _a(side: Side) -> str:
    return f"an {side}" if side is Side.ORANGE else f"a {side}"


def position(
    blue: Iterable[str],
    orange: Iterable[str],
    *,
    to_move: Side = Side.BLUE,
    width: int = 8,
    height: int = 8,
    ply: int = 0,
) -> LegionnairesState:
    """Build any position (validated like the start options), e.g. for tests and analysis.

    `position(["a1", "c1"], ["a3", "c3"], to_move=Side.ORANGE, width=3, height=3)`
    """
    # Deferred: the options model needs pydantic, which playing a game never loads.
    from protocols.legionnaires.options import LegionnairesOptions

    options = LegionnairesOptions(
        width=width, height=height, blue=tuple(blue), orange=tuple(orange)
    )
    return replace(GAME.initial_state(options), to_move=to_move, ply=ply)


GAME = Legionnaires()
