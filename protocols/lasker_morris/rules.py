"""Lasker Morris: the rules (as the WPI CS4341 course referee plays them) and the move wire format.

The Nine Men's Morris board with 10 stones a side, all in hand at the start; blue moves first.
Lasker's rule: while a player still holds stones he may either place one (`h1`/`h2`) or move a
board stone to an adjacent empty point; with 3 stones or fewer (board plus hand) a board stone
may fly to any empty point. A move whose target completes a mill removes one opponent stone,
named in the line (a stone in an opponent mill only if all of the opponent's stones stand in
mills); otherwise the line ends in `r0`. Endings, in the order checked after each legal move: a
draw after `no_capture_limit` (20) plies without a removal, a loss for a player left with fewer
than 3 stones (this game's own ending, `too-few-stones`), a draw on the `repetition`-th (3rd)
occurrence of a position; then, before the next move, a loss for the player to move who has no
legal move.

Representation: a side's stones are a 24-bit mask; bit i is `POINTS[i]`. Moves are named tuples
of the three wire tokens, e.g. `Move("h1", "d3", "a4")`, so they read like the lines they are.

Tables for other code: `POINTS`, `ADJACENT` (point -> neighbours), `MILLS` (the 16 lines of
three); `stones(state, side)`, `stones_left(state, side)`, `mills_of(state, side)`, and
`GAME.state_from_position(...)` to build a test or analysis position.

Resolved edge cases (see rules.md beside this module): a move whose target completes a mill while
the opponent has no stone on the board has no legal line (nothing can be removed and `r0` is
refused); a constructed position where a player already has fewer than 3 stones is scored as a
loss for him (the side to move first when both do).

`state_json(state)` returns::

    {"game": "lasker-morris", "to_move": "blue", "ply": 3,
     "points": {"a1": "blue", "a4": null, ...},        # all 24 points
     "hands": {"blue": 8, "orange": 9},
     "plies_without_removal": 3,
     "mills": [["d1", "d2", "d3"], ...],               # mills standing on the board
     "flying": {"blue": false, "orange": false},        # who may fly now
     "limits": {"no_capture_limit": 20, "repetition": 3}}
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

# The draw rules' defaults (`LaskerMorrisOptions`), which a game given no options plays by.
from protocols.lasker_morris.defaults import NO_CAPTURE_LIMIT, REPETITION

if TYPE_CHECKING:
    from protocols.lasker_morris.options import LaskerMorrisOptions
    from protocols.options import GameOptions

STONES_PER_SIDE = 10
FLYING_MAX = 3  # a player with this many stones or fewer (board plus hand) may fly
MIN_STONES = 3  # a player left with fewer loses
TOO_FEW_STONES = "too-few-stones"  # this game's own ending (`Reason.GAME_ENDING`)
NO_REMOVAL = "r0"
HAND = {Side.BLUE: "h1", Side.ORANGE: "h2"}
# The sides as plain names for the code every move runs: under Python 3.11 `Side.BLUE` goes
# through the enum metaclass's attribute hook, four times the cost of a module's name.
_BLUE, _ORANGE = Side.BLUE, Side.ORANGE
_HAND_OWNER = {token: side for side, token in HAND.items()}

POINTS: tuple[str, ...] = (
    *("a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3"),
    *("d5", "d6", "d7", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7"),
)
# The spec's adjacency and mills, written as it writes them.
_ADJACENCY = (
    "a1: a4 d1, a4: a1 a7 b4, a7: a4 d7, b2: b4 d2, b4: b2 b6 a4 c4, b6: b4 d6, c3: c4 d3, "
    "c4: c3 c5 b4, c5: c4 d5, d1: a1 d2 g1, d2: b2 d1 d3 f2, d3: c3 d2 e3, d5: c5 d6 e5, "
    "d6: b6 d5 d7 f6, d7: a7 d6 g7, e3: d3 e4, e4: e3 e5 f4, e5: d5 e4, f2: d2 f4, "
    "f4: e4 f2 f6 g4, f6: d6 f4, g1: d1 g4, g4: f4 g1 g7, g7: d7 g4"
)
_MILL_LINES = (
    "a1 a4 a7, b2 b4 b6, c3 c4 c5, d1 d2 d3, d5 d6 d7, e3 e4 e5, f2 f4 f6, g1 g4 g7, "
    "a1 d1 g1, b2 d2 f2, c3 d3 e3, a4 b4 c4, e4 f4 g4, c5 d5 e5, b6 d6 f6, a7 d7 g7"
)
ADJACENT: Mapping[str, tuple[str, ...]] = {
    point: tuple(neighbours.split())
    for point, neighbours in (entry.split(":") for entry in _ADJACENCY.split(", "))
}
MILLS: tuple[tuple[str, str, str], ...] = tuple(
    (a, b, c) for a, b, c in (line.split() for line in _MILL_LINES.split(", "))
)

# Precomputed bit tables for the hot path (legal_moves / apply run millions of times in a search).
BIT: Mapping[str, int] = {name: 1 << i for i, name in enumerate(POINTS)}
FULL = (1 << len(POINTS)) - 1
_SOURCE_BIT = {**BIT, "h1": 0, "h2": 0}  # a placement vacates nothing
_ADJ_MASK: Mapping[str, int] = {p: sum(BIT[q] for q in ADJACENT[p]) for p in POINTS}
_ADJ_BY_BIT: tuple[int, ...] = tuple(_ADJ_MASK[p] for p in POINTS)  # by bit index
_MILL_MASKS: tuple[int, ...] = tuple(BIT[a] | BIT[b] | BIT[c] for a, b, c in MILLS)
# For each point: the masks of the two other points of each of the two mills through it.
_MILL_RESTS: Mapping[str, tuple[int, int]] = {
    p: (rests[0], rests[1])
    for p in POINTS
    for rests in [[m & ~BIT[p] for m in _MILL_MASKS if m & BIT[p]]]
}
_POINT_BITS: tuple[tuple[str, int], ...] = tuple((p, BIT[p]) for p in POINTS)
# A move target: its name, its bit, and the other two points of each of its two mills.
_Target = tuple[str, int, int, int]
_TARGETS: tuple[_Target, ...] = tuple((p, BIT[p], *_MILL_RESTS[p]) for p in POINTS)
_ADJ_TARGETS: Mapping[str, tuple[_Target, ...]] = {
    p: tuple(t for t in _TARGETS if t[0] in ADJACENT[p]) for p in POINTS
}
_ORDINALS = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}


class Move(NamedTuple):
    """One move as its three wire tokens: `source` (h1/h2 or a point), `target`, `remove` (r0)."""

    source: str
    target: str
    remove: str


@dataclass(frozen=True, slots=True)
class LaskerMorrisState:
    """A position plus what the draw rules need; bit i of `blue`/`orange` is `POINTS[i]`.

    `history` holds the position keys since the last placement or removal (earlier positions can
    never recur: hands and stone counts only shrink), oldest first and ending with this one; it is
    empty when the repetition rule is off.
    """

    to_move: Side
    ply: int
    blue: int
    orange: int
    blue_hand: int
    orange_hand: int
    plies_without_removal: int
    history: tuple[int, ...]
    no_capture_limit: int
    repetition: int


def position_key(blue: int, orange: int, blue_hand: int, orange_hand: int, to_move: Side) -> int:
    """One int naming a position for the repetition rule (board, both hands, side to move)."""
    side_bit = 0 if to_move is _BLUE else 1
    return blue | orange << 24 | blue_hand << 48 | orange_hand << 53 | side_bit << 58


def _names(mask: int) -> list[str]:
    return [p for p, bit in _POINT_BITS if mask & bit]


def _board(state: LaskerMorrisState, side: Side) -> int:
    return state.blue if side is _BLUE else state.orange


def _hand(state: LaskerMorrisState, side: Side) -> int:
    return state.blue_hand if side is _BLUE else state.orange_hand


def stones(state: LaskerMorrisState, side: Side) -> list[str]:
    """The points holding `side`'s stones, in `POINTS` order."""
    return _names(_board(state, side))


