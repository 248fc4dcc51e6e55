"""What every tournament format shares: the plan it makes, and the ledger it makes it with.

A format is a pure function of (config, stored games): it replays the tournament from its first
stage, stage by stage, asking the `Ledger` for each stage's games. The ledger hands back the
stored games those stand for (checking that the stored ones are the same pairings) or, past the
end of the store, notes them as new games to add. A stage whose games are all decided lets the
format work out the next one; a stage with a game still to play ends the replay there. So the
same stored games always give the same plan, whether the run was interrupted or not.

A game is decided when it is finished, or void for good (voided more than `max_replays` times):
a game void for good counts as not played, for both players.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from referee.tournament.standings import GameResult
from referee.tournament.store import GameRow, GameState

Pairing = tuple[str, str]  # (blue, orange)


class FormatMismatch(ValueError):
    """The stored games are not the games this format makes from this config."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GroupLine(_Model):
    """One player's line in a group's table, in table order."""

    position: int
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    points: int
    advances: bool
    note: str = ""  # how a tie with a neighbour was broken


class GroupTable(_Model):
    name: str
    players: list[str]
    lines: list[GroupLine]
    games: list[int]
    decided: bool


class Tie(_Model):
    """A mini-match between two players (or a bye: `second` None) in a bracket."""

    label: str
    first: str | None  # the higher seed (blue in the tie's first game)
    second: str | None
    first_seed: int | None = None
    second_seed: int | None = None
    first_points: int = 0
    second_points: int = 0
    games: list[int] = []
    winner: str | None = None
    decided_by: str = ""  # "games", "extra games", "colour rule", "seed order", "bye"


class SwissLine(_Model):
    rank: int
    name: str
    score: float
    buchholz: float
    buchholz_cut1: float
    sonneborn_berger: float
    byes: int


class SwissPairingLine(_Model):
    blue: str
    orange: str
    game: int
    result: str  # "1-0", "0-1", "½-½", "0-0" (double loss or void), "" (not played yet)


class SwissRoundTable(_Model):
    number: int
    pairs: list[SwissPairingLine]
    bye: str | None


StageKind = Literal["table", "groups", "bracket", "swiss"]


class Stage(_Model):
    name: str
    kind: StageKind
    groups: list[GroupTable] = []
    ties: list[Tie] = []
    rounds: list[SwissRoundTable] = []
    standings: list[SwissLine] = []
    decided: bool = False
    note: str = ""  # a Swiss that ended before its rounds: when and why


class Slot(_Model):
    """Where a game belongs: its stage, its group (or tie), its number within that group."""

    stage: str
    group: str
    index: int


class NewGame(_Model):
    round: int
    blue: str
    orange: str


class Plan(_Model):
    """A format's view of a tournament: its stages so far, what to add next, whether it is over."""

    format: str
    stages: list[Stage]
    current: str | None  # the stage being played (None once finished)
    finished: bool
    placings: list[str] = []  # the final order, as far as the format decides one
    placing_notes: dict[str, str] = {}  # what decided each place, by player
    slots: dict[int, Slot] = {}
    new: list[NewGame] = []


@dataclass
class Ledger:
    """The stored games, consumed in number order by a format replaying its stages."""

    rows: Sequence[GameRow]
    max_replays: int
    slots: dict[int, Slot] = field(default_factory=dict)
    new: list[NewGame] = field(default_factory=list)
    _next: int = 0  # index into rows of the next game a format asks for
    _counts: dict[tuple[str, str], int] = field(default_factory=dict)

    def add(self, stage: str, group: str, round: int, pairs: Iterable[Pairing]) -> list[int]:
        """The numbers of these games: stored ones checked, the rest noted as new."""
        numbers = []
        for blue, orange in pairs:
            number = self._next + 1
            if self._next < len(self.rows):
                row = self.rows[self._next]
                if (row.blue, row.orange) != (blue, orange):
                    raise FormatMismatch(
                        f"game {row.number} is {row.blue} v {row.orange} in the store, "
                        f"but {blue} v {orange} by the format"
                    )
                number = row.number
            else:
                self.new.append(NewGame(round=round, blue=blue, orange=orange))
            self._next += 1
            index = self._counts.get((stage, group), 0) + 1
            self._counts[(stage, group)] = index
            self.slots[number] = Slot(stage=stage, group=group, index=index)
            numbers.append(number)
        return numbers

    def row(self, number: int) -> GameRow | None:
        index = number - 1
        if 0 <= index < len(self.rows) and self.rows[index].number == number:
            return self.rows[index]
        return next((r for r in self.rows if r.number == number), None)

    def decided(self, numbers: Iterable[int]) -> bool:
        """Every one of these games finished or void for good (and none of them new)."""
        for number in numbers:
            row = self.row(number)
            if row is None or not self._settled(row):
                return False
        return True

    def _settled(self, row: GameRow) -> bool:
        if row.state is GameState.FINISHED:
            return True
        return row.state is GameState.VOID and row.voids > self.max_replays

    def result(self, number: int) -> GameResult | None:
        """A finished game's result; None for a game not finished (void for good: not played)."""
        row = self.row(number)
        if row is None or row.state is not GameState.FINISHED or row.reason is None:
            return None
        return GameResult(row.blue, row.orange, row.winner, row.reason)

    def results(self, numbers: Iterable[int]) -> list[GameResult]:
        return [r for n in numbers if (r := self.result(n)) is not None]

    @property
    def complete(self) -> bool:
        """Whether the format asked for every stored game (else the store holds extra ones)."""
        return self._next >= len(self.rows)


def check_consumed(ledger: Ledger) -> None:
    if not ledger.complete:
        extra = ledger.rows[ledger._next]
        raise FormatMismatch(f"game {extra.number} in the store is not one this format makes")
