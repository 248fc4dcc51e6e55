"""Alak: the rules (Baljeu's variant, as played by pbmserv) and the wire format of its moves.

A line of points `a`, `b`, ... left to right, empty at the start; blue moves first. A move places
one stone on an empty point and captures each enemy run touching it that has no empty neighbour
left (the board ends are walls). A player may not place on a point where one of his stones was
captured by the opponent's last move. The player to move with no legal placement ends the game
(this game's own ending, `stone-count`): more stones wins, equal is a draw. Draw rules: third
occurrence of a state, 200 plies.

The traditional variant (`AlakOptions.variant = "traditional"`, `TraditionalState`): no suicide
unless the move captures; ko (a move may not recreate the board as it was after the mover's previous
move: the single point that would is the state's `banned`); `pass`, legal at any time, two in a row
end the game; score = territory + stones + captures, higher wins. Its repetition key adds the
pending pass and the capture balance (rules.md, beside this module). `BALJEU` and `TRADITIONAL` are
the two rule sets alone; `GAME`, the registered game, hands each state to its own, so that a search
can pick one per game and Baljeu's code has no variant test in it.

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
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, overload

# The defaults of `AlakOptions`, which a game given no options plays by.
from protocols.alak.defaults import MAX_SIZE, PLY_LIMIT, REPETITION, SIZE
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

if TYPE_CHECKING:
    from protocols.alak.options import AlakOptions
    from protocols.options import GameOptions

STONE_COUNT = "stone-count"  # this game's own ending (`Reason.GAME_ENDING`)
LETTERS = "abcdefghijklmnopqrstuvwxyz"
_ORDINALS = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}


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


def pbm_line(state: AlakState | TraditionalState) -> str:
    """The board in pbmserv notation, e.g. `XX.XO.O`."""
    return "".join(
        "X" if state.blue >> i & 1 else "O" if state.orange >> i & 1 else "."
        for i in range(state.rules.size)
    )


def _letters(mask: int) -> list[str]:
    return [LETTERS[i] for i in range(mask.bit_length()) if mask >> i & 1]


# --- The traditional (Go-like) variant ---------------------------------------------------------

PASS = -1  # `Move(PASS)` is the move `pass` (traditional variant only)
SCORE = "score"  # the traditional variant's ending: two passes in a row, then the scores decide


class TraditionalState(NamedTuple):
    """A traditional-Alak position plus its draw-rule history (the first eight fields mean what
    they mean in `AlakState`, so views and evaluations read both alike).

    `banned` is the ko point (a mask of at most one bit) the player to move may not take;
    `passes` counts the passes in a row just played (2 ends the game); `blue_captured` and
    `orange_captured` count the stones each side has captured so far (part of the score).
    """

    rules: AlakRules
    blue: int
    orange: int
    banned: int
    to_move: Side
    ply: int
    seen: tuple[int, ...]
    repeats: int
    passes: int
    blue_captured: int
    orange_captured: int

    @property
    def key(self) -> int:
        """What repetition compares: board, ko point, side to move, a pending pass, and the
        capture balance (the one part of the score the board does not show)."""
        return traditional_key(
            self.rules.size,
            self.blue,
            self.orange,
            self.banned,
            self.to_move,
            self.passes,
            self.blue_captured - self.orange_captured,
        )


AnyAlakState = AlakState | TraditionalState


def traditional_key(
    size: int, blue: int, orange: int, banned: int, to_move: Side, passes: int, balance: int
) -> int:
    """`position_key` plus the pending pass and the capture balance (zigzag: no sign bit)."""
    zigzag = 2 * balance if balance >= 0 else -2 * balance - 1
    base = position_key(size, blue, orange, banned, to_move)
    return base | (passes & 1) << 3 * size + 1 | zigzag << 3 * size + 2


def has_liberty(rules: AlakRules, own: int, enemy: int, point: int) -> bool:
    """Whether the run of `own` stones through `point` touches an empty point."""
    empty = rules.full & ~(own | enemy)
    left = point
    while left > 0 and own >> (left - 1) & 1:
        left -= 1
    if left > 0 and empty >> (left - 1) & 1:
        return True
    right = point
    while right < rules.size - 1 and own >> (right + 1) & 1:
        right += 1
    return right < rules.size - 1 and bool(empty >> (right + 1) & 1)


def traditional_place(
    rules: AlakRules, own: int, enemy: int, point: int
) -> tuple[int, int, int, int] | None:
    """`own` places on the empty `point` under the traditional rules: (own, enemy, captured,
    ko) after it, or None when the move would fill its own group's last liberty without
    capturing (suicide). `ko` is the mask of the point the opponent may not take next: the one
    whose placement would recreate the board as it was before this move."""
    new_own, new_enemy, captured = place(rules, own, enemy, point)
    if not captured:
        if not has_liberty(rules, new_own, new_enemy, point):
            return None
        return new_own, new_enemy, 0, 0
    ko = 0
    if not captured & (captured - 1):  # exactly one stone taken: can it be taken back at once?
        _, _, back = place(rules, new_enemy, new_own, captured.bit_length() - 1)
        if back == 1 << point:  # retaking would capture this stone alone: the old board again
            ko = captured
    return new_own, new_enemy, captured, ko


def territory(rules: AlakRules, blue: int, orange: int) -> tuple[int, int]:
    """(blue's, orange's) territory: empty points in runs bounded only by one side's stones and
    the board ends. A run touching no stone at all (the empty board) is nobody's."""
    counts = [0, 0]
    point = 0
    size = rules.size
    while point < size:
        if (blue | orange) >> point & 1:
            point += 1
            continue
        start = point
        while point < size and not (blue | orange) >> point & 1:
            point += 1
        sides = {0 if blue >> end & 1 else 1 for end in (start - 1, point) if 0 <= end < size}
        if len(sides) == 1:
            counts[sides.pop()] += point - start
    return counts[0], counts[1]


