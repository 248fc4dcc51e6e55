"""The L game (Edward de Bono): rules, move names and the wire format of spec section 5.

Squares are numbered 0..15 row by row: square `(y - 1) * 4 + (x - 1)` for the spec's `x y`
coordinates, (1, 1) top-left, x to the right, y downwards. An L placement is one of 48 indices
into `PLACEMENTS`; its name `x y D` gives the corner (where the long leg meets the foot) and the
direction D the foot points from the corner. The long leg runs two squares from the corner in the
one direction perpendicular to D that fits on the board: on a 4x4 board a leg from row/column 1
or 2 can only run towards 4 and one from 3 or 4 only towards 1, so every name is unambiguous.

A move is `x y D` (place the L) or `x y D x1 y1 x2 y2` (then move the neutral on (x1, y1) to the
empty square (x2, y2)). The player who cannot move his L to a new placement loses; the game is
drawn on the n-th occurrence of a position (default third) and after a ply limit (default 100).

`state_json(state)` returns::

    {"to_move": "blue", "ply": 0,
     "blue": [[2, 1], [3, 1], [3, 2], [3, 3]], "orange": [[2, 2], [2, 3], [2, 4], [3, 4]],
     "neutrals": [[1, 1], [4, 4]], "blue_name": "3 1 W", "orange_name": "2 4 E"}

with squares as [x, y] pairs in the spec's coordinates, each list in ascending square order. The
views name a square `"x,y"` (`square_id`, and `touched`).
Use `make_state` to build any position (for tests, puzzles and the solver).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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

# The draw rules' defaults (`LGameOptions`), which a game given no options plays by.
from protocols.l_game.defaults import PLY_LIMIT, REPETITION

if TYPE_CHECKING:
    from protocols.l_game.options import LGameOptions
    from protocols.options import GameOptions

SIZE = 4
SQUARES = SIZE * SIZE
FULL = (1 << SQUARES) - 1
DIRECTIONS: dict[str, tuple[int, int]] = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
NO_SQUARE = -1  # src/dst of a move that leaves the neutrals alone


def square(x: int, y: int) -> int:
    """The index of the spec square (x, y), both 1..4."""
    return (y - 1) * SIZE + (x - 1)


def coords(sq: int) -> tuple[int, int]:
    """The spec coordinates (x, y) of a square index."""
    return sq % SIZE + 1, sq // SIZE + 1


def _on_board(x: int, y: int) -> bool:
    return 1 <= x <= SIZE and 1 <= y <= SIZE


def leg_direction(x: int, y: int, d: str) -> tuple[int, int]:
    """The direction of the long leg of `x y d`: perpendicular to d, towards the far side."""
    if d in ("N", "S"):  # vertical foot, horizontal leg
        return (1, 0) if x <= SIZE // 2 else (-1, 0)
    return (0, 1) if y <= SIZE // 2 else (0, -1)


def _build_placements() -> tuple[tuple[str, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Every name `x y D` whose foot is on the board, its bitmask and its squares (corner first)."""
    names: list[str] = []
    masks: list[int] = []
    cells: list[tuple[int, ...]] = []
    for y in range(1, SIZE + 1):
        for x in range(1, SIZE + 1):
            for d, (dx, dy) in DIRECTIONS.items():
                if not _on_board(x + dx, y + dy):
                    continue
                lx, ly = leg_direction(x, y, d)
                squares = (
                    square(x, y),
                    square(x + dx, y + dy),
                    square(x + lx, y + ly),
                    square(x + 2 * lx, y + 2 * ly),
                )
                names.append(f"{x} {y} {d}")
                masks.append(sum(1 << s for s in squares))
                cells.append(squares)
    return tuple(names), tuple(masks), tuple(cells)


NAMES, MASKS, CELLS = _build_placements()
PLACEMENTS = len(NAMES)  # 48
PLACEMENT_OF_NAME: dict[str, int] = {name: i for i, name in enumerate(NAMES)}

# Placements that fit in the squares left free by a blocked mask (an L plus the two neutrals);
# filled on first use: there are only 48 * 66 such masks, so the cache stays small.
_FITTING: dict[int, tuple[int, ...]] = {}


def fitting(blocked: int) -> tuple[int, ...]:
    """The placements (in index order) that avoid every square of `blocked`."""
    found = _FITTING.get(blocked)
    if found is None:
        found = tuple(i for i, mask in enumerate(MASKS) if not mask & blocked)
        _FITTING[blocked] = found
    return found


def squares_of(mask: int) -> tuple[int, ...]:
    """The squares of a bitmask in ascending order."""
    return tuple(s for s in range(SQUARES) if mask >> s & 1)


class Move(NamedTuple):
    """Put the mover's L on `placement`, then move the neutral on `src` to `dst` (or -1, -1)."""

    placement: int
    src: int = NO_SQUARE
    dst: int = NO_SQUARE


