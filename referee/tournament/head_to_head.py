"""A match of many games between two players (`referee match`), kept as a tournament: its
directory holds a config of two players with `games_per_pairing` games, the store and the
records, so it is played, resumed and stored by the same runner as any tournament.

The schedule of two players alternates colours game by game (schedule.py), so games 2k-1 and
2k are the same pair with colours swapped: the pairs of the SPRT (sprt.py). This module turns
finished games into the first player's scores by game number, and says when the SPRT decided.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from protocols.base import Side
from referee.match import BUILTIN_PREFIX
from referee.tournament.events import Event, GameFinished
from referee.tournament.runner import RunState
from referee.tournament.sprt import MatchStats, Sprt, match_stats
from referee.tournament.store import GameRow, GameState

CONFIG_NAME = "match.toml"
DEFAULT_ROOT = Path("referee-matches")


def player_name(command: str) -> str:
    """A short name for a bot from its command: `builtin:greedy ...` -> `greedy`,
    `python bots/v2/main.py` -> `main`... the last word that names a file, without suffix."""
    words = command.split()
    if words and words[0].startswith(BUILTIN_PREFIX):
        name = words[0][len(BUILTIN_PREFIX) :]
    else:
        files = [w for w in words if "/" in w or "." in w.lstrip(".")]
        name = Path(files[-1]).stem if files else (words[0] if words else "bot")
        if name in ("main", "bot", "player", "__main__") and files:
            name = Path(files[-1]).parent.name or name  # a bot's folder names it better
    name = re.sub(r"[^A-Za-z0-9_.+-]+", "-", name).strip("-.") or "bot"
    return name[:32]


def player_names(command1: str, command2: str) -> tuple[str, str]:
    """Distinct names for the two players (a suffix when both commands give the same)."""
    first, second = player_name(command1), player_name(command2)
    if first == second:
        return f"{first}-1", f"{second}-2"
    return first, second


def default_directory(first: str, second: str) -> Path:
    return DEFAULT_ROOT / f"{first}-vs-{second}"


def match_config(
    game: str,
    players: Iterable[tuple[str, str]],
    games: int,
    *,
    seed: int = 1,
    move_timeout: float | None = None,
) -> str:
    """The tournament config of a match (written as `match.toml` in its directory)."""
    players = list(players)
    lines = [
        f"name = {json.dumps(f'{players[0][0]} vs {players[1][0]}')}",
        f"game = {json.dumps(game)}",
        f"seed = {seed}",
        f"games_per_pairing = {games}",
        'directory = "."',
    ]
    if move_timeout is not None:
        lines += ["", "[time_control]", f"move_timeout = {move_timeout}"]
    for name, command in players:  # json strings are valid TOML basic strings
        lines += [
            "",
            "[[players]]",
            f"name = {json.dumps(name)}",
            f"command = {json.dumps(command)}",
        ]
    return "\n".join(lines) + "\n"


def first_player_score(winner: str | None, first: str, second: str) -> float:
    """1, 1/2 or 0 for the first player. A game with no winner (a draw, or both bots failing
    to start) is a half point each: the match compares the two bots, and a double forfeit says
    nothing about which is the stronger."""
    if winner == first:
        return 1.0
    if winner == second:
        return 0.0
    return 0.5


@dataclass
class Tally:
    """The first player's score in every finished game, by game number; fed the stored games
    before a run, then the runner's events as games finish."""

    first: str
    second: str
    sprt: Sprt | None = None
    scores: dict[int, float] = field(default_factory=dict)

    def add_rows(self, rows: Iterable[GameRow]) -> None:
        for row in rows:
            # Another match's games (other players) never count for this one: its config
            # is then refused before any game is played.
            if row.state is GameState.FINISHED and {row.blue, row.orange} == {
                self.first,
                self.second,
            }:
                winner = None
                if row.winner is not None:
                    winner = row.blue if row.winner is Side.BLUE else row.orange
                self.scores[row.number] = first_player_score(winner, self.first, self.second)

    def watch(self, event: Event) -> None:
        """The session's `watch`: sees each event before the runner asks `stop_when`."""
        if isinstance(event, GameFinished) and event.result != "void":
            self.scores[event.number] = first_player_score(event.winner, self.first, self.second)

    def stats(self) -> MatchStats:
        return match_stats(self.scores, self.sprt)

    def decided(self, state: RunState | None = None) -> bool:
        """The runner's `stop_when`: true once the SPRT accepted H0 or H1."""
        return self.sprt is not None and self.stats().decision is not None


def conclusion(stats: MatchStats, sprt: Sprt, first: str, second: str) -> str:
    """The SPRT's decision in plain words."""
    if stats.decision == "H1":
        return (
            f"H1 accepted: {first} is stronger than {second} by at least {sprt.elo1:g} Elo, "
            f"with {100 * (1 - sprt.alpha):g}% confidence"
        )
    if stats.decision == "H0":
        return (
            f"H0 accepted: {first} is not stronger than {second} by {sprt.elo1:g} Elo or more, "
            f"with {100 * (1 - sprt.beta):g}% confidence"
        )
    return "no decision yet: play more games (raise --games and run the same command again)"