def stones_left(state: LaskerMorrisState, side: Side) -> int:
    """`side`'s stones on the board plus in hand (fewer than 3 loses; 3 or fewer flies)."""
    return _board(state, side).bit_count() + _hand(state, side)


def _in_mills(mask: int) -> int:
    """The stones of `mask` that stand in a mill of `mask`."""
    covered = 0
    for mill in _MILL_MASKS:
        if mask & mill == mill:
            covered |= mill
    return covered


def mills_of(state: LaskerMorrisState, side: Side) -> list[tuple[str, str, str]]:
    """The mills `side` has standing on the board."""
    mask = _board(state, side)
    return [mill for mill, m in zip(MILLS, _MILL_MASKS, strict=True) if mask & m == m]


def _removable(opponent: int) -> list[str]:
    """Opponent stones a mill may take: those outside mills, or any when all stand in mills."""
    outside = opponent & ~_in_mills(opponent)
    return _names(outside or opponent)


# For each point: the two mills through it, in `MILLS` order, as (the mask of their other two
# points, the mill as 'd1 d2 d3').
_MILLS_THROUGH: Mapping[str, tuple[tuple[int, str], ...]] = {
    p: tuple(
        (m & ~BIT[p], " ".join(mill))
        for mill, m in zip(MILLS, _MILL_MASKS, strict=True)
        if m & BIT[p]
    )
    for p in POINTS
}


