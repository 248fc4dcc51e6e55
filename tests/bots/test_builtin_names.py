"""The referee names the built-in bots without importing `bots` (for `referee check`'s
opponents and a course's baselines): its list must be the bots' own."""

from bots.__main__ import BOTS
from referee.match import BUILTIN_BOTS


def test_the_referee_knows_every_built_in_bot_by_name() -> None:
    assert set(BUILTIN_BOTS) == set(BOTS)
    assert len(BUILTIN_BOTS) == len(set(BUILTIN_BOTS))
