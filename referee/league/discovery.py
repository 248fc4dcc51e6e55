"""Reading a league's sources into its index, incrementally.

A source is a folder holding a tournament store (a tournament, or a match: `referee match`
stores one as a tournament of two players); a folder named in `league add` that holds none is
searched for them, a few levels down (`referee demo` writes one tournament per game in
subfolders). Each run reads every source's list of finished games from its store (cheap) and
only the records of games that are new or changed since the index last saw them (a game set
aside and played again has another final hash); games gone from the store leave the index.

Of a record only its header line is read: who played (name, command, content hash). A record
that cannot be read is a problem naming its file, line and field; its game is left out and
the rest is read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from protocols.base import Reason, Side
from referee.league.config import LeagueConfig, source_folder
from referee.league.index import IndexedGame, LeagueIndex, Player, Source
from referee.records import CHAIN_FIELD, Header, RecordError, describe_validation_error
from referee.tournament.match_setup import CONFIG_NAME as MATCH_CONFIG
from referee.tournament.store import STORE_NAME, GameRow, GameState, StoreError, open_view

MAX_DEPTH = 3
Progress = Callable[[str, int, int], None]  # source, games read, games to read


@dataclass
class SyncReport:
    sources: int = 0
    read: int = 0  # games read (new or changed)
    removed: int = 0
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)


def tournament_folders(root: Path, depth: int = MAX_DEPTH) -> Iterator[Path]:
    """`root` if it holds a store, else the folders below it (up to `depth`) that do, sorted;
    hidden folders and a tournament's own folders are not searched, links not followed."""
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if STORE_NAME in files:
            dirs.clear()
            yield here
            continue
        level = len(here.relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if level < depth else []


def read_header(path: Path) -> Header:
    """The header line of a record, validated; `RecordError` names the file, line and field."""
    try:
        with path.open(encoding="utf-8") as file:
            first = file.readline()
        data = json.loads(first)
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read record: {exc}") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}:1: not JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(data, dict):
        raise RecordError(f"{path}:1: not a JSON object")
    data.pop(CHAIN_FIELD, None)
    try:
        return Header.model_validate(data)
    except ValidationError as exc:
        raise RecordError(describe_validation_error(exc, f"{path}:1").split("\n")[0]) from None


def sync(
    index: LeagueIndex, folder: Path, config: LeagueConfig, progress: Progress | None = None
) -> SyncReport:
    """Bring the index up to date with the league's sources."""
    report = SyncReport()
    paths = []
    for position, entry in enumerate(config.sources):
        path = source_folder(folder, entry).resolve()
        paths.append(path)
        try:
            _sync_source(index, path, position, report, progress)
        except StoreError as exc:
            report.problems.append(f"{exc} (its games, if any were read before, are kept)")
        report.sources += 1
    report.removed += index.keep_sources(paths)
    return report


def _sync_source(
    index: LeagueIndex, path: Path, position: int, report: SyncReport, progress: Progress | None
) -> None:
    view = open_view(path)
    try:
        info = view.info()
        rows = view.games(GameState.FINISHED)
    finally:
        view.close()
    kind = "match" if (path / MATCH_CONFIG).is_file() else "tournament"
    source = Source(path, position, kind, info.name, info.game)
    known = index.known_games(path)
    changed = [r for r in rows if known.get(r.number) != (r.chain, r.finished_at)]
    gone = known.keys() - {r.number for r in rows}
    report.unchanged += len(rows) - len(changed)
    games = []
    for count, row in enumerate(changed, start=1):
        try:
            games.append(indexed_game(path, info.game, row))
        except RecordError as exc:
            report.problems.append(str(exc))
        if progress is not None and (count % 500 == 0 or count == len(changed)):
            progress(info.name, count, len(changed))
    index.apply_source(source, games, gone)
    report.read += len(games)
    report.removed += len(gone)


def indexed_game(folder: Path, game: str, row: GameRow) -> IndexedGame:
    """A finished game of a store, with its players as its record's header names them."""
    if row.record is None or row.finished_at is None:
        raise RecordError(f"{folder / STORE_NAME}: game {row.number} is finished without a record")
    header = read_header(folder / row.record)
    players = {}
    for side, name in ((Side.BLUE, row.blue), (Side.ORANGE, row.orange)):
        info = header.players.get(side)
        if info is None:
            raise RecordError(f"{folder / row.record}:1: field players.{side}: missing")
        players[side] = Player(game, name, info.content_hash or "", info.command)
    reason = row.reason or Reason.GAME_ENDING
    fault = None
    if reason.is_bot_fault:
        loser = None if row.winner is None else row.winner.other
        fault = loser.value if loser is not None else None
    return IndexedGame(
        number=row.number,
        blue=players[Side.BLUE],
        orange=players[Side.ORANGE],
        result=row.winner.value if row.winner is not None else "draw",
        reason=row.ending or reason.value,
        fault=fault,
        rated=not (row.winner is None and reason.is_bot_fault),
        plies=row.plies or 0,
        record=row.record,
        started_at=row.started_at or header.started_at.isoformat(),
        finished_at=row.finished_at,
        chain=row.chain,
    )