def traditional_score(state: TraditionalState) -> tuple[int, int]:
    """(blue, orange) scores: territory + stones on the board + stones captured."""
    blue_land, orange_land = territory(state.rules, state.blue, state.orange)
    return (
        blue_land + state.blue.bit_count() + state.blue_captured,
        orange_land + state.orange.bit_count() + state.orange_captured,
    )


def _make_traditional(
    rules: AlakRules,
    blue: int,
    orange: int,
    banned: int,
    to_move: Side,
    ply: int,
    passes: int = 0,
    captured: tuple[int, int] = (0, 0),
) -> TraditionalState:
    seen: tuple[int, ...] = ()
    if rules.repetition:
        balance = captured[0] - captured[1]
        seen = (traditional_key(rules.size, blue, orange, banned, to_move, passes, balance),)
    return TraditionalState(
        rules, blue, orange, banned, to_move, ply, seen, 1, passes, captured[0], captured[1]
    )


def traditional_start(size: int, *, repetition: int = 3, ply_limit: int = 200) -> TraditionalState:
    """The empty board of traditional Alak, any size 1..26."""
    return _make_traditional(rules_for(size, repetition, ply_limit), 0, 0, 0, Side.BLUE, 0)


def traditional_position(
    line: str,
    to_move: Side = Side.BLUE,
    ko: str | None = None,
    *,
    passes: int = 0,
    captured: tuple[int, int] = (0, 0),
    repetition: int = 3,
    ply_limit: int = 200,
) -> TraditionalState:
    """A traditional position from pbmserv notation (see `position`); `ko` is the point the
    player to move may not take, `passes` the passes just played in a row (0 or 1),
    `captured` the stones (blue, orange) have captured so far."""
    base = position(line, to_move, () if ko is None else (ko,), repetition=0, ply_limit=0)
    rules = rules_for(len(line), repetition, ply_limit)
    return _make_traditional(
        rules, base.blue, base.orange, base.banned, to_move, 0, passes, captured
    )


def _traditional_points(state: TraditionalState) -> list[int]:
    """The points the player to move may place on (pass aside), in order."""
    own, enemy = _sides(state)
    rules = state.rules
    free = rules.full & ~(own | enemy | state.banned)
    return [
        point
        for point in range(rules.size)
        if free >> point & 1 and traditional_place(rules, own, enemy, point) is not None
    ]