def _completed_mill(own_without_source: int, target: str) -> str:
    """The first mill `target` completes, as 'd1 d2 d3' (for messages)."""
    for rest, mill in _MILLS_THROUGH[target]:
        if own_without_source & rest == rest:
            return mill
    return ""


class LaskerMorris(Game[LaskerMorrisState, Move, "LaskerMorrisOptions"]):
    """Lasker Morris as the spec (section 2) and the course referee define it."""

    name: ClassVar[str] = "lasker-morris"
    options_model: ClassVar[type[GameOptions]] = options_model_at(
        "protocols.lasker_morris.options", "LaskerMorrisOptions"
    )
    endings: ClassVar[Mapping[str, str]] = {
        TOO_FEW_STONES: "a player left with fewer than 3 stones (board plus hand) loses"
    }

    def initial_state(self, options: LaskerMorrisOptions | None = None) -> LaskerMorrisState:
        return self.state_from_position(
            blue_hand=STONES_PER_SIDE, orange_hand=STONES_PER_SIDE, options=options
        )

    def state_from_position(
        self,
        blue: Iterable[str] = (),
        orange: Iterable[str] = (),
        blue_hand: int = 0,
        orange_hand: int = 0,
        to_move: Side = Side.BLUE,
        *,
        plies_without_removal: int = 0,
        ply: int = 0,
        options: LaskerMorrisOptions | None = None,
    ) -> LaskerMorrisState:
        """A position from point lists and hand counts, as if it were the start of a game.

        Raises ValueError for an unknown point, a point given twice, a side with more than
        10 stones (board plus hand), or a negative count. The position counts as the first
        occurrence for the repetition rule. Example (the course's mill test)::

            GAME.state_from_position(blue=["d1", "d2"], orange=["a4"], blue_hand=8, orange_hand=9)
        """
        no_capture_limit = options.no_capture_limit if options else NO_CAPTURE_LIMIT
        repetition = options.repetition if options else REPETITION
        masks = {Side.BLUE: _mask_of(blue, Side.BLUE), Side.ORANGE: _mask_of(orange, Side.ORANGE)}
        if masks[Side.BLUE] & masks[Side.ORANGE]:
            both = ", ".join(_names(masks[Side.BLUE] & masks[Side.ORANGE]))
            raise ValueError(f"points given to both sides: {both}")
        for side, hand in ((Side.BLUE, blue_hand), (Side.ORANGE, orange_hand)):
            total = masks[side].bit_count() + hand
            if hand < 0 or total > STONES_PER_SIDE:
                raise ValueError(
                    f"{side} has hand {hand} and {total} stones in all; "
                    f"the hand must be >= 0 and the total <= {STONES_PER_SIDE}"
                )
        if ply < 0 or plies_without_removal < 0:
            raise ValueError("ply and plies_without_removal must be >= 0")
        key = position_key(masks[Side.BLUE], masks[Side.ORANGE], blue_hand, orange_hand, to_move)
        return LaskerMorrisState(
            to_move=to_move,
            ply=ply,
            blue=masks[Side.BLUE],
            orange=masks[Side.ORANGE],
            blue_hand=blue_hand,
            orange_hand=orange_hand,
            plies_without_removal=plies_without_removal,
            history=(key,) if repetition else (),
            no_capture_limit=no_capture_limit,
            repetition=repetition,
        )

    # --- move generation -------------------------------------------------------------------

    def legal_moves(self, state: LaskerMorrisState) -> Sequence[Move]:
        if self._rule_outcome(state) is not None:
            return ()
        return self._generate(state)

    def _generate(self, state: LaskerMorrisState) -> list[Move]:
        """Every legal move, ignoring endings: placements first, then board stones in order."""
        blue = state.to_move is _BLUE
        own, opp = (state.blue, state.orange) if blue else (state.orange, state.blue)
        hand = state.blue_hand if blue else state.orange_hand
        empty = FULL & ~(own | opp)
        flying = own.bit_count() + hand <= FLYING_MAX
        sources: list[tuple[str, int, tuple[_Target, ...]]] = []
        if hand:
            sources.append(("h1" if blue else "h2", own, _TARGETS))
        for p, b in _POINT_BITS:
            if own & b:
                sources.append((p, own ^ b, _TARGETS if flying else _ADJ_TARGETS[p]))
        removable: list[str] | None = None  # computed on the first mill
        moves: list[Move] = []
        append = moves.append
        for source, rest, targets in sources:
            for target, tbit, mill1, mill2 in targets:
                if not empty & tbit:
                    continue
                if rest & mill1 != mill1 and rest & mill2 != mill2:
                    append(Move(source, target, NO_REMOVAL))
                    continue
                if removable is None:
                    removable = _removable(opp)
                for r in removable:
                    append(Move(source, target, r))
        return moves

    def _has_move(self, state: LaskerMorrisState) -> bool:
        """Whether `_generate` would find a move, without generating.

        A mill-forming step has no legal line when the opponent has no stone on the board, yet
        counting steps is enough: a position with a step always has one that forms no mill
        (for placements and flights there are more empty points than mills the mover can
        complete; for board steps an exhaustive search of all sets of 4 to 10 stones found no
        exception).
        """
        own, opp = _board(state, state.to_move), _board(state, state.to_move.other)
        empty = FULL & ~(own | opp)
        if _hand(state, state.to_move) or own.bit_count() <= FLYING_MAX:
            return bool(empty)
        while own:  # each stone, lowest bit first: one with an empty neighbour can move
            stone = own & -own
            if _ADJ_BY_BIT[stone.bit_length() - 1] & empty:
                return True
            own ^= stone
        return False

    def apply(self, state: LaskerMorrisState, move: Move) -> LaskerMorrisState:
        source, target, remove = move
        blue = state.to_move is _BLUE
        own, opp = (state.blue, state.orange) if blue else (state.orange, state.blue)
        blue_hand, orange_hand = state.blue_hand, state.orange_hand
        sbit = _SOURCE_BIT[source]
        own = own ^ sbit | BIT[target]
        irreversible = not sbit
        if not sbit:
            if blue:
                blue_hand -= 1
            else:
                orange_hand -= 1
        quiet = state.plies_without_removal + 1
        if remove != NO_REMOVAL:
            opp &= ~BIT[remove]
            quiet = 0
            irreversible = True
        new_blue, new_orange = (own, opp) if blue else (opp, own)
        to_move = _ORANGE if blue else _BLUE
        history: tuple[int, ...] = ()
        if state.repetition:
            key = position_key(new_blue, new_orange, blue_hand, orange_hand, to_move)
            history = (key,) if irreversible else (*state.history, key)
        return LaskerMorrisState(
            to_move,
            state.ply + 1,
            new_blue,
            new_orange,
            blue_hand,
            orange_hand,
            quiet,
            history,
            state.no_capture_limit,
            state.repetition,
        )

    # --- endings ---------------------------------------------------------------------------

    def outcome(self, state: LaskerMorrisState) -> Outcome | None:
        ended = self._rule_outcome(state)
        if ended is not None:
            return ended
        if not self._has_move(state):
            side = state.to_move
            return Outcome(side.other, Reason.NO_LEGAL_MOVE, f"{side} has no legal move")
        return None

    @staticmethod
    def _rule_outcome(state: LaskerMorrisState) -> Outcome | None:
        """The endings checked after a legal move, in the course order."""
        limit = state.no_capture_limit
        if limit and state.plies_without_removal >= limit:
            detail = f"{limit} consecutive plies without a removal"
            return Outcome(None, Reason.NO_CAPTURE_LIMIT, detail)
        low_blue = state.blue.bit_count() + state.blue_hand < MIN_STONES
        if low_blue or state.orange.bit_count() + state.orange_hand < MIN_STONES:
            # Only the side to move can have just lost a stone; check it first.
            for side in (state.to_move, state.to_move.other):
                left = stones_left(state, side)
                if left < MIN_STONES:
                    detail = f"{side} has {left} stones left (board plus hand)"
                    return Outcome(side.other, Reason.GAME_ENDING, detail, TOO_FEW_STONES)
        history = state.history
        if state.repetition and history.count(history[-1]) >= state.repetition:
            nth = _ORDINALS.get(state.repetition, f"{state.repetition}th")
            return Outcome(None, Reason.REPETITION, f"{nth} occurrence of the position")
        return None

    # --- wire format -----------------------------------------------------------------------

    def format_move(self, move: Move) -> str:
        return f"{move.source} {move.target} {move.remove}"

    def parse_move(self, state: LaskerMorrisState, line: str) -> Move:
        move = _parse_tokens(line)
        # Whether the game is over is asked only where it can be: the rule endings always (they
        # are cheap), a side without a move only when this move is illegal (a legal move says
        # there is one). The referee parses every move a bot sends.
        ended = self._rule_outcome(state)
        reason = "" if ended is not None else _illegal_reason(state, move)
        if reason and ended is None:
            ended = self.outcome(state)
        if ended is not None:
            raise IllegalMove(f"the game is over: {ended.detail}")
        if reason:
            raise IllegalMove(reason)
        return move

    # --- views -----------------------------------------------------------------------------

    def squares(self, state: LaskerMorrisState) -> Sequence[str]:
        return POINTS

    def touched(self, state: LaskerMorrisState, move: Move) -> Touched:
        return Touched(
            from_=() if move.source in _HAND_OWNER else (move.source,),
            to=(move.target,),
            removed=() if move.remove == NO_REMOVAL else (move.remove,),
        )

    def render_text(self, state: LaskerMorrisState) -> str:
        return self._render(state, f"to move: {state.to_move}   ply {state.ply}   ")

    def render_final(self, state: LaskerMorrisState) -> str:
        return self._render(state, "")

    def _render(self, state: LaskerMorrisState, mover: str) -> str:
        cells = {p: "." for p in POINTS}
        cells.update({p: "B" for p in stones(state, Side.BLUE)})
        cells.update({p: "O" for p in stones(state, Side.ORANGE)})
        board = _TEMPLATE.format(**cells)
        status = (
            f"{mover}in hand: blue {state.blue_hand} (h1), orange {state.orange_hand} (h2)   "
            f"plies without removal: {state.plies_without_removal}"
        )
        return f"{board}\nB = blue, O = orange\n{status}"

    def state_json(self, state: LaskerMorrisState) -> Mapping[str, Any]:
        owners: dict[str, str | None] = dict.fromkeys(POINTS)
        for side in Side:
            owners.update(dict.fromkeys(stones(state, side), side.value))
        return {
            "game": self.name,
            "to_move": state.to_move.value,
            "ply": state.ply,
            "points": owners,
            "hands": {"blue": state.blue_hand, "orange": state.orange_hand},
            "plies_without_removal": state.plies_without_removal,
            "mills": [list(m) for side in Side for m in mills_of(state, side)],
            "flying": {side.value: stones_left(state, side) <= FLYING_MAX for side in Side},
            "limits": {
                "no_capture_limit": state.no_capture_limit,
                "repetition": state.repetition,
            },
        }


