"""The engine's static evaluation: a weighted sum of position features, tuned on game results.

`features(pos, limit)` gives the terms, each already scaled the way it enters the score, and the
score is `sum(WEIGHTS[phase][i] * term[i])`, clamped. Two phases have weights of their own:
while stones are in hand (placing and moving mixed) and after. The weights are fitted to the
results of self-play games by `scripts/tune_morris.py` (logistic regression of the result on the
terms: the Texel method), so the numbers below are measured, not guessed; the C core receives
them from here.

The draw after `limit` plies without a removal dominates the game: a lead in stones is worth
nothing when the count runs out before the next mill, so the slow terms fade over the last
`FADE` plies before it; a mill the side to move can close now does not fade (closing it resets
the count).
"""

from __future__ import annotations

from bots.morris.board import COUNT, FLYING_MAX, FULL, MILL_MASKS, NEIGHBOURS, Position, remaining

FADE = 8
EVAL_LIMIT = 10_000  # static scores stay inside +-this; wins and losses are far beyond
TERMS = (
    "stones",  # board plus hand, ours minus theirs
    "hand",  # stones in hand, ours minus theirs (placing is flexible)
    "mills",  # standing mills
    "open_twos",  # two in a line with the third point empty
    "mobility",  # empty neighbours of the stones of a side that does not fly
    "blocked",  # stones without an empty neighbour (a side that does not fly)
    "their_threat",  # they could close one mill next (we may block it)
    "their_threats",  # they could close two or more (we cannot block both)
    "flying",  # we fly minus they fly
    "can_close",  # we can close a mill now (does not fade)
    "can_close_two",  # we could close two different ones (does not fade)
)
SLOW = 9  # the first SLOW terms fade near the draw; the others do not
WEIGHTS: tuple[tuple[int, ...], tuple[int, ...]] = (
    (158, 56, 12, 49, 19, -24, -19, -64, 3, 121, 27),  # stones in hand
    (111, 0, 37, 15, -9, -52, -34, -67, 46, 81, 13),  # all stones on the board
)
# (mill mask, its two other points, the point) for each point of each mill.
_MILL_POINTS: tuple[tuple[int, int], ...] = tuple(
    (mask & ~(1 << p), p) for mask in MILL_MASKS for p in range(COUNT) if mask >> p & 1
)


def closable(own: int, empty: int, free: bool) -> int:
    """The empty points where a side completes a mill with its next move; `free`: it may put a
    stone anywhere (it has one in hand, or flies)."""
    targets = 0
    for two, point in _MILL_POINTS:
        if own & two == two and empty >> point & 1 and (free or NEIGHBOURS[point] & own & ~two):
            targets |= 1 << point
    return targets


def _lines(own: int, empty: int) -> tuple[int, int]:
    """Standing mills and open twos of one side."""
    mills = twos = 0
    for mill in MILL_MASKS:
        mine = own & mill
        if mine == mill:
            mills += 1
        elif mine.bit_count() == 2 and mill & empty:
            twos += 1
    return mills, twos


def _mobility(own: int, empty: int) -> tuple[int, int]:
    """Empty neighbours summed over the stones, and the stones with none."""
    moves = blocked = 0
    stones = own
    while stones:
        low = stones & -stones
        stones ^= low
        free = (NEIGHBOURS[low.bit_length() - 1] & empty).bit_count()
        moves += free
        blocked += not free
    return moves, blocked


def features(pos: Position, limit: int) -> tuple[int, list[int], int]:
    """(phase, terms, fade) of a position: the slow terms count `fade / FADE` of their weight."""
    own, opp, own_hand, opp_hand, counter = pos
    empty = FULL & ~(own | opp)
    own_left, opp_left = own.bit_count() + own_hand, opp.bit_count() + opp_hand
    own_fly, opp_fly = own_left <= FLYING_MAX, opp_left <= FLYING_MAX
    own_mills, own_twos = _lines(own, empty)
    opp_mills, opp_twos = _lines(opp, empty)
    own_moves, own_blocked = (0, 0) if own_fly else _mobility(own, empty)
    opp_moves, opp_blocked = (0, 0) if opp_fly else _mobility(opp, empty)
    theirs = closable(opp, empty, bool(opp_hand) or opp_fly).bit_count()
    ours = closable(own, empty, bool(own_hand) or own_fly).bit_count()
    terms = [
        own_left - opp_left,
        own_hand - opp_hand,
        own_mills - opp_mills,
        own_twos - opp_twos,
        own_moves - opp_moves,
        own_blocked - opp_blocked,
        int(theirs == 1),
        int(theirs >= 2),
        int(own_fly) - int(opp_fly),
        int(ours >= 1),
        int(ours >= 2),
    ]
    fade = min(remaining(counter, limit), FADE) if limit else FADE
    return int(own_hand + opp_hand == 0), terms, fade


def evaluate(pos: Position, limit: int, weights: tuple[tuple[int, ...], ...] = WEIGHTS) -> int:
    """The static score for the side to move, in hundredths of a stone."""
    phase, terms, fade = features(pos, limit)
    row = weights[phase]
    slow = sum(row[i] * terms[i] for i in range(SLOW)) * fade
    fast = sum(row[i] * terms[i] for i in range(SLOW, len(TERMS)))
    # Rounded toward zero, as C's integer division does.
    score = (slow // FADE if slow >= 0 else -(-slow // FADE)) + fast
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, score))
