"""A match's own statistics read from its directory, so that whatever shows a match folder
(`referee tournament results`, the web dashboard) gives the figures `referee match` prints: the
score, the pentanomial counts, the Elo difference from game pairs, the LOS and the SPRT's state.

`referee match` keeps how it computes them (the model, pairs or single games, and the SPRT it
was last run with) in `match-statistics.json` beside `match.toml`; the scores come from the
store's finished games. A match folder written before that file existed reads as pairs without
an SPRT.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from protocols.base import Side
from referee.nofollow import write_file
from referee.stats.estimate import Model
from referee.stats.head_to_head import Tally
from referee.stats.sprt import Sprt, parse_sprt
from referee.tournament.match_setup import CONFIG_NAME
from referee.tournament.store import GameRow, GameState

STATISTICS_NAME = "match-statistics.json"


def save_statistics(directory: Path, sprt: Sprt | None, model: Model) -> None:
    """Keep how `referee match` computes this match's statistics (a temporary file renamed over
    the old one: a crash leaves one or the other; never through a planted link)."""
    text = json.dumps({"model": model, "sprt": sprt.describe() if sprt else None}) + "\n"
    path = directory / STATISTICS_NAME
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    write_file(path, text)


def read_statistics(directory: Path) -> tuple[Model, Sprt | None]:
    """The model and SPRT kept by `save_statistics`; pairs and no SPRT when there is no such
    file, or one that does not read (it only says how to show the games, which the store
    holds)."""
    try:
        data = json.loads((directory / STATISTICS_NAME).read_text(encoding="utf-8"))
        model: Model = "trinomial" if data["model"] == "trinomial" else "pentanomial"
        sprt = parse_sprt(str(data["sprt"]).split()) if data["sprt"] is not None else None
    except (OSError, ValueError, KeyError, TypeError):
        return "pentanomial", None
    return model, sprt


def is_match(directory: Path) -> bool:
    return (directory / CONFIG_NAME).is_file()


def match_tally(directory: Path, players: list[str], rows: Iterable[GameRow]) -> Tally | None:
    """The statistics of the match in `directory` (its first two players, in the order of its
    config), from the store's games; None when the folder holds no match."""
    if not is_match(directory) or len(players) != 2:
        return None
    model, sprt = read_statistics(directory)
    tally = Tally(players[0], players[1], sprt, model=model)
    tally_rows(tally, rows)
    return tally


def tally_rows(tally: Tally, rows: Iterable[GameRow]) -> None:
    """Count the stored games of this match (another match's games, between other players,
    never count: its config is then refused before any game is played)."""
    for row in rows:
        if row.state is GameState.FINISHED and {row.blue, row.orange} == {
            tally.first,
            tally.second,
        }:
            winner = None
            if row.winner is not None:
                winner = row.blue if row.winner is Side.BLUE else row.orange
            tally.add(row.number, winner)
