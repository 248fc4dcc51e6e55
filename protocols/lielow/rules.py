"""Lielow: the rules, the wire format and the views of the stacking game (spec section 3).

The board is 8×8, squares `a1`..`h8` (file letter left to right, rank digit bottom to top). Blue
starts with height-1 stacks on a2..h2, orange on a7..h7; blue moves first; nobody has a king.

A move takes one own stack of height h exactly h squares in one of the 8 queen directions,
jumping over anything. An empty landing square makes it h+1 high; landing on an enemy stack removes
that stack and leaves the mover 1 high; landing on a friendly stack is illegal. A stack may leave
the board: every off-board direction of one stack is the same move, `<from> off`, legal when at
least one direction leaves the board.

Crown resolution (how this module reads the spec, in this order, after every move):

1. The moved stack carries its crown with it. If the mover's king moved off the board, the mover's
   king is removed; if the mover captured the enemy king, the enemy king is removed. The player
   whose king was removed loses at once (`king-lost`), whatever the crown rule would say
   next: capturing the crowned one of two equally tall stacks loses, even though the other one is
   now uniquely tallest.
2. Otherwise, for each player separately: if he has a unique tallest stack, the crown goes to (or
   stays on) it; if the tallest height is shared, the crown stays where it was, even when it sits
   on a shorter stack (a king that captured and dropped to height 1 keeps the crown while two other
   stacks tie for tallest); a player without a king stays without one until he has a unique
   tallest stack. Both players are checked after every move, so a capture that breaks a tie among
   the victim's tallest stacks moves the victim's crown at once, and a king that captures and drops
   below another own stack hands the crown to that stack at once.

Endings, checked in this order (spec section 1.8: the game's own endings before the draw rules):

1. `king-lost` (this game's own ending, `Reason.GAME_ENDING`): the player whose king was removed
   by the last move loses.
2. `NO_LEGAL_MOVE`: the player to move has no legal move and loses. Only a player with no stack
   at all can be in that state (a player's stack that is furthest east can always move east:
   to an empty square, a capture, or off the board), and a player reduced to one stack has it as a
   unique tallest stack, i.e. a king, so the rules never reach this; a careful referee still
   judges it (a player who must move and cannot has lost), and positions built for analysis can.
3. `PLY_LIMIT`: a safety cap (option `ply_limit`, default 1000, 0 = off) ends the game drawn when
   `ply` reaches it. The rules are finite and drawless: between two removals every move raises the
   total stack height by 1, no stack exceeds height 8, and each side always keeps a stack, so a
   game lasts at most 7·(16+15+…+2) + 15 = 960 plies and the default cap never decides a game.

Wire format: `<from> <to>` or `<from> off`, e.g. `e2 e3`, `c3 c5`, `a2 off`.

`state_json(state)` gives:
    {"to_move": "orange", "ply": 1, "ply_limit": 1000,
     "kings": {"blue": "e3", "orange": null},
     "stacks": [{"square": "e3", "owner": "blue", "height": 2, "king": true}, ...]}
with the stacks in square order a1, b1, …, h8; a side's king is null when it has none, or when its
king was just removed (the game is then over). `render_text` draws ranks 8..1 top to bottom; a cell
is `b2` (blue, height 2) or `o1`, with `*` marking a king.

For tests and analysis, `GAME.state_from_stacks({"e3": ("blue", 2), "d7": ("orange", 1)}, ...)`
builds any position (see its docstring).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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

# The safety cap's default (`LielowOptions`), which a game given no options plays by.
from protocols.lielow.defaults import DEFAULT_PLY_LIMIT

if TYPE_CHECKING:
    from protocols.lielow.options import LielowOptions
    from protocols.options import GameOptions

SIZE = 8
MAX_HEIGHT = SIZE  # a stack of height 7 landing on the board grows to 8; height 8 can only leave
OFF = -1  # the destination of a move that leaves the board
FILES = "abcdefgh"
SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[i % SIZE]}{i // SIZE + 1}" for i in range(SIZE**2))
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}
# Queen directions as (file step, rank step); this order fixes the order of legal_moves.
DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
KING_LOST = "king-lost"  # this game's own ending (`Reason.GAME_ENDING`)
_SYNTAX = "expected '<from> <to>' or '<from> off', e.g. 'e2 e3' or 'a2 off'"


class Move(NamedTuple):
    """Move the stack on square index `src` to `dst` (0 = a1 … 63 = h8) or off the board (OFF)."""

    src: int
    dst: int


def _targets(square: int, height: int) -> tuple[tuple[int, ...], bool]:
    """On-board landing squares of a stack of `height` on `square`, and whether it can leave."""
    file, rank = square % SIZE, square // SIZE
    landings: list[int] = []
    leaves = False
    for df, dr in DIRECTIONS:
        f, r = file + df * height, rank + dr * height
        if 0 <= f < SIZE and 0 <= r < SIZE:
            landings.append(r * SIZE + f)
        else:
            leaves = True
    return tuple(landings), leaves


# Precomputed at import: everything the hot path needs, indexed by square * 9 + height (1..8).
_LANDINGS: list[tuple[int, ...]] = [()] * (SIZE**2 * (MAX_HEIGHT + 1))
_LEAVES: list[bool] = [False] * (SIZE**2 * (MAX_HEIGHT + 1))
for _sq in range(SIZE**2):
    for _h in range(1, MAX_HEIGHT + 1):
        _LANDINGS[_sq * 9 + _h], _LEAVES[_sq * 9 + _h] = _targets(_sq, _h)
# One shared move object per (src, dst), so generating moves allocates nothing but the list.
_MOVES: tuple[tuple[Move, ...], ...] = tuple(
    tuple(Move(s, d) for d in range(SIZE**2)) for s in range(SIZE**2)
)
_OFF_MOVES: tuple[Move, ...] = tuple(Move(s, OFF) for s in range(SIZE**2))
# (landing square, move) pairs per square * 9 + height: no friendly stack check yet.
_STEPS: list[tuple[tuple[int, Move], ...]] = [
    tuple((dst, _MOVES[key // 9][dst]) for dst in landings)
    for key, landings in enumerate(_LANDINGS)
]
_LINES: dict[Move, str] = {
    m: f"{SQUARE_NAMES[m.src]} {SQUARE_NAMES[m.dst]}" for r in _MOVES for m in r
}
_LINES.update({m: f"{SQUARE_NAMES[m.src]} off" for m in _OFF_MOVES})


@dataclass(frozen=True, slots=True)
class LielowState:
    """A position: `board[i]` is +h for a blue stack of height h on square i, -h for orange.

    `kings` holds each side's king square (blue, orange), -1 for none; `lost` is the side whose
    king the last move removed, if any.
    """

    board: tuple[int, ...]
    to_move: Side
    ply: int
    kings: tuple[int, int] = (-1, -1)
    lost: Side | None = None
    ply_limit: int = DEFAULT_PLY_LIMIT


def _crown(board: list[int], kings: list[int], side: Side) -> None:
    """Put `side`'s crown on its unique tallest stack, if it has one; else leave it where it is."""
    if side is Side.BLUE:
        top = max(board)
        if top > 0 and board.count(top) == 1:
            kings[0] = board.index(top)
    else:
        low = min(board)
        if low < 0 and board.count(low) == 1:
            kings[1] = board.index(low)