def _traditional_apply(state: TraditionalState, move: Move) -> TraditionalState:
    rules, blue_to_move = state.rules, state.to_move is _BLUE
    own, enemy = _sides(state)
    caught_blue, caught_orange = state.blue_captured, state.orange_captured
    passes, ko = state.passes + 1, 0
    if move.point != PASS:
        placed = traditional_place(rules, own, enemy, move.point)
        if placed is None:
            raise ValueError(f"{LETTERS[move.point]} is suicide here; parse_move rejects it")
        own, enemy, captured, ko = placed
        passes = 0
        if blue_to_move:
            caught_blue += captured.bit_count()
        else:
            caught_orange += captured.bit_count()
    blue, orange = (own, enemy) if blue_to_move else (enemy, own)
    to_move = _ORANGE if blue_to_move else _BLUE
    seen: tuple[int, ...] = ()
    repeats = 1
    if rules.repetition:
        balance = caught_blue - caught_orange
        key = traditional_key(rules.size, blue, orange, ko, to_move, passes, balance)
        seen = (*state.seen, key)
        repeats = seen.count(key)
    return TraditionalState(
        rules,
        blue,
        orange,
        ko,
        to_move,
        state.ply + 1,
        seen,
        repeats,
        passes,
        caught_blue,
        caught_orange,
    )


def _traditional_outcome(state: TraditionalState) -> Outcome | None:
    if state.passes >= 2:  # the game's own ending comes before the draw rules
        blue, orange = traditional_score(state)
        winner = Side.BLUE if blue > orange else Side.ORANGE if orange > blue else None
        return Outcome(
            winner, Reason.GAME_ENDING, f"two passes: blue {blue}, orange {orange}", SCORE
        )
    return _draw_outcome(state)


def _draw_outcome(state: AnyAlakState) -> Outcome | None:
    rules = state.rules
    if rules.repetition and state.repeats >= rules.repetition:
        nth = _ORDINALS.get(state.repeats, f"{state.repeats}th")
        return Outcome(None, Reason.REPETITION, f"{nth} occurrence of the position")
    if rules.ply_limit and state.ply >= rules.ply_limit:
        return Outcome(None, Reason.PLY_LIMIT, f"{rules.ply_limit} plies played")
    return None


def _traditional_parse(state: TraditionalState, token: str, index: int) -> Move:
    """A placement or `pass` under the traditional rules (the token is already a point or
    `pass`), or IllegalMove naming the rule it breaks."""
    if _traditional_outcome(state) is not None:
        raise IllegalMove("the game is over")
    if index == PASS:
        return PASS_MOVE
    if (state.blue | state.orange) >> index & 1:
        owner = Side.BLUE if state.blue >> index & 1 else Side.ORANGE
        raise IllegalMove(f"{token}: point is not empty (a {owner} stone stands there)")
    if state.banned >> index & 1:
        raise IllegalMove(
            f"{token}: ko: retaking at once would recreate the board as it was after your "
            "previous move (play elsewhere first)"
        )
    own, enemy = _sides(state)
    if traditional_place(state.rules, own, enemy, index) is None:
        raise IllegalMove(
            f"{token}: suicide: it fills the last liberty of your own group without capturing"
        )
    return _MOVES[index]


PASS_MOVE = Move(PASS)


# The options model of every Alak game, whichever variant it plays.
OPTIONS_MODEL = options_model_at("protocols.alak.options", "AlakOptions")


def _settings(options: AlakOptions | None) -> tuple[int, int, int]:
    """(size, repetition, ply_limit) of `options`, or the defaults for a game given none."""
    if options is None:
        return SIZE, REPETITION, PLY_LIMIT
    return options.size, options.repetition, options.ply_limit