@dataclass(frozen=True, slots=True)
class LGameState:
    """A position: both Ls (placement indices), the neutral squares (bitmask), and the history.

    `history` holds the key of every position since the start, this one last, for repetition.
    """

    to_move: Side
    ply: int
    blue: int
    orange: int
    neutrals: int
    history: tuple[int, ...]
    repetition: int = 3
    ply_limit: int = 100

    @property
    def mover(self) -> int:
        return self.blue if self.to_move is Side.BLUE else self.orange

    @property
    def opponent(self) -> int:
        return self.orange if self.to_move is Side.BLUE else self.blue


_NEXT = {Side.BLUE: Side.ORANGE, Side.ORANGE: Side.BLUE}


def position_key(to_move: Side, blue: int, orange: int, neutrals: int) -> int:
    """One int naming a position for the repetition rule (both Ls, neutrals, side to move)."""
    side = 0 if to_move is Side.BLUE else 1
    return ((neutrals * PLACEMENTS + orange) * PLACEMENTS + blue) * 2 + side


def make_state(
    blue: str = "3 1 W",
    orange: str = "2 4 E",
    neutrals: Iterable[tuple[int, int]] = ((1, 1), (4, 4)),
    to_move: Side = Side.BLUE,
    ply: int = 0,
    options: LGameOptions | None = None,
) -> LGameState:
    """Build a position from placement names and neutral (x, y) squares; it is its own history.

    Raises ValueError for unknown names or pieces that overlap. Example:
    `make_state("1 1 E", "4 4 N", [(2, 2), (3, 3)], Side.ORANGE)`.
    """
    repetition = options.repetition if options else REPETITION
    ply_limit = options.ply_limit if options else PLY_LIMIT
    if blue not in PLACEMENT_OF_NAME or orange not in PLACEMENT_OF_NAME:
        raise ValueError(f"unknown L placement name in {blue!r}, {orange!r}")
    b, o = PLACEMENT_OF_NAME[blue], PLACEMENT_OF_NAME[orange]
    cells = [square(x, y) for x, y in neutrals if _on_board(x, y)]
    n = sum(1 << s for s in set(cells))
    if len(cells) != 2 or n.bit_count() != 2:
        raise ValueError("there must be two neutrals on two different squares of the board")
    if MASKS[b] & MASKS[o] or (MASKS[b] | MASKS[o]) & n:
        raise ValueError("the Ls and the neutrals must not overlap")
    key = position_key(to_move, b, o, n)
    return LGameState(to_move, ply, b, o, n, (key,), repetition, ply_limit)


def _name_tokens(tokens: Sequence[str]) -> int:
    """The placement named by `x y D`, or BadSyntax."""
    x, y = _coordinate(tokens[0], "x"), _coordinate(tokens[1], "y")
    d = tokens[2]
    if d not in DIRECTIONS:
        raise BadSyntax(f"the direction must be one of N E S W, not {d!r}")
    name = f"{x} {y} {d}"
    if name not in PLACEMENT_OF_NAME:
        raise BadSyntax(f"{name}: the foot would stand off the board")
    return PLACEMENT_OF_NAME[name]


def _coordinate(token: str, what: str) -> int:
    if token not in ("1", "2", "3", "4"):
        raise BadSyntax(f"{what} must be one of 1 2 3 4, not {token!r}")
    return int(token)


def square_id(sq: int) -> str:
    """The id views give a square: `"x,y"` in the spec's coordinates."""
    x, y = coords(sq)
    return f"{x},{y}"


def _describe(sq: int) -> str:
    x, y = coords(sq)
    return f"({x},{y})"


