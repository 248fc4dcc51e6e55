"""Atomic weights of all-small games, by the atomic weight calculus.

pycgt 0.2 has no atomic weight, so the calculus is written here, on top of pycgt's canonical
forms, sums and order. The atomic weight AW(G) of an all-small game G is the game W with
G ~ W.^ (Norton's product of W by up), where, in CGSuite's words, G ~ H when
o(G + X + *m) = o(H + X + *m) for all games X and all large enough m. It is additive
(AW(G + H) = AW(G) + AW(H)), AW(n.^ + *k) = n, and it gives the two-ahead rule: AW(G) >= 2
means G > 0 (Berlekamp, Conway, Guy, Winning Ways; Siegel, Combinatorial Game Theory, the
sections on all-small games and atomic weight).

The calculus (the atomic weight calculus, with the case analysis of CGSuite's
`naiveAtomicWeight` in `CanonicalShortGameOps.java`):

    G' = {AW(G^L) - 2 | AW(G^R) + 2}

- if G' is not an integer, AW(G) = G';
- if G' is an integer, compare G with a far star *m (m larger than every nim value among G's
  subpositions):
  - G > *m: AW(G) is the largest integer n with n <| AW(G^R) + 2 for every G^R
    (n less than or confused with each);
  - G < *m: AW(G) is the least integer n with n |> AW(G^L) - 2 for every G^L;
  - otherwise (G confused with *m): AW(G) = G'. (Other statements of the calculus write 0
    here; for an all-small G confused with the far star G' is 0 anyway, which
    tests/analysis/test_atomic_weight.py checks over every all-small game born by day 3.)

Domain: all-small games only, the class for which the theory guarantees an atomic weight (in
every subposition Left has a move exactly when Right has one, so no number other than 0 ever
appears; pycgt's `is_all_small`). Every other game, numbers such as 1 and infinitesimals such
as tiny-2 that are not all-small alike, gets None. CGSuite also gives weights to some games that
are infinitesimal but not all-small ("atomic" games); that extension is not attempted here.

pycgt is imported by the functions that need it, never at module import.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pycgt import Game


def atomic_weight(game: Game) -> Game | None:
    """AW(game) in canonical form, or None when `game` (canonical) is not all-small."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import is_all_small

    if not is_all_small(game):
        return None
    return _weight(game)


def far_star(game: Game) -> Game:
    """A nimber *m far enough for `game`: m a power of two above its birthday.

    Every nimber *k among the subpositions of a canonical game has k <= its birthday, and a
    power of two above them all is far enough: comparisons with *m no longer change as m grows
    (the tests check m and 2m against each other).
    """
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import birthday, nimber

    return nimber(1 << birthday(game).bit_length())


@cache
def _weight(game: Game) -> Game:
    """The calculus, memoised on canonical forms (subpositions of an all-small game are
    all-small, so the recursion never leaves the domain)."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import Game as PyGame
    from pycgt import add, as_number, canonical, geq, integer

    lower = [add(_weight(option), integer(-2)) for option in game.left]
    upper = [add(_weight(option), integer(2)) for option in game.right]
    candidate = canonical(PyGame(frozenset(lower), frozenset(upper)))
    value = as_number(candidate)
    if value is None or value.denominator != 1:
        return candidate
    star = far_star(game)
    above, below = geq(game, star), geq(star, game)
    if above and not below:
        return integer(_largest_under_all(upper))
    if below and not above:
        return integer(_least_over_all(lower))
    return candidate


def _largest_under_all(games: Iterable[Game]) -> int:
    """The largest integer n with n <| g (not g <= n) for every g: the minimum over the g of
    the largest such n for each, which is floor(LeftStop(g)) or one less."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import geq, integer, left_stop

    found = None
    for option in games:
        # Any integer above g's Left stop is not <| g, one at or below it may be.
        n = math.floor(left_stop(option))
        while geq(integer(n), option):
            n -= 1
        found = n if found is None else min(found, n)
    if found is None:
        raise ValueError("an all-small game above the far star has a Right option")
    return found


def _least_over_all(games: Iterable[Game]) -> int:
    """The least integer n with n |> g (not n <= g) for every g: the maximum over the g of the
    least such n for each, which is ceil(RightStop(g)) or one more."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import geq, integer, right_stop

    found = None
    for option in games:
        n = math.ceil(right_stop(option))
        while geq(option, integer(n)):
            n += 1
        found = n if found is None else max(found, n)
    if found is None:
        raise ValueError("an all-small game below the far star has a Left option")
    return found
