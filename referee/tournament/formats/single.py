"""Round robin and gauntlet as formats: one stage, the whole schedule made up front."""

from __future__ import annotations

from referee.tournament.config import TournamentConfig
from referee.tournament.formats.base import Ledger, Stage
from referee.tournament.formats.outcome import Outcome
from referee.tournament.schedule import table_schedule

NAMES = {"round-robin": "Round robin", "gauntlet": "Gauntlet"}


def replay(config: TournamentConfig, ledger: Ledger) -> Outcome:
    name = NAMES.get(config.format, config.format)
    numbers = []
    for game in table_schedule(config):
        numbers += ledger.add(name, f"Round {game.round}", game.round, [game.players])
    decided = ledger.decided(numbers)
    stage = Stage(name=name, kind="table", decided=decided)
    return Outcome(stages=[stage], current=None if decided else name, finished=decided)