class LGame(Game[LGameState, Move, "LGameOptions"]):
    """The L game on the wire: `x y D` or `x y D x1 y1 x2 y2`."""

    name: ClassVar[str] = "l-game"
    options_model: ClassVar[type[GameOptions]] = options_model_at(
        "protocols.l_game.options", "LGameOptions"
    )

    def initial_state(self, options: LGameOptions | None = None) -> LGameState:
        return make_state(options=options)

    def legal_moves(self, state: LGameState) -> Sequence[Move]:
        if self.outcome(state) is not None:
            return ()
        return self._moves(state)

    def _moves(self, state: LGameState) -> list[Move]:
        """Every move, L placements in index order, each first alone then with a neutral move."""
        own, other, neutrals = state.mover, state.opponent, state.neutrals
        taken = MASKS[other] | neutrals
        sources = squares_of(neutrals)
        moves: list[Move] = []
        for p in fitting(taken):
            if p == own:
                continue
            moves.append(Move(p))
            empty = squares_of(FULL & ~(taken | MASKS[p]))
            moves.extend(Move(p, src, dst) for src in sources for dst in empty)
        return moves

    def parse_move(self, state: LGameState, line: str) -> Move:
        tokens = split_tokens(line)
        if len(tokens) not in (3, 7):
            raise BadSyntax(f"expected 'x y D' or 'x y D x1 y1 x2 y2', got {len(tokens)} tokens")
        placement = _name_tokens(tokens)
        move = Move(placement)
        if len(tokens) == 7:
            x1, y1 = _coordinate(tokens[3], "x1"), _coordinate(tokens[4], "y1")
            x2, y2 = _coordinate(tokens[5], "x2"), _coordinate(tokens[6], "y2")
            move = Move(placement, square(x1, y1), square(x2, y2))
        if self.outcome(state) is not None:
            raise IllegalMove("the game is already over")
        self._check_placement(state, placement)
        if len(tokens) == 7:
            self._check_neutral(state, move)
        return move

    def _check_placement(self, state: LGameState, placement: int) -> None:
        name = NAMES[placement]
        if placement == state.mover:
            raise IllegalMove(f"{name}: the L must move to a different placement")
        mask = MASKS[placement]
        if mask & MASKS[state.opponent]:
            raise IllegalMove(f"{name}: the L would overlap {state.to_move.other.value}'s L")
        if mask & state.neutrals:
            raise IllegalMove(f"{name}: the L would cover a neutral piece")

    def _check_neutral(self, state: LGameState, move: Move) -> None:
        src, dst = move.src, move.dst
        if not state.neutrals >> src & 1:
            raise IllegalMove(f"there is no neutral piece on {_describe(src)}")
        if src == dst:
            raise IllegalMove(f"the neutral on {_describe(src)} must move to a different square")
        if MASKS[move.placement] >> dst & 1:
            raise IllegalMove(f"{_describe(dst)} is covered by the L just placed")
        if MASKS[state.opponent] >> dst & 1:
            raise IllegalMove(f"{_describe(dst)} is covered by {state.to_move.other.value}'s L")
        if state.neutrals >> dst & 1:
            raise IllegalMove(f"{_describe(dst)} already holds the other neutral piece")

    def apply(self, state: LGameState, move: Move) -> LGameState:
        neutrals = state.neutrals
        if move.src >= 0:
            neutrals = neutrals & ~(1 << move.src) | (1 << move.dst)
        blue, orange = state.blue, state.orange
        if state.to_move is Side.BLUE:
            blue = move.placement
        else:
            orange = move.placement
        to_move = _NEXT[state.to_move]
        key = position_key(to_move, blue, orange, neutrals)
        return LGameState(
            to_move,
            state.ply + 1,
            blue,
            orange,
            neutrals,
            (*state.history, key),
            state.repetition,
            state.ply_limit,
        )

    def outcome(self, state: LGameState) -> Outcome | None:
        # The rule ending comes first (spec 1.8), then repetition, then the ply limit.
        # The mover's own placement always fits, so he is stuck when it is the only one.
        if len(fitting(MASKS[state.opponent] | state.neutrals)) <= 1:
            loser = state.to_move
            return Outcome(loser.other, Reason.NO_LEGAL_MOVE, f"{loser.value} cannot move the L")
        if state.repetition and state.history.count(state.history[-1]) >= state.repetition:
            return Outcome(None, Reason.REPETITION, _nth(state.repetition) + " of the position")
        if state.ply_limit and state.ply >= state.ply_limit:
            return Outcome(None, Reason.PLY_LIMIT, f"{state.ply_limit} plies played")
        return None

    def format_move(self, move: Move) -> str:
        name = NAMES[move.placement]
        if move.src < 0:
            return name
        (x1, y1), (x2, y2) = coords(move.src), coords(move.dst)
        return f"{name} {x1} {y1} {x2} {y2}"

    def squares(self, state: LGameState) -> Sequence[str]:
        return _SQUARE_IDS

    def touched(self, state: LGameState, move: Move) -> Touched:
        old, new = MASKS[state.mover], MASKS[move.placement]
        left = [square_id(s) for s in squares_of(old & ~new)]
        arrived = [square_id(s) for s in squares_of(new)]
        if move.src != NO_SQUARE:
            left.append(square_id(move.src))
            arrived.append(square_id(move.dst))
        return Touched(from_=tuple(left), to=tuple(arrived))

    def render_text(self, state: LGameState) -> str:
        return f"{self.render_final(state)}\n{state.to_move.value} to move, ply {state.ply}"

    def render_final(self, state: LGameState) -> str:
        marks = ["."] * SQUARES
        for s in CELLS[state.blue]:
            marks[s] = "B"
        for s in CELLS[state.orange]:
            marks[s] = "O"
        for s in squares_of(state.neutrals):
            marks[s] = "N"
        rows = ["   " + " ".join(str(x) for x in range(1, SIZE + 1))]
        for y in range(SIZE):
            rows.append(f"{y + 1}  " + " ".join(marks[y * SIZE : (y + 1) * SIZE]))
        return "\n".join(rows)

    def state_json(self, state: LGameState) -> Mapping[str, Any]:
        def points(mask: int) -> list[list[int]]:
            return [list(coords(s)) for s in squares_of(mask)]

        return {
            "to_move": state.to_move.value,
            "ply": state.ply,
            "blue": points(MASKS[state.blue]),
            "orange": points(MASKS[state.orange]),
            "neutrals": points(state.neutrals),
            "blue_name": NAMES[state.blue],
            "orange_name": NAMES[state.orange],
        }


_SQUARE_IDS = tuple(square_id(s) for s in range(SQUARES))


def _nth(n: int) -> str:
    words = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}
    return f"{words.get(n, f'{n}th')} occurrence"


GAME = LGame()
