"""Tournament formats: each one a pure function of (config, stored games) giving its `Plan`.

    plan_for(config, rows)   the plan: stages so far, the games to add next, finished or not
    make_schedule(config)    the games a new tournament starts with (its store's first schedule)
    is_staged(format)        whether games are added as earlier rounds finish

Round robin and gauntlet (`single.py`) are one stage made up front. Group stages (`groups.py`,
the course's tournament), knockout (`knockout.py`) and Swiss (`swiss.py`) add each stage once
the one before it is decided: the runner asks for the plan when it has no game left to play,
stores the plan's new games in one transaction, and plays on. Asking again after a crash gives
the same plan, so an interrupted tournament ends as an uninterrupted one would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from referee.tournament.config import TournamentConfig
from referee.tournament.format_settings import is_staged
from referee.tournament.formats import groups, knockout, single, swiss
from referee.tournament.formats.base import FormatMismatch, Ledger, Plan, check_consumed
from referee.tournament.formats.outcome import Outcome
from referee.tournament.schedule import ScheduledGame, game_seed, table_schedule
from referee.tournament.store import GameRow

__all__ = [
    "FormatMismatch",
    "Plan",
    "first_stage",
    "is_staged",
    "make_schedule",
    "new_games",
    "plan_for",
]

REPLAYS: dict[str, Callable[[TournamentConfig, Ledger], Outcome]] = {
    "stages": groups.replay,
    "knockout": knockout.replay,
    "swiss": swiss.replay,
}


def _replay(format: str) -> Callable[[TournamentConfig, Ledger], Outcome]:
    return REPLAYS.get(format, single.replay)  # round robin and gauntlet: one stage


def plan_for(config: TournamentConfig, rows: Sequence[GameRow]) -> Plan:
    """The format's plan for these stored games (in number order); `FormatMismatch` if the
    stored games are not the ones it makes."""
    ledger = Ledger(rows=sorted(rows, key=lambda r: r.number), max_replays=config.max_replays)
    outcome = _replay(config.format)(config, ledger)
    check_consumed(ledger)
    return Plan(
        format=config.format,
        stages=outcome.stages,
        current=outcome.current,
        finished=outcome.finished,
        placings=outcome.placings,
        placing_notes=outcome.placing_notes,
        slots=ledger.slots,
        new=ledger.new,
    )


def new_games(plan: Plan, first_number: int, seed: int) -> list[ScheduledGame]:
    """The plan's new games, numbered from `first_number`, each with its own seed."""
    return [
        ScheduledGame(number, g.round, g.blue, g.orange, game_seed(seed, number))
        for number, g in enumerate(plan.new, start=first_number)
    ]


def first_stage(config: TournamentConfig) -> list[ScheduledGame]:
    """A staged tournament's first games."""
    return new_games(plan_for(config, []), 1, config.seed)


def make_schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """The tournament's games, in the order they are meant to be played: a round robin's or a
    gauntlet's whole schedule, a staged format's first stage."""
    if is_staged(config.format):
        return first_stage(config)
    return table_schedule(config)