# The classic three-square board; columns a..g are 4 characters apart.
_TEMPLATE = """\
7 {a7}-----------{d7}-----------{g7}
  |           |           |
6 |   {b6}-------{d6}-------{f6}   |
  |   |       |       |   |
5 |   |   {c5}---{d5}---{e5}   |   |
  |   |   |       |   |   |
4 {a4}---{b4}---{c4}       {e4}---{f4}---{g4}
  |   |   |       |   |   |
3 |   |   {c3}---{d3}---{e3}   |   |
  |   |       |       |   |
2 |   {b2}-------{d2}-------{f2}   |
  |           |           |
1 {a1}-----------{d1}-----------{g1}
  a   b   c   d   e   f   g"""


def _mask_of(points: Iterable[str], side: Side) -> int:
    mask = 0
    for p in points:
        if p not in BIT:
            raise ValueError(f"{p!r} is not a point of the board ({side})")
        if mask & BIT[p]:
            raise ValueError(f"{p} given twice for {side}")
        mask |= BIT[p]
    return mask


# --- parsing: syntax (BadSyntax) ---------------------------------------------------------------


_SYNTAX = "a move is '<source> <target> <remove>', e.g. 'h1 d1 r0', 'd1 d2 e3' or 'a1 g7 r0'"
_GRID_SQUARES = frozenset(f"{f}{r}" for f in "abcdefg" for r in "1234567")
# What each token may be, made once: the referee parses every move a bot sends.
_SOURCE_TOKENS = frozenset(BIT) | _HAND_OWNER.keys()
_TARGET_TOKENS = frozenset(BIT)
_REMOVE_TOKENS = frozenset(BIT) | {NO_REMOVAL}


