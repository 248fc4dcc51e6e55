"""Writing short combinatorial games down: the usual notation, the explicit form, the outcome.

The algebra (canonical forms, sums, order, stops) is pycgt's; this module only names values the
way the literature does: numbers (`0`, `1/2`), ups and nimbers with a number in front (`*`,
`*2`, `^`, `v*`, `^^*`, `1/2v3`), switches (`+-1`, `+-{*,^}`), tinies and minies of positive
numbers (`Tiny(2)`), and braces for everything else (`{0,*|v}`). pycgt's own renderer names a
few values in ways the literature does not (`{0|^}`, which is `^^*`, comes out as `Tiny(*)`), so
the names are decided here.

pycgt is imported by the functions that need it, never at module import.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pycgt import Game

# Up multiples and nimbers looked up by canonical form: n*^ + *k for |n| <= MAX_UPS, k < MAX_STAR.
MAX_UPS = 8
MAX_STAR = 8

# The outcome classes, by (Left wins moving second, Right wins moving second).
OUTCOMES = {
    (True, True): ("P", "second player wins"),
    (True, False): ("L", "Left wins"),
    (False, True): ("R", "Right wins"),
    (False, False): ("N", "first player wins"),
}


def number_text(value: Fraction) -> str:
    """`3`, `-1/2`: a dyadic rational as the literature writes it."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def ups_text(ups: int, star: int) -> str:
    """`^`, `vv*`, `^3*2`: n ups (or downs) plus a nimber, without the number part."""
    if ups == 0:
        arrows = ""
    else:
        arrow = "^" if ups > 0 else "v"
        arrows = arrow * abs(ups) if abs(ups) <= 2 else f"{arrow}{abs(ups)}"
    stars = "" if star == 0 else "*" if star == 1 else f"*{star}"
    return arrows + stars


@cache
def _infinitesimals() -> dict[Game, str]:
    """The canonical forms of n*^ + *k (not 0) and their names."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import ZERO, add, multiple, nimber
    from pycgt.values import UP

    table: dict[Game, str] = {}
    for ups in range(-MAX_UPS, MAX_UPS + 1):
        for star in range(MAX_STAR):
            if ups == 0 and star == 0:
                continue
            table[add(multiple(UP, ups), nimber(star))] = ups_text(ups, star)
    table.pop(ZERO, None)
    return table


@cache
def render(game: Game) -> str:
    """The usual notation of a canonical game, e.g. `*`, `v*`, `+-{*,^}`, `{0|v}`."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import add, as_number, left_stop, negate, number, right_stop

    value = as_number(game)
    if value is not None:
        return number_text(value)
    low, high = right_stop(game), left_stop(game)
    if low == high and isinstance(low, Fraction):
        # A number plus an infinitesimal: name it when the infinitesimal is ups and a nimber.
        name = _infinitesimals().get(add(game, number(-low)))
        if name is not None:
            return (number_text(low) if low != 0 else "") + name
    tiny = _tiny_argument(game)
    if tiny is not None:
        return f"Tiny({number_text(tiny)})"
    miny = _tiny_argument(negate(game))
    if miny is not None:
        return f"Miny({number_text(miny)})"
    if game.left and game.right == frozenset(negate(option) for option in game.left):
        inner = ",".join(sorted(render(option) for option in game.left))
        return f"+-{inner}" if len(game.left) == 1 else f"+-{{{inner}}}"
    left = ",".join(sorted(render(option) for option in game.left))
    right = ",".join(sorted(render(option) for option in game.right))
    return f"{{{left}|{right}}}"


def _tiny_argument(game: Game) -> Fraction | None:
    """x when `game` is Tiny(x) = {0||0|-x} for a positive number x, else None."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import ZERO, as_number

    if game.left != frozenset([ZERO]) or len(game.right) != 1:
        return None
    (inner,) = game.right
    if inner.left != frozenset([ZERO]) or len(inner.right) != 1:
        return None
    (far,) = inner.right
    value = as_number(far)
    return -value if value is not None and value < 0 else None


@cache
def explicit(game: Game) -> str:
    """The canonical form written out with `0` as the only atom: `*` is `{0|0}`.

    Each side's options are sorted as Python sorts their own explicit strings.
    """
    if not game.left and not game.right:
        return "0"
    left = ",".join(sorted(explicit(option) for option in game.left))
    right = ",".join(sorted(explicit(option) for option in game.right))
    return f"{{{left}|{right}}}"


def outcome_class(game: Game) -> tuple[str, str]:
    """(`N`, `P`, `L` or `R`, and its meaning) under normal play."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import ZERO, geq

    return OUTCOMES[(geq(game, ZERO), geq(ZERO, game))]


def thermal(game: Game) -> dict[str, str | int]:
    """Left and Right stops, mean, temperature (pycgt's thermography) and birthday."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import birthday, left_stop, mean, right_stop, temperature

    def text(value: object) -> str:
        return number_text(value) if isinstance(value, Fraction) else str(value)

    return {
        "left_stop": text(left_stop(game)),
        "right_stop": text(right_stop(game)),
        "mean": text(mean(game)),
        "temperature": text(temperature(game)),
        "birthday": birthday(game),
    }


def parse(text: str) -> Game:
    """The canonical game written `text` in brace notation or a common name (`{0|*}`, `^`)."""
    # Deferred: pycgt loads only for the analyses that use it.
    from pycgt import parse as pycgt_parse

    return pycgt_parse(text)
