"""Alak: the rules (Baljeu's variant, as played by pbmserv) and the wire format of its moves.

A line of points `a`, `b`, ... left to right, empty at the start; blue moves first. A move places
one stone on an empty point and captures each enemy run touching it that has no empty neighbour
left (the board ends are walls). A player may not place on a point where one of his stones was
captured by the opponent's last move. The player to move with no legal placement ends the game
(this game's own ending, `stone-count`): more stones wins, equal is a draw. Draw rules: third
occurrence of a state, 200 plies.

Representation: the board is two bit masks (bit i is point `chr(ord('a') + i)`), plus the mask
of points banned for the player to move. In pbmserv's notation `X` is blue (Black, first player)
and `O` is orange (White, second player); `position("O.XO.O.", Side.BLUE, "g")` builds a test
position from that notation. Search code can skip the state objects and call `place` on masks.

Sizes: tournaments use `AlakOptions.size` in 5..26 (the spec's range). Analysis of tiny boards
(1..26 points) goes through `start_position(size)` and `position(...)`, which skip the options
model; every other function works on any size.

`state_json(state)` returns::

    {"to_move": "blue", "ply": 3, "size": 11,
     "points": ["blue", null, "orange", ...],   # one entry per point, a first
     "line": "X.O........",                       # the same in pbmserv notation
     "banned": ["c"],                             # points the player to move may not take
     "stones": {"blue": 1, "orange": 1}}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, NamedTuple

from pydantic import Field, field_validator

from protocols.base import (
    BadSyntax,
    Game,
    GameOptions,
    IllegalMove,
    Outcome,
    Reason,
    RepetitionCount,
    Side,
    Touched,
    split_tokens,
)

MAX_SIZE = 26  # one letter per point
MIN_TOURNAMENT_SIZE = 5
STONE_COUNT = "stone-count"  # this game's own ending (`Reason.GAME_ENDING`)
LETTERS = "abcdefghijklmnopqrstuvwxyz"
_ORDINALS = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}


class AlakOptions(GameOptions):
    """Settings of an Alak game; `repetition` and `ply_limit` are off when 0."""

    size: int = Field(
        11, ge=MIN_TOURNAMENT_SIZE, le=MAX_SIZE, description="number of points, a..(5..26)"
    )
    variant: str = Field("baljeu", description="rule variant; only 'baljeu' is offered")
    repetition: RepetitionCount = Field(
        3, description="draw on this occurrence of a state; 0 = off"
    )
    ply_limit: int = Field(200, ge=0, description="draw after this many plies; 0 = off")

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str) -> str:
        if value != "baljeu":
            raise ValueError(
                f"unknown Alak variant {value!r}: only 'baljeu' (Baljeu's rules, the default) "
                "is offered; the traditional Go-like variant is not implemented"
            )
        return value


@dataclass(frozen=True, slots=True)
class AlakRules:
    """Per-size constants shared by every state of a game (built once per setting)."""

    size: int
    repetition: int
    ply_limit: int
    full: int  # mask of all points
    below: tuple[int, ...]  # below[i]: mask of the points left of i
    above: tuple[int, ...]  # above[i]: mask of the points right of i


@cache
def rules_for(size: int, repetition: int = 3, ply_limit: int = 200) -> AlakRules:
    """The shared constants for a board of `size` points (1..26) and the given draw rules."""
    if not 1 <= size <= MAX_SIZE:
        raise ValueError(f"an Alak board has 1..{MAX_SIZE} points, not {size}")
    if repetition < 0 or repetition == 1 or ply_limit < 0:
        raise ValueError("repetition must be 0 or >= 2 and ply_limit >= 0")
    full = (1 << size) - 1
    below = tuple((1 << i) - 1 for i in range(size))
    above = tuple(full & ~((2 << i) - 1) for i in range(size))
    return AlakRules(size, repetition, ply_limit, full, below, above)


def place(rules: AlakRules, own: int, enemy: int, point: int) -> tuple[int, int, int]:
    """Put a stone of `own` on the empty `point`: returns (own, enemy, captured) masks after it.

    Only the enemy runs directly left and right of the new stone are examined. A run dies when
    the point beyond its far end is the board edge or one of the mover's stones.
    """
    bit = 1 << point
    own |= bit
    captured = 0
    if enemy & (bit >> 1):
        below = rules.below[point]
        other = below & ~enemy  # non-enemy points left of the stone; the nearest ends the run
        if not other:
            captured = below
        elif own >> (other.bit_length() - 1) & 1:
            captured = below & ~((1 << other.bit_length()) - 1)
    if enemy & (bit << 1):
        above = rules.above[point]
        other = above & ~enemy
        nearest = other & -other
        if not other:
            captured |= above
        elif own & nearest:
            captured |= above & (nearest - 1)
    return own, enemy & ~captured, captured


class Move(NamedTuple):
    """A placement on one point (0 = `a`)."""

    point: int


_MOVES = tuple(Move(i) for i in range(MAX_SIZE))
_HALF = 13  # legal-move lists come from two tables indexed by 13-bit halves of the free mask


def _move_table(offset: int) -> tuple[tuple[Move, ...], ...]:
    """table[mask]: the moves on the points `offset + i` for the set bits i of mask, in order."""
    table: list[tuple[Move, ...]] = [()]
    for i in range(_HALF):
        table += [(*moves, _MOVES[offset + i]) for moves in table]
    return tuple(table)


_LOW_MOVES = _move_table(0)
_HIGH_MOVES = _move_table(_HALF)
_LOW_MASK = (1 << _HALF) - 1
_BLUE, _ORANGE = Side.BLUE, Side.ORANGE  # module constants: enum attribute lookup is slow


class AlakState(NamedTuple):
    """A position plus what the draw rules need (a named tuple: cheap to build in search).

    `banned` holds the points banned for `to_move`; `seen` the keys of every state since the
    start including this one (empty when repetition is off); `repeats` how often this state has
    occurred so far.
    """

    rules: AlakRules
    blue: int
    orange: int
    banned: int
    to_move: Side
    ply: int
    seen: tuple[int, ...]
    repeats: int

    @property
    def key(self) -> int:
        """Board, ban set and side to move packed in one int (what repetition compares)."""
        return position_key(self.rules.size, self.blue, self.orange, self.banned, self.to_move)

    def free(self) -> int:
        """Mask of the points the player to move may take."""
        return self.rules.full & ~(self.blue | self.orange | self.banned)


def position_key(size: int, blue: int, orange: int, banned: int, to_move: Side) -> int:
    """Board, ban set and side to move packed in one int."""
    return blue | orange << size | banned << 2 * size | (to_move is _ORANGE) << 3 * size


def _make_state(
    rules: AlakRules, blue: int, orange: int, banned: int, to_move: Side, ply: int
) -> AlakState:
    """A state with a fresh history: this state is the first occurrence of itself."""
    seen: tuple[int, ...] = ()
    if rules.repetition:
        seen = (position_key(rules.size, blue, orange, banned, to_move),)
    return AlakState(rules, blue, orange, banned, to_move, ply, seen, 1)


def start_position(size: int, *, repetition: int = 3, ply_limit: int = 200) -> AlakState:
    """The empty board of any size 1..26 (analysis path; tournaments use `AlakOptions`)."""
    return _make_state(rules_for(size, repetition, ply_limit), 0, 0, 0, Side.BLUE, 0)


def position(
    line: str,
    to_move: Side = Side.BLUE,
    banned: Iterable[str] = (),
    *,
    repetition: int = 3,
    ply_limit: int = 200,
    ply: int = 0,
) -> AlakState:
    """A position from pbmserv notation: `X` blue, `O` orange, `.` empty; e.g. `"O.XO.O."`.

    `banned` lists the points (letters) the player to move may not take this turn; each must be
    empty. The position starts its own repetition history (it is its first occurrence).
    """
    rules = rules_for(len(line), repetition, ply_limit)
    blue = sum(1 << i for i, c in enumerate(line) if c == "X")
    orange = sum(1 << i for i, c in enumerate(line) if c == "O")
    if any(c not in "XO." for c in line):
        raise ValueError(f"points must be 'X', 'O' or '.', not {line!r}")
    ban = 0
    for letter in banned:
        index = LETTERS.find(letter)
        if len(letter) != 1 or not 0 <= index < rules.size or (blue | orange) >> index & 1:
            raise ValueError(f"banned point {letter!r} is not an empty point of {line!r}")
        ban |= 1 << index
    return _make_state(rules, blue, orange, ban, to_move, ply)


def pbm_line(state: AlakState) -> str:
    """The board in pbmserv notation, e.g. `XX.XO.O`."""
    return "".join(
        "X" if state.blue >> i & 1 else "O" if state.orange >> i & 1 else "."
        for i in range(state.rules.size)
    )


def _letters(mask: int) -> list[str]:
    return [LETTERS[i] for i in range(mask.bit_length()) if mask >> i & 1]


class Alak(Game[AlakState, Move, AlakOptions]):
    """Alak with Baljeu's rules on a line of 5..26 points."""

    name: ClassVar[str] = "alak"
    options_model: ClassVar[type[GameOptions]] = AlakOptions
    endings: ClassVar[Mapping[str, str]] = {
        STONE_COUNT: "the player to move cannot place: more stones wins, equal stones draw"
    }

    def initial_state(self, options: AlakOptions | None = None) -> AlakState:
        opts = options or AlakOptions()
        return start_position(opts.size, repetition=opts.repetition, ply_limit=opts.ply_limit)

    def legal_moves(self, state: AlakState) -> Sequence[Move]:
        if self._draw_reached(state):
            return ()
        free = state.rules.full & ~(state.blue | state.orange | state.banned)
        high = free >> _HALF
        if high:
            return _LOW_MOVES[free & _LOW_MASK] + _HIGH_MOVES[high]
        return _LOW_MOVES[free]

    def apply(self, state: AlakState, move: Move) -> AlakState:
        rules = state.rules
        if state.to_move is _BLUE:
            blue, orange, captured = place(rules, state.blue, state.orange, move.point)
            to_move = _ORANGE
        else:
            orange, blue, captured = place(rules, state.orange, state.blue, move.point)
            to_move = _BLUE
        if not rules.repetition:
            return AlakState(rules, blue, orange, captured, to_move, state.ply + 1, (), 1)
        size = rules.size  # position_key, inlined: this is the hot path of every search
        key = blue | orange << size | captured << 2 * size | (to_move is _ORANGE) << 3 * size
        seen = (*state.seen, key)
        # A linear count: the history is at most a few hundred plies long.
        repeats = seen.count(key)
        return AlakState(rules, blue, orange, captured, to_move, state.ply + 1, seen, repeats)

    def outcome(self, state: AlakState) -> Outcome | None:
        # The game's own ending comes before the draw rules (spec section 1, item 8).
        if not state.free():
            return _count_stones(state)
        rules = state.rules
        if rules.repetition and state.repeats >= rules.repetition:
            nth = _ORDINALS.get(state.repeats, f"{state.repeats}th")
            return Outcome(None, Reason.REPETITION, f"{nth} occurrence of the position")
        if rules.ply_limit and state.ply >= rules.ply_limit:
            return Outcome(None, Reason.PLY_LIMIT, f"{rules.ply_limit} plies played")
        return None

    @staticmethod
    def _draw_reached(state: AlakState) -> bool:
        rules = state.rules
        return bool(
            (rules.repetition and state.repeats >= rules.repetition)
            or (rules.ply_limit and state.ply >= rules.ply_limit)
        )

    def parse_move(self, state: AlakState, line: str) -> Move:
        tokens = split_tokens(line)
        size = state.rules.size
        last = LETTERS[size - 1]
        if len(tokens) != 1:
            raise BadSyntax(f"expected one point letter a..{last}, got {len(tokens)} tokens")
        token = tokens[0]
        index = LETTERS.find(token) if len(token) == 1 else -1
        if not 0 <= index < size:
            raise BadSyntax(f"{token!r} is not a point: points are the lowercase letters a..{last}")
        if self.outcome(state) is not None:
            raise IllegalMove("the game is over")
        if (state.blue | state.orange) >> index & 1:
            owner = Side.BLUE if state.blue >> index & 1 else Side.ORANGE
            raise IllegalMove(f"{token}: point is not empty (a {owner} stone stands there)")
        if state.banned >> index & 1:
            raise IllegalMove(
                f"{token}: cannot place where your stone was captured by the opponent's last move"
            )
        return _MOVES[index]

    def format_move(self, move: Move) -> str:
        return LETTERS[move.point]

    def squares(self, state: AlakState) -> Sequence[str]:
        return tuple(LETTERS[: state.rules.size])

    def touched(self, state: AlakState, move: Move) -> Touched:
        own, enemy = _sides(state)
        _, _, captured = place(state.rules, own, enemy, move.point)
        return Touched(to=(LETTERS[move.point],), removed=tuple(_letters(captured)))

    def render_text(self, state: AlakState) -> str:
        size = state.rules.size
        stones = " ".join(pbm_line(state))
        letters = " ".join(LETTERS[:size])
        mark = {Side.BLUE: "X", Side.ORANGE: "O"}[state.to_move]
        status = f"{state.to_move} ({mark}) to move, ply {state.ply}"
        if state.banned:
            status += "; banned: " + " ".join(_letters(state.banned))
        return f"{stones}\n{letters}\n{status}"

    def state_json(self, state: AlakState) -> Mapping[str, Any]:
        line = pbm_line(state)
        names = {"X": "blue", "O": "orange", ".": None}
        return {
            "to_move": str(state.to_move),
            "ply": state.ply,
            "size": state.rules.size,
            "points": [names[c] for c in line],
            "line": line,
            "banned": _letters(state.banned),
            "stones": {"blue": state.blue.bit_count(), "orange": state.orange.bit_count()},
        }


def _count_stones(state: AlakState) -> Outcome:
    blue, orange = state.blue.bit_count(), state.orange.bit_count()
    winner = Side.BLUE if blue > orange else Side.ORANGE if orange > blue else None
    detail = f"{state.to_move} cannot place: blue {blue}, orange {orange}"
    return Outcome(winner, Reason.GAME_ENDING, detail, STONE_COUNT)


def _sides(state: AlakState) -> tuple[int, int]:
    """(mover's stones, opponent's stones)."""
    if state.to_move is _BLUE:
        return state.blue, state.orange
    return state.orange, state.blue


GAME = Alak()
