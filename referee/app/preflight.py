"""A tournament session's pre-flight: every bot with games still to play is started once (here,
or on a cluster's worker) before the first game, and what that found decides whether the run
goes on. The checks and the refusal are returned as values; the command's view shows them
(referee/views/start_checks.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from referee.isolation import Isolation
from referee.printable import printable
from referee.tournament.config import LoadedConfig
from referee.tournament.opening_plan import OpeningPlan
from referee.tournament.preflight import StartCheck, check_bots
from referee.tournament.roster import Roster
from referee.tournament.store import GameRow, GameState, Store

# The pre-flight check run elsewhere (a cluster's worker): (names, concurrency, the next
# game's opening) -> checks.
RemoteCheck = Callable[[list[str], int, Sequence[str]], Awaitable[list[StartCheck]]]


@dataclass(frozen=True)
class Preflight:
    """What starting each waiting bot once found (in the config's order), and the refusal that
    stops the run (the sentence after `referee: `), or None when it goes on."""

    checks: tuple[StartCheck, ...] = ()
    refusal: str | None = None


def waiting_players(loaded: LoadedConfig, games: Sequence[GameRow]) -> list[str]:
    """The players (config order) with games still to play."""
    unfinished = [g for g in games if g.state is not GameState.FINISHED]
    waiting = {g.blue for g in unfinished} | {g.orange for g in unfinished}
    return [name for name in loaded.config.player_names if name in waiting]


async def preflight(
    loaded: LoadedConfig,
    roster: Roster,
    store: Store,
    isolation: Isolation | None,
    concurrency: int | None,
    *,
    allow_broken: bool,
    remote: RemoteCheck | None = None,
    refuse_broken: Callable[[Sequence[str]], str] | None = None,
    checking: Callable[[int], AbstractContextManager[object]] | None = None,
) -> Preflight:
    """Start every bot that still has games once (here, or with `remote`), within `checking`
    (given how many bots: a view's "starting..." line while they start)."""
    games = store.games()
    unfinished = [g for g in games if g.state is not GameState.FINISHED]
    names = waiting_players(loaded, games)
    if not names:
        return Preflight()
    players = roster.specs(names)
    # The opening of the next game, if the games start from openings: a bot that declared
    # `position` is checked with the lines a game will send it.
    plan = OpeningPlan(loaded)
    opening = plan.opening(unfinished[0].number, games) if plan.enabled else ()
    limit = concurrency or loaded.config.effective_concurrency()
    with nullcontext() if checking is None else checking(len(players)):
        if remote is not None:
            checks = await remote(names, limit, opening)
        else:
            assert isolation is not None  # chosen when the games are played here
            settings = loaded.config.match_settings()
            checks = await check_bots(players, settings, isolation, limit, opening)
    refusal = start_refusal(checks, loaded, allow_broken, refuse_broken)
    return Preflight(tuple(checks), refusal)


def start_refusal(
    checks: Sequence[StartCheck],
    loaded: LoadedConfig,
    allow_broken: bool,
    refuse_broken: Callable[[Sequence[str]], str] | None = None,
) -> str | None:
    """Why the run does not start after `checks`: a bot this machine cannot run as a user of
    its own, or one that cannot start (unless `allow_broken` scores its games as losses;
    `refuse_broken`: the refusal in the command's own words, given the bots' names)."""
    unreachable = [c for c in checks if c.unreachable]
    if unreachable:  # the machine's set-up, not the bots': no game is played under it
        names_text = ", ".join(printable(c.name) for c in unreachable)
        return (
            f"not starting the tournament: this machine cannot run {names_text} as a user of "
            "its own (above: the path and the fix)."
        )
    broken = [c for c in checks if c.broken]
    if not broken or allow_broken:
        return None
    if refuse_broken is not None:
        return refuse_broken([c.name for c in broken])
    names_text = ", ".join(printable(c.name) for c in broken)
    return (
        f"not starting the tournament: {names_text} cannot start. {_fix(loaded)}, or add "
        "--allow-broken to score their games as losses."
    )


def _fix(loaded: LoadedConfig) -> str:
    """How a bot that cannot start is fixed: in the config, or (a config that `referee course
    collect` wrote from the submissions) by a new submission, collected again."""
    if loaded.collected:
        return (
            f"{loaded.path} is written by `referee course collect` from the submissions: fix the "
            "bot in a new submission, run `referee course collect` again, then run again"
        )
    return f"Fix the command in {loaded.path} and run again"