class BaljeuAlak(Game[AlakState, Move, "AlakOptions"]):
    """Alak with Baljeu's rules alone, no variant to tell apart: `Alak` (the registered game)
    hands Baljeu states to this, and a search on a Baljeu game calls it directly (`BALJEU`)."""

    name: ClassVar[str] = "alak"
    options_model: ClassVar[type[GameOptions]] = OPTIONS_MODEL
    endings: ClassVar[Mapping[str, str]] = {
        STONE_COUNT: "the player to move cannot place: more stones wins, equal stones draw"
    }

    def initial_state(self, options: AlakOptions | None = None) -> AlakState:
        size, repetition, ply_limit = _settings(options)
        return start_position(size, repetition=repetition, ply_limit=ply_limit)

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
        if token == "pass":
            raise IllegalMove(
                "pass: there is no passing under Baljeu's rules (variant 'baljeu'): place a stone"
            )
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
        mark = {Side.BLUE: "X", Side.ORANGE: "O"}[state.to_move]
        status = f"{state.to_move} ({mark}) to move, ply {state.ply}"
        if state.banned:
            status += "; banned: " + " ".join(_letters(state.banned))
        return f"{self.render_final(state)}\n{status}"

    def render_final(self, state: AlakState) -> str:
        stones = " ".join(pbm_line(state))
        letters = " ".join(LETTERS[: state.rules.size])
        return f"{stones}\n{letters}"

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


class Alak(Game[AnyAlakState, Move, "AlakOptions"]):
    """Alak on a line of 5..26 points: Baljeu's rules, or the traditional variant.

    The variant is fixed per game by the state class `initial_state` returns. Each method tests
    the class once and hands Baljeu states to `BALJEU`, whose code has no variant in it; a
    search chooses `BALJEU` or `TRADITIONAL` once per game and skips even that test.
    """

    name: ClassVar[str] = "alak"
    options_model: ClassVar[type[GameOptions]] = OPTIONS_MODEL
    endings: ClassVar[Mapping[str, str]] = {
        STONE_COUNT: "the player to move cannot place: more stones wins, equal stones draw",
        SCORE: "two passes in a row (traditional variant): territory + stones + captures, "
        "the higher score wins",
    }

    def initial_state(self, options: AlakOptions | None = None) -> AnyAlakState:
        if options is not None and options.variant == "traditional":
            return TRADITIONAL.initial_state(options)
        return BALJEU.initial_state(options)

    def legal_moves(self, state: AnyAlakState) -> Sequence[Move]:
        if isinstance(state, TraditionalState):
            return TRADITIONAL.legal_moves(state)
        return BALJEU.legal_moves(state)

    @overload
    def apply(self, state: AlakState, move: Move) -> AlakState: ...

    @overload
    def apply(self, state: TraditionalState, move: Move) -> TraditionalState: ...

    def apply(self, state: AnyAlakState, move: Move) -> AnyAlakState:
        if isinstance(state, TraditionalState):
            return _traditional_apply(state, move)
        return BALJEU.apply(state, move)

    def outcome(self, state: AnyAlakState) -> Outcome | None:
        if isinstance(state, TraditionalState):
            return _traditional_outcome(state)
        return BALJEU.outcome(state)

    def parse_move(self, state: AnyAlakState, line: str) -> Move:
        if isinstance(state, TraditionalState):
            return TRADITIONAL.parse_move(state, line)
        return BALJEU.parse_move(state, line)

    def format_move(self, move: Move) -> str:
        return "pass" if move.point == PASS else LETTERS[move.point]

    def squares(self, state: AnyAlakState) -> Sequence[str]:
        return tuple(LETTERS[: state.rules.size])

    def touched(self, state: AnyAlakState, move: Move) -> Touched:
        if isinstance(state, TraditionalState):
            return TRADITIONAL.touched(state, move)
        return BALJEU.touched(state, move)

    def render_text(self, state: AnyAlakState) -> str:
        if isinstance(state, TraditionalState):
            return TRADITIONAL.render_text(state)
        return BALJEU.render_text(state)

    def render_final(self, state: AnyAlakState) -> str:
        if isinstance(state, TraditionalState):
            return TRADITIONAL.render_final(state)
        return BALJEU.render_final(state)

    def state_json(self, state: AnyAlakState) -> Mapping[str, Any]:
        if isinstance(state, TraditionalState):
            return TRADITIONAL.state_json(state)
        return BALJEU.state_json(state)