def _parse_tokens(line: str) -> Move:
    """The three tokens of a line, each checked for its place; raises BadSyntax."""
    tokens = split_tokens(line)
    if not tokens:
        raise BadSyntax(f"blank line: {_SYNTAX}")
    if len(tokens) != 3:
        raise BadSyntax(f"expected 3 tokens, got {len(tokens)} in {line.strip()!r}: {_SYNTAX}")
    source, target, remove = tokens
    if source in _SOURCE_TOKENS and target in _TARGET_TOKENS and remove in _REMOVE_TOKENS:
        return Move(source, target, remove)  # every token in place: nothing to say
    _check_token("source", source, _SOURCE_TOKENS, "h1, h2 or a point")
    _check_token("target", target, _TARGET_TOKENS, "a point")
    _check_token("remove", remove, _REMOVE_TOKENS, "r0 or a point")
    return Move(source, target, remove)


def _check_token(role: str, token: str, allowed: frozenset[str], expected: str) -> None:
    if token in allowed:
        return
    if token.lower() in allowed:
        raise BadSyntax(
            f"unknown {role} {token!r}: tokens are case-sensitive, write {token.lower()!r}"
        )
    if token in _GRID_SQUARES:
        raise BadSyntax(f"invalid {role} {token!r}: not one of the 24 points ({' '.join(POINTS)})")
    raise BadSyntax(f"invalid {role} {token!r}: expected {expected}")