def _owner(value: int) -> Side:
    return Side.BLUE if value > 0 else Side.ORANGE


class Lielow(Game[LielowState, Move, "LielowOptions"]):
    """The Lielow rules and wire format."""

    name: ClassVar[str] = "lielow"
    options_model: ClassVar[type[GameOptions]] = options_model_at(
        "protocols.lielow.options", "LielowOptions"
    )
    endings: ClassVar[Mapping[str, str]] = {
        KING_LOST: "a player whose king was removed (captured, or moved off the board) loses"
    }

    def initial_state(self, options: LielowOptions | None = None) -> LielowState:
        limit = options.ply_limit if options else DEFAULT_PLY_LIMIT
        board = [0] * SIZE**2
        for file in range(SIZE):
            board[1 * SIZE + file] = 1
            board[6 * SIZE + file] = -1
        return LielowState(tuple(board), Side.BLUE, 0, (-1, -1), None, limit)

    def state_from_stacks(
        self,
        stacks: Mapping[str, tuple[Side | str, int]],
        *,
        to_move: Side | str = Side.BLUE,
        kings: Mapping[Side | str, str | None] | None = None,
        ply: int = 0,
        options: LielowOptions | None = None,
    ) -> LielowState:
        """Build a position: `stacks` maps squares to (owner, height), e.g. {"e3": ("blue", 2)}.

        `kings` maps a side to its king's square or None; a side left out of it (or every side,
        when `kings` is None) gets the crown the rule would give from scratch: its unique tallest
        stack, or no king when the tallest height is shared. A king named in `kings` must be on
        the side's unique tallest stack when it has one (the crown rule puts it there after every
        move); with the tallest height shared it may sit on any own stack. Raises ValueError for
        bad input.
        """
        if ply < 0:
            raise ValueError(f"ply must be 0 or more, not {ply}")
        board = [0] * SIZE**2
        for square, (owner, height) in stacks.items():
            if square not in SQUARE_INDEX:
                raise ValueError(f"{square!r} is not a square (a1..h8)")
            if not 1 <= height <= MAX_HEIGHT:
                raise ValueError(f"{square}: height must be 1..{MAX_HEIGHT}, not {height}")
            board[SQUARE_INDEX[square]] = height if Side(owner) is Side.BLUE else -height
        crowns = [-1, -1]
        for side in Side:
            _crown(board, crowns, side)
        for key, king in (kings or {}).items():
            side = Side(key)
            index = 0 if side is Side.BLUE else 1
            at = -1 if king is None else SQUARE_INDEX.get(king, -2)
            if at == -2 or (at >= 0 and (board[at] == 0 or _owner(board[at]) is not side)):
                raise ValueError(f"{side} king on {king!r}: no {side} stack there")
            if crowns[index] >= 0 and at != crowns[index]:
                unique = SQUARE_NAMES[crowns[index]]
                raise ValueError(f"{side}'s unique tallest stack on {unique} must be its king")
            crowns[index] = at
        limit = options.ply_limit if options else DEFAULT_PLY_LIMIT
        return LielowState(tuple(board), Side(to_move), ply, (crowns[0], crowns[1]), None, limit)

    def legal_moves(self, state: LielowState) -> Sequence[Move]:
        if state.lost is not None or 0 < state.ply_limit <= state.ply:
            return ()
        board = state.board
        moves: list[Move] = []
        add = moves.append
        # Two copies of one loop, so the hot path compares signs without multiplying.
        if state.to_move is Side.BLUE:
            for src, value in enumerate(board):
                if value > 0:
                    key = src * 9 + value
                    for dst, move in _STEPS[key]:
                        if board[dst] <= 0:
                            add(move)
                    if _LEAVES[key]:
                        add(_OFF_MOVES[src])
        else:
            for src, value in enumerate(board):
                if value < 0:
                    key = src * 9 - value
                    for dst, move in _STEPS[key]:
                        if board[dst] >= 0:
                            add(move)
                    if _LEAVES[key]:
                        add(_OFF_MOVES[src])
        return moves

    def apply(self, state: LielowState, move: Move) -> LielowState:
        board = list(state.board)
        src, dst = move
        height = board[src]
        board[src] = 0
        mover = state.to_move
        me, them = (0, 1) if mover is Side.BLUE else (1, 0)
        kings = list(state.kings)
        lost: Side | None = None
        if dst == OFF:
            if kings[me] == src:
                kings[me], lost = -1, mover
        else:
            if kings[me] == src:
                kings[me] = dst  # the crown travels with its stack
            if board[dst] == 0:
                board[dst] = height + 1 if height > 0 else height - 1
            else:
                board[dst] = 1 if height > 0 else -1
                if kings[them] == dst:
                    kings[them], lost = -1, mover.other
                else:  # the victim lost a stack, which may leave him a unique tallest one
                    _crown(board, kings, mover.other)
        # Only the mover's stacks changed otherwise; re-checking an unchanged side changes nothing.
        if lost is not mover:
            _crown(board, kings, mover)
        return LielowState(
            tuple(board), mover.other, state.ply + 1, (kings[0], kings[1]), lost, state.ply_limit
        )

    def outcome(self, state: LielowState) -> Outcome | None:
        if state.lost is not None:
            mover = state.to_move.other
            if state.lost is mover:
                detail = f"{mover} moved its own king off the board"
            else:
                detail = f"{mover} captured {state.lost}'s king"
            return Outcome(state.lost.other, Reason.GAME_ENDING, detail, KING_LOST)
        if (max(state.board) if state.to_move is Side.BLUE else -min(state.board)) <= 0:
            return Outcome(
                state.to_move.other, Reason.NO_LEGAL_MOVE, f"{state.to_move} has no legal move"
            )
        if 0 < state.ply_limit <= state.ply:
            return Outcome(
                None, Reason.PLY_LIMIT, f"the ply limit of {state.ply_limit} was reached"
            )
        return None

    def parse_move(self, state: LielowState, line: str) -> Move:
        tokens = split_tokens(line)
        if len(tokens) != 2:
            got = "a blank line" if not tokens else f"{len(tokens)} token" + "s" * (len(tokens) > 1)
            raise BadSyntax(f"{_SYNTAX}; got {got}")
        first, second = tokens
        if first not in SQUARE_INDEX:
            raise BadSyntax(f"{first!r} is not a square (a1..h8); {_SYNTAX}")
        if second != "off" and second not in SQUARE_INDEX:
            raise BadSyntax(f"{second!r} is neither a square (a1..h8) nor 'off'; {_SYNTAX}")
        src = SQUARE_INDEX[first]
        move = _OFF_MOVES[src] if second == "off" else _MOVES[src][SQUARE_INDEX[second]]
        problem = self._problem(state, move)
        if problem:
            raise IllegalMove(f"{first} {second}: {problem}")
        return move

    def _problem(self, state: LielowState, move: Move) -> str:
        """Why `move` is illegal in `state`, or "" when it is legal."""
        ended = self.outcome(state)
        if ended is not None:
            return f"the game is over ({ended.detail})"
        src, dst = move
        value = state.board[src]
        if value == 0:
            return f"there is no stack on {SQUARE_NAMES[src]}"
        if _owner(value) is not state.to_move:
            return f"the stack on {SQUARE_NAMES[src]} is {_owner(value)}'s, not {state.to_move}'s"
        height = abs(value)
        if dst == OFF:
            if _LEAVES[src * 9 + height]:
                return ""
            return f"a stack of height {height} on {SQUARE_NAMES[src]} cannot leave the board"
        if dst == src:
            return "a stack must move away from its square"
        df, dr = abs(dst % SIZE - src % SIZE), abs(dst // SIZE - src // SIZE)
        if df and dr and df != dr:
            return "a stack moves in a straight line (orthogonal or diagonal)"
        if max(df, dr) != height:
            squares = "square" if height == 1 else "squares"
            distance = max(df, dr)
            return (
                f"a stack of height {height} must move exactly {height} {squares}, not {distance}"
            )
        if state.board[dst] * value > 0:
            return "cannot land on your own stack"
        return ""

    def format_move(self, move: Move) -> str:
        return _LINES[move]

    def squares(self, state: LielowState) -> Sequence[str]:
        return SQUARE_NAMES

    def touched(self, state: LielowState, move: Move) -> Touched:
        src, dst = move
        if dst == OFF:
            return Touched(from_=(SQUARE_NAMES[src],))
        # A legal move lands on an empty square or on an enemy stack, which it removes.
        captured = (SQUARE_NAMES[dst],) if state.board[dst] else ()
        return Touched(from_=(SQUARE_NAMES[src],), to=(SQUARE_NAMES[dst],), removed=captured)

    def render_text(self, state: LielowState) -> str:
        return self._render(state, f"{state.to_move} to move, ply {state.ply}; ")

    def render_final(self, state: LielowState) -> str:
        return self._render(state, "")

    def _render(self, state: LielowState, mover: str) -> str:
        files = ("    " + "".join(f"  {f} " for f in FILES)).rstrip()
        lines = [files]
        for rank in range(SIZE - 1, -1, -1):
            cells = "".join(self._cell(state, rank * SIZE + f) for f in range(SIZE))
            lines.append(f" {rank + 1}  {cells}  {rank + 1}")
        lines.append(files)
        lines.append(f"{mover}* marks a king")
        return "\n".join(lines)

    @staticmethod
    def _cell(state: LielowState, square: int) -> str:
        value = state.board[square]
        if value == 0:
            return "  . "
        crown = "*" if square in state.kings else " "
        return f" {'b' if value > 0 else 'o'}{abs(value)}{crown}"

    def state_json(self, state: LielowState) -> Mapping[str, Any]:
        stacks = [
            {
                "square": SQUARE_NAMES[sq],
                "owner": str(_owner(value)),
                "height": abs(value),
                "king": sq in state.kings,
            }
            for sq, value in enumerate(state.board)
            if value
        ]
        kings = {
            str(side): None if k < 0 else SQUARE_NAMES[k]
            for side, k in zip(Side, state.kings, strict=True)
        }
        return {
            "to_move": str(state.to_move),
            "ply": state.ply,
            "ply_limit": state.ply_limit,
            "kings": kings,
            "stacks": stacks,
        }


GAME = Lielow()