class TraditionalAlak(Game[TraditionalState, Move, "AlakOptions"]):
    """Alak with the traditional rules alone (`TRADITIONAL`): what `Alak` does with a
    `TraditionalState`, and what a search on a traditional game calls directly."""

    name: ClassVar[str] = "alak"
    options_model: ClassVar[type[GameOptions]] = OPTIONS_MODEL
    endings: ClassVar[Mapping[str, str]] = {SCORE: Alak.endings[SCORE]}

    def initial_state(self, options: AlakOptions | None = None) -> TraditionalState:
        size, repetition, ply_limit = _settings(options)
        return traditional_start(size, repetition=repetition, ply_limit=ply_limit)

    def legal_moves(self, state: TraditionalState) -> Sequence[Move]:
        if state.passes >= 2 or _draw_outcome(state) is not None:
            return ()
        return (*(_MOVES[point] for point in _traditional_points(state)), PASS_MOVE)

    def apply(self, state: TraditionalState, move: Move) -> TraditionalState:
        return _traditional_apply(state, move)

    def outcome(self, state: TraditionalState) -> Outcome | None:
        return _traditional_outcome(state)

    def parse_move(self, state: TraditionalState, line: str) -> Move:
        tokens = split_tokens(line)
        size = state.rules.size
        expected = f"one point letter a..{LETTERS[size - 1]} or 'pass'"
        if len(tokens) != 1:
            raise BadSyntax(f"expected {expected}, got {len(tokens)} tokens")
        token = tokens[0]
        if token == "pass":
            return _traditional_parse(state, token, PASS)
        index = LETTERS.find(token) if len(token) == 1 else -1
        if not 0 <= index < size:
            raise BadSyntax(f"{token!r} is not a point: expected {expected}")
        return _traditional_parse(state, token, index)

    def format_move(self, move: Move) -> str:
        return "pass" if move.point == PASS else LETTERS[move.point]

    def squares(self, state: TraditionalState) -> Sequence[str]:
        return tuple(LETTERS[: state.rules.size])

    def touched(self, state: TraditionalState, move: Move) -> Touched:
        if move.point == PASS:
            return Touched()
        own, enemy = _sides(state)
        placed = traditional_place(state.rules, own, enemy, move.point)
        captured = 0 if placed is None else placed[2]
        return Touched(to=(LETTERS[move.point],), removed=tuple(_letters(captured)))

    def render_text(self, state: TraditionalState) -> str:
        return self._render(state, BALJEU.render_text(_as_baljeu(state)))

    def render_final(self, state: TraditionalState) -> str:
        return self._render(state, BALJEU.render_final(_as_baljeu(state)))

    def _render(self, state: TraditionalState, board: str) -> str:
        blue, orange = traditional_score(state)
        passer = "orange" if state.to_move is _BLUE else "blue"
        passed = f" ({passer} passed)" if state.passes else ""
        return f"{board}\nscore: blue {blue}, orange {orange}{passed}"

    def state_json(self, state: TraditionalState) -> Mapping[str, Any]:
        blue, orange = traditional_score(state)
        return {
            **BALJEU.state_json(_as_baljeu(state)),
            "variant": "traditional",
            "passes": state.passes,
            "captured": {"blue": state.blue_captured, "orange": state.orange_captured},
            "score": {"blue": blue, "orange": orange},
        }


def _as_baljeu(state: TraditionalState) -> AlakState:
    """The board, ko point (as the banned point), side and ply, for the shared views."""
    return AlakState(state.rules, state.blue, state.orange, state.banned, state.to_move,
                     state.ply, (), 1)  # fmt: skip


def _count_stones(state: AlakState) -> Outcome:
    blue, orange = state.blue.bit_count(), state.orange.bit_count()
    winner = Side.BLUE if blue > orange else Side.ORANGE if orange > blue else None
    detail = f"{state.to_move} cannot place: blue {blue}, orange {orange}"
    return Outcome(winner, Reason.GAME_ENDING, detail, STONE_COUNT)


def _sides(state: AlakState | TraditionalState) -> tuple[int, int]:
    """(mover's stones, opponent's stones)."""
    if state.to_move is _BLUE:
        return state.blue, state.orange
    return state.orange, state.blue


BALJEU = BaljeuAlak()
TRADITIONAL = TraditionalAlak()
GAME = Alak()