# --- parsing: legality in the position (IllegalMove) -------------------------------------------


def _a(side: Side) -> str:
    return "an orange" if side is _ORANGE else "a blue"


def _illegal_reason(state: LaskerMorrisState, move: Move) -> str:
    """Why a well-formed move is illegal in `state` ('' when it is legal), in the course order."""
    return _placement_reason(state, move) or _removal_reason(state, move)


def _placement_reason(state: LaskerMorrisState, move: Move) -> str:
    """Checks of the source and the target."""
    side, (source, target, _) = state.to_move, move
    own, opp = _board(state, side), _board(state, side.other)
    if (own | opp) & BIT[target]:
        holder = side if own & BIT[target] else side.other
        return f"Target position {target} is occupied (by {_a(holder)} stone)"
    if source in _HAND_OWNER:
        if _HAND_OWNER[source] is not side:
            own_hand = HAND[side]
            return (
                f"Invalid hand {source}: that is {side.other}'s hand; {side} places from {own_hand}"
            )
        if not _hand(state, side):
            return f"No stones left in hand: {side} has placed all its stones; move one instead"
        return ""
    if not own & BIT[source]:
        what = f"{_a(side.other)} stone" if opp & BIT[source] else "empty"
        return f"Source is not your stone: {source} is {what}"
    left = stones_left(state, side)
    if left > FLYING_MAX and target not in ADJACENT[source]:
        return (
            f"Must move to adjacent position: {target} is not next to {source} "
            f"(flying needs 3 stones or fewer, board plus hand; {side} has {left})"
        )
    return ""


def _removal_reason(state: LaskerMorrisState, move: Move) -> str:
    """Checks of the removal, judged on the position after the stone has moved."""
    side, (source, target, remove) = state.to_move, move
    rest = _board(state, side) ^ _SOURCE_BIT[source]
    mill = _completed_mill(rest, target)
    if not mill:
        if remove != NO_REMOVAL:
            return f"Must use r0 when no mill is formed: {target} completes no mill"
        return ""
    if remove == NO_REMOVAL:
        return f"Must remove an opponent stone when a mill is formed ({mill})"
    own, opp = rest | BIT[target], _board(state, side.other)
    if own & BIT[remove]:
        return f"Cannot remove your own stone at {remove}"
    if not opp & BIT[remove]:
        return f"Must remove an opponent stone when a mill is formed: {remove} is empty"
    outside = opp & ~_in_mills(opp)
    if outside and not outside & BIT[remove]:
        free = " ".join(_names(outside))
        return (
            "Cannot remove stone in mill when stones outside mills exist: "
            f"{remove} stands in {_a(side.other)} mill; {side.other} stones outside mills: {free}"
        )
    return ""


GAME = LaskerMorris()
