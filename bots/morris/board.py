"""Lasker Morris on bitboards, as the engine sees it: tables, moves, positions and keys.

A position is seen by the side to move: `(own, opp, own_hand, opp_hand, counter)`, two 24-bit
masks (bit i is `POINTS[i]` of the rules), the stones in each hand and the plies played since
the last removal. Colours do not matter to the rules once the game has started, so a position
and its colour-swapped twin are one position to the engine (and share table entries).

A move is one int: `source | target << 5 | remove << 10`, where source `HAND` (24) is a
placement and remove `NO_REMOVAL` (24) is none. Moves are generated in the rules' own order
(placements, then the board stones in point order; targets and removals in point order), which
the tests compare with `protocols.lasker_morris` on many random positions.

Every table here is the one source of the numbers: the C core receives them from Python
(`tables_for_core`), so the two cores cannot disagree about the board or the keys.
"""

from __future__ import annotations

from protocols.base import Side
from protocols.lasker_morris.rules import ADJACENT, MILLS, POINTS
from protocols.lasker_morris.rules import HAND as HAND_TOKENS
from protocols.lasker_morris.rules import NO_REMOVAL as NO_REMOVAL_TOKEN
from protocols.lasker_morris.rules import LaskerMorrisState as State
from protocols.lasker_morris.rules import Move as RulesMove

Position = tuple[int, int, int, int, int]

COUNT = len(POINTS)
FULL = (1 << COUNT) - 1
HAND = 24  # the source of a placement
NO_REMOVAL = 24  # the removal of a move that closes no mill
FLYING_MAX = 3
MIN_STONES = 3
MAX_HAND = 10
KEYED_REMAINING = 64  # plies left before the no-removal draw, as keyed (more count as 63)

_INDEX = {p: i for i, p in enumerate(POINTS)}
NEIGHBOURS: tuple[int, ...] = tuple(sum(1 << _INDEX[q] for q in ADJACENT[p]) for p in POINTS)
MILL_MASKS: tuple[int, ...] = tuple(sum(1 << _INDEX[p] for p in mill) for mill in MILLS)
# For each point, the other two points of each of the two mills through it.
MILL_RESTS: tuple[tuple[int, int], ...] = tuple(
    (rests[0], rests[1])
    for i in range(COUNT)
    for rests in [[m & ~(1 << i) for m in MILL_MASKS if m >> i & 1]]
)


def encode(source: int, target: int, remove: int) -> int:
    return source | target << 5 | remove << 10


def decode(move: int) -> tuple[int, int, int]:
    return move & 31, move >> 5 & 31, move >> 10 & 31


def in_mills(mask: int) -> int:
    """The stones of `mask` that stand in one of its mills."""
    covered = 0
    for mill in MILL_MASKS:
        if mask & mill == mill:
            covered |= mill
    return covered


def removable(opp: int) -> int:
    """The opponent stones a mill may take: those outside mills, or all when none is."""
    return (opp & ~in_mills(opp)) or opp


def closes_mill(rest: int, target: int) -> bool:
    """Whether a stone arriving on `target` completes a mill with the stones `rest`."""
    first, second = MILL_RESTS[target]
    return rest & first == first or rest & second == second


