"""An Elo value shown to people never reads -0.0: a difference that rounds to nothing has no
sign, in `referee match`'s summary, a tournament's results and the league's tables."""

from __future__ import annotations

import json
import math

import pytest

from referee.stats.elo import rounded_elo, signed_elo
from referee.stats.head_to_head import signed
from referee.web.league_pages import elo


@pytest.mark.parametrize("value", [-1e-12, -0.0, -0.04, 0.0, 0.04])
def test_nothing_rounds_to_minus_zero(value: float) -> None:
    assert math.copysign(1.0, rounded_elo(value, 1)) == 1.0
    assert json.dumps(rounded_elo(value, 1)) == "0.0"  # a report's JSON and CSV
    assert signed_elo(value, 1) == signed(value) == "+0.0"
    assert elo(value * 10) == "+0"  # the league's pages and table: no decimals


def test_signed_elo_keeps_real_signs_and_infinities() -> None:
    assert signed_elo(-12.34) == "-12.3" and signed_elo(12.36) == "+12.4"
    assert signed_elo(-0.6, 0) == "-1" and signed_elo(math.inf) == "+inf"
    assert signed_elo(-math.inf) == "-inf"
