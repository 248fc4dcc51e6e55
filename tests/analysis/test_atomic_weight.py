"""Atomic weights: the literature's values, and the calculus checked against the theorems it
must satisfy (additivity, the two-ahead rule) over every all-small game born by day 3."""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest
from pycgt import (
    STAR,
    UP,
    ZERO,
    Game,
    add,
    as_number,
    canonical,
    geq,
    greater,
    integer,
    multiple,
    negate,
    nimber,
    tiny,
)

from referee.analysis.atomic_weight import atomic_weight, far_star
from referee.analysis.cgt_notation import parse, render


def weight(game: Game) -> Game:
    found = atomic_weight(game)
    assert found is not None, render(game)
    return found


def ups(count: int, star: int = 0) -> Game:
    return add(multiple(UP, count), nimber(star))


@pytest.mark.parametrize("count", range(-4, 5))
@pytest.mark.parametrize("star", range(4))
def test_n_ups_plus_a_nimber_weigh_n(count: int, star: int) -> None:
    # AW(n.^ + *k) = n: 0, *, *2 weigh 0; ^ and ^* weigh 1; v weighs -1; ^^ and ^^* weigh 2.
    assert weight(ups(count, star)) == integer(count)


def test_small_values_from_the_literature() -> None:
    assert weight(ZERO) == ZERO
    assert weight(STAR) == ZERO
    assert weight(UP) == integer(1)
    assert weight(negate(UP)) == integer(-1)
    assert weight(add(UP, STAR)) == integer(1)
    # up-second, ^2 = {0|v*}, lies between 0 and ^ yet weighs nothing: CGSuite's uptimals
    # weigh their coefficient of ^ only, so ^ + ^2 weighs 1.
    up_second = parse("{0|{0|0,*}}")
    assert greater(up_second, ZERO) and greater(UP, up_second)
    assert weight(up_second) == ZERO
    assert weight(add(UP, up_second)) == integer(1)


def test_the_integer_case_needs_the_far_star() -> None:
    # {0|^} is ^^*: G' = {0 - 2 | 1 + 2} = 0 is an integer, and G exceeds the far star, so AW
    # is the largest integer n <| 3, which is 2 (not G' = 0).
    game = parse("{0|^}")
    assert game == ups(2, 1)
    assert greater(game, far_star(game))
    assert weight(game) == integer(2)
    # {*,v|0}: G' = {-2, -3 | 2} = 0, G is below the far star, so AW is the least integer
    # n |> -2, which is -1.
    lower = parse("{*,v|0}")
    assert greater(far_star(lower), lower)
    assert weight(lower) == integer(-1)


def test_weights_that_are_not_integers() -> None:
    # G' is then the weight itself: {4.^ | 0} weighs {2|2} = 2*, {4.^ | 4.v} weighs +-2,
    # {3.^ | 0} weighs {1|2} = 3/2.
    assert render(weight(canonical(Game(frozenset([ups(4)]), frozenset([ZERO]))))) == "2*"
    assert render(weight(canonical(Game(frozenset([ups(4)]), frozenset([ups(-4)]))))) == "+-2"
    assert render(weight(canonical(Game(frozenset([ups(3)]), frozenset([ZERO]))))) == "3/2"


@pytest.mark.parametrize("text", ["1", "-1", "1/2", "{2|0}", "+-1", "{0|{0|-2}}", "{1|*}"])
def test_games_that_are_not_all_small_have_no_weight(text: str) -> None:
    assert atomic_weight(parse(text)) is None


def test_tiny_is_infinitesimal_but_not_all_small() -> None:
    assert atomic_weight(tiny(2)) is None


@cache
def all_small_by_day_three() -> tuple[Game, ...]:
    """Every all-small game born by day 3, in canonical form (both sides have options, or
    neither)."""
    found = [ZERO, STAR]
    for _ in range(2):
        sides = [
            frozenset(chosen)
            for size in range(1, len(found) + 1)
            for chosen in itertools.combinations(found, size)
        ]
        found = sorted(
            {ZERO} | {canonical(Game(left, right)) for left in sides for right in sides},
            key=render,
        )
    return tuple(found)


def test_the_census_is_day_three() -> None:
    games = all_small_by_day_three()
    assert len(games) == 67  # 7 all-small games are born by day 2: 0, *, *2, ^, ^*, v, v*
    assert {ups(1), ups(1, 1), ups(2, 1), nimber(3)} <= set(games)


def test_atomic_weight_is_additive() -> None:
    games = all_small_by_day_three()
    rng = random.Random(12)
    pairs = list(itertools.combinations_with_replacement(games, 2))
    for left, right in rng.sample(pairs, 600):
        assert weight(add(left, right)) == add(weight(left), weight(right)), (
            render(left),
            render(right),
        )


def test_negation_negates_the_weight() -> None:
    for game in all_small_by_day_three():
        assert weight(negate(game)) == negate(weight(game))


def test_the_two_ahead_rule() -> None:
    # AW(G) >= 2 means Left wins G whoever starts (and <= -2 Right does).
    games = list(all_small_by_day_three())
    games += [add(a, b) for a, b in itertools.combinations(games, 2)][::7]
    weights = [weight(game) for game in games]
    ahead = [game for game, found in zip(games, weights, strict=True) if geq(found, integer(2))]
    behind = [game for game, found in zip(games, weights, strict=True) if geq(integer(-2), found)]
    assert ahead and behind  # the rule is exercised on both sides
    assert all(greater(game, ZERO) for game in ahead)
    assert all(greater(ZERO, game) for game in behind)


def test_confused_with_the_far_star_means_weight_zero() -> None:
    # The third case of the calculus returns G'; for these games G' is then 0, as other
    # statements of the calculus have it.
    games = list(all_small_by_day_three())
    games += [add(a, b) for a, b in itertools.combinations(games, 2)][::5]
    confused = 0
    for game in games:
        star = far_star(game)
        if geq(game, star) or geq(star, game):
            continue
        lower = [add(weight(option), integer(-2)) for option in game.left]
        upper = [add(weight(option), integer(2)) for option in game.right]
        candidate = canonical(Game(frozenset(lower), frozenset(upper)))
        value = as_number(candidate)
        if value is not None and value.denominator == 1:
            confused += 1
            assert value == 0, render(game)
    assert confused > 10


def test_a_farther_star_compares_the_same() -> None:
    # The far star is far enough: *64 and *128 (far beyond every nim value here) compare with
    # each game as the chosen one does.
    games = list(all_small_by_day_three())
    games += [add(a, b) for a, b in itertools.combinations(games, 2)][::11]
    for game in games:
        near = far_star(game)
        for star in (nimber(64), nimber(128)):
            assert geq(game, star) == geq(game, near), render(game)
            assert geq(star, game) == geq(near, game), render(game)