def bits(mask: int) -> list[int]:
    """The indices of the set bits of `mask`, lowest first."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def generate(pos: Position, captures_only: bool = False) -> list[int]:
    """The legal moves of the side to move (mill moves only, with `captures_only`)."""
    own, opp, hand = pos[0], pos[1], pos[2]
    empty = FULL & ~(own | opp)
    flying = own.bit_count() + hand <= FLYING_MAX
    sources = [(HAND, own, empty)] if hand else []
    for s in bits(own):
        sources.append((s, own ^ 1 << s, empty if flying else NEIGHBOURS[s] & empty))
    takes: list[int] | None = None
    moves: list[int] = []
    for source, rest, targets in sources:
        for t in bits(targets):
            if not closes_mill(rest, t):
                if not captures_only:
                    moves.append(source | t << 5 | NO_REMOVAL << 10)
                continue
            if takes is None:
                takes = bits(removable(opp))
            base = source | t << 5
            moves.extend(base | r << 10 for r in takes)
    return moves


def has_move(pos: Position) -> bool:
    """Whether the side to move has a legal move (see `LaskerMorris._has_move` of the rules)."""
    own, opp, hand = pos[0], pos[1], pos[2]
    empty = FULL & ~(own | opp)
    if hand or own.bit_count() <= FLYING_MAX:
        return bool(empty)
    return any(NEIGHBOURS[s] & empty for s in bits(own))


def play(pos: Position, move: int) -> Position:
    """The position after `move`, seen by the other side."""
    own, opp, own_hand, opp_hand, counter = pos
    source, target, remove = move & 31, move >> 5 & 31, move >> 10 & 31
    if source == HAND:
        own_hand -= 1
    else:
        own ^= 1 << source
    own |= 1 << target
    if remove != NO_REMOVAL:
        opp &= ~(1 << remove)
        counter = 0
    else:
        counter += 1
    return opp, own, opp_hand, own_hand, counter


def stones(pos: Position) -> tuple[int, int]:
    """Stones left (board plus hand) of the side to move and of the other side."""
    return pos[0].bit_count() + pos[2], pos[1].bit_count() + pos[3]


# -- keys -------------------------------------------------------------------------------------


def _splitmix(seed: int) -> list[int]:
    """A fixed stream of 64-bit numbers (splitmix64): the same keys in every run and core."""
    out, state, mask = [], seed, (1 << 64) - 1
    for _ in range(2 * COUNT + 2 * (MAX_HAND + 1) + KEYED_REMAINING):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ z >> 30) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ z >> 27) * 0x94D049BB133111EB) & mask
        out.append(z ^ z >> 31)
    return out


_RANDOM = _splitmix(0x4C61736B6572)
_POINT_KEYS = (_RANDOM[:COUNT], _RANDOM[COUNT : 2 * COUNT])
_HANDS = 2 * COUNT
OWN_HAND_KEYS = tuple(_RANDOM[_HANDS : _HANDS + MAX_HAND + 1])
OPP_HAND_KEYS = tuple(_RANDOM[_HANDS + MAX_HAND + 1 : _HANDS + 2 * MAX_HAND + 2])
REMAINING_KEYS = tuple(_RANDOM[_HANDS + 2 * MAX_HAND + 2 :])


def _byte_keys(points: list[int]) -> tuple[tuple[int, ...], ...]:
    """Per byte of a mask: the xor of the keys of the points set in each of its 256 values."""
    tables = []
    for byte in range(3):
        table = []
        for value in range(256):
            key = 0
            for i in range(8):
                if value >> i & 1:
                    key ^= points[8 * byte + i]
            table.append(key)
        tables.append(tuple(table))
    return tuple(tables)


# Xored into the keys of positions where the side to move is not the searching side, when
# draws are scored with contempt (their values then depend on who is to move).
PARITY_KEY = _splitmix(0x436F6E74656D707)[0]

OWN_KEYS = _byte_keys(_POINT_KEYS[0])
OPP_KEYS = _byte_keys(_POINT_KEYS[1])


def remaining(counter: int, limit: int) -> int:
    """Plies left before the no-removal draw, capped for keys and evaluation (0: no rule)."""
    if not limit:
        return 0
    return min(limit - counter, KEYED_REMAINING - 1)


def zobrist(pos: Position, limit: int) -> int:
    """The transposition key: both masks, both hands, and the plies left before the draw."""
    own, opp = pos[0], pos[1]
    return (
        OWN_KEYS[0][own & 255]
        ^ OWN_KEYS[1][own >> 8 & 255]
        ^ OWN_KEYS[2][own >> 16]
        ^ OPP_KEYS[0][opp & 255]
        ^ OPP_KEYS[1][opp >> 8 & 255]
        ^ OPP_KEYS[2][opp >> 16]
        ^ OWN_HAND_KEYS[pos[2]]
        ^ OPP_HAND_KEYS[pos[3]]
        ^ REMAINING_KEYS[remaining(pos[4], limit)]
    )


def repetition_key(pos: Position) -> int:
    """The position as the repetition rule compares it (the side to move is implied by the
    parity of the plies between two positions)."""
    return pos[0] | pos[1] << 24 | pos[2] << 48 | pos[3] << 53


# -- the rules' states and moves ----------------------------------------------------------------


def from_state(state: State) -> tuple[Position, list[int]]:
    """The engine position of a rules state, and the repetition keys of its history (oldest
    first, this position last; empty when the repetition rule is off)."""
    blue = state.to_move is Side.BLUE
    own, opp = (state.blue, state.orange) if blue else (state.orange, state.blue)
    hands = (state.blue_hand, state.orange_hand) if blue else (state.orange_hand, state.blue_hand)
    pos = (own, opp, hands[0], hands[1], state.plies_without_removal)
    return pos, [_relative_key(key) for key in state.history]


def _relative_key(key: int) -> int:
    """A rules' position key (`protocols.lasker_morris.position_key`) seen by its side to move."""
    blue, orange = key & FULL, key >> 24 & FULL
    blue_hand, orange_hand, orange_to_move = key >> 48 & 31, key >> 53 & 31, key >> 58 & 1
    if orange_to_move:
        return repetition_key((orange, blue, orange_hand, blue_hand, 0))
    return repetition_key((blue, orange, blue_hand, orange_hand, 0))


def to_rules_move(move: int, side: Side) -> RulesMove:
    """The rules' move (wire tokens) of an engine move played by `side`."""
    source, target, remove = decode(move)
    return RulesMove(
        HAND_TOKENS[side] if source == HAND else POINTS[source],
        POINTS[target],
        NO_REMOVAL_TOKEN if remove == NO_REMOVAL else POINTS[remove],
    )
