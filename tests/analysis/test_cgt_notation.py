"""The names the analysis gives combinatorial game values, checked against known identities."""

from __future__ import annotations

import pytest
from pycgt import ZERO, add, negate

from referee.analysis.cgt_notation import explicit, outcome_class, parse, render, thermal


def value(text: str) -> str:
    return render(parse(text))


def total(*texts: str) -> str:
    game = ZERO
    for text in texts:
        game = add(game, parse(text))
    return render(game)


def test_sums_of_known_values() -> None:
    assert total("*", "*") == "0"
    assert total("^", "v") == "0"
    assert total("^", "*") == "^*"
    assert total("^", "^", "*") == "^^*"
    assert total("^", "^", "^", "*2") == "^3*2"
    assert total("v", "v", "v", "v") == "v4"
    assert total("*", "*2") == "*3"
    assert total("+-1", "+-1") == "0"
    assert total("1/2", "1/2") == "1"
    assert total("1", "^", "*") == "1^*"


@pytest.mark.parametrize(
    ("written", "named"),
    [
        ("{0|0}", "*"),
        ("{0,*|0,*}", "*2"),
        ("{0|*}", "^"),
        ("{0|{0|0}}", "^"),
        ("{*|0}", "v"),
        ("{0,*|0}", "^*"),
        ("{0|*,0}", "v*"),
        ("{0|^}", "^^*"),  # pycgt's own renderer calls this Tiny(*)
        ("{0|{0,*|0}}", "^^"),
        ("{0|v}", "*"),  # v reverses through *: Right's option bypasses to 0
        ("{1|-1}", "+-1"),
        ("{*,^|*,v}", "+-{*,^}"),
        ("{0|{0|-2}}", "Tiny(2)"),
        ("{{2|0}|0}", "Miny(2)"),
        ("{1/2|0}", "{1/2|0}"),
        ("{0|{0|0,*}}", "{0|v*}"),
        ("{1|0}", "{1|0}"),
    ],
)
def test_usual_notation(written: str, named: str) -> None:
    assert value(written) == named


def test_explicit_form_writes_every_value_with_zero_alone() -> None:
    assert explicit(parse("0")) == "0"
    assert explicit(parse("*")) == "{0|0}"
    assert explicit(parse("^")) == "{0|{0|0}}"
    assert explicit(parse("v")) == "{{0|0}|0}"
    # Each side sorted as Python sorts the options' own explicit strings ("0" < "{").
    assert explicit(parse("*2")) == "{0,{0|0}|0,{0|0}}"
    assert explicit(parse("+-{*,^}")) == "{{0|0},{0|{0|0}}|{0|0},{{0|0}|0}}"
    assert explicit(parse("1")) == "{0|}"
    assert explicit(parse("-1")) == "{|0}"


def test_explicit_form_reads_back_to_the_same_value() -> None:
    for text in ("*", "{0,*|0}", "+-{*,^}", "{0|{0,*|0}}", "1/2", "{0|{0|-2}}"):
        game = parse(text)
        assert parse(explicit(game)) == game


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("0", "P"),
        ("*", "N"),
        ("^", "L"),
        ("v", "R"),
        ("1", "L"),
        ("+-{*,^}", "N"),
        ("{0,*|0}", "N"),
    ],
)
def test_outcome_classes(text: str, code: str) -> None:
    assert outcome_class(parse(text))[0] == code


@pytest.mark.parametrize(
    ("text", "negated"),
    [("{0,*|0}", "v*"), ("{0|^}", "vv*"), ("{0|{0|-2}}", "Miny(2)"), ("{1/2|0}", "{0|-1/2}")],
)
def test_negation_mirrors_the_name(text: str, negated: str) -> None:
    assert render(negate(parse(text))) == negated


@pytest.mark.parametrize(
    ("text", "left", "right", "mean", "temperature", "birthday"),
    [
        ("{1|-1}", "1", "-1", "0", "1", 2),
        ("{2|0}", "2", "0", "1", "1", 3),
        ("1/2", "1/2", "1/2", "1/2", "-1/2", 2),
        ("*", "0", "0", "0", "0", 1),
        ("{0|{0|-2}}", "0", "0", "0", "0", 4),
    ],
)
def test_stops_mean_temperature_and_birthday(
    text: str, left: str, right: str, mean: str, temperature: str, birthday: int
) -> None:
    assert thermal(parse(text)) == {
        "left_stop": left,
        "right_stop": right,
        "mean": mean,
        "temperature": temperature,
        "birthday": birthday,
    }
