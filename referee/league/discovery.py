"""Reading a league's sources into its index, incrementally, and only what holds.

A source is a folder holding a tournament store (a tournament, or a match: `referee match`
stores one as a tournament of two players); a folder named in `league add` that holds none is
searched for them, a few levels down (`referee demo` writes one tournament per game in
subfolders). Each run reads every source's list of finished games from its store (cheap) and
only the games that are new or changed since the index last saw them (a game set aside and
played again has another final hash); games gone from the store leave the index.

A game is rated only if its record holds as `referee tournament verify` checks it
(`referee.tournament.audit`): the record reads, its hash chain is intact and ends at the final
hash the store kept, it is a game of the tournament's game between the scheduled players, it
has its result line, and its moves replayed through the rules give the result the store holds.
What fails is refused, with the problems found, and kept in the index so that every command
names it; a game already counted from another folder (the same key: its record's final hash,
from a copied folder) is kept as a copy, counted once. Both are read again once their store
says they changed. Who played (name, command, content hash) comes from the checked record.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from protocols.base import Reason, Side
from referee.league.config import LeagueConfig, source_folder
from referee.league.index import IndexedGame, LeagueIndex, Player, Refusal, Source
from referee.records import Header
from referee.tournament.audit import audit_record
from referee.tournament.match_setup import CONFIG_NAME as MATCH_CONFIG
from referee.tournament.store import (
    STORE_NAME,
    GameRow,
    GameState,
    StoreError,
    StoreView,
    open_view,
)

MAX_DEPTH = 3
Progress = Callable[[str, int, int], None]  # source, games read, games to read


@dataclass
class SyncReport:
    sources: int = 0
    read: int = 0  # games read (new or changed) and rated
    removed: int = 0
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)  # sources that could not be read
    refused: list[str] = field(default_factory=list)  # games refused by this run, each named
    copies: list[str] = field(default_factory=list)  # games found again in another folder


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


def sync(
    index: LeagueIndex, folder: Path, config: LeagueConfig, progress: Progress | None = None
) -> SyncReport:
    """Bring the index up to date with the league's sources."""
    report = SyncReport()
    paths = [source_folder(folder, entry).resolve() for entry in config.sources]
    # Sources that left the league first: a copy of one of their games is then the one to count.
    report.removed += index.keep_sources(paths)
    for position, path in enumerate(paths):
        try:
            _sync_source(index, path, position, report, progress)
        except StoreError as exc:
            report.problems.append(f"{exc} (its games, if any were read before, are kept)")
        report.sources += 1
    return report


def _sync_source(
    index: LeagueIndex, path: Path, position: int, report: SyncReport, progress: Progress | None
) -> None:
    view = open_view(path)
    try:
        info = view.info()
        rows = view.games(GameState.FINISHED)
        kind = "match" if (path / MATCH_CONFIG).is_file() else "tournament"
        source = Source(path, position, kind, info.name, info.game)
        index.forget_orphan_copies()
        known = index.known_games(path)
        changed = [r for r in rows if known.get(r.number) != seen(r)]
        gone = known.keys() - {r.number for r in rows}
        report.unchanged += len(rows) - len(changed)
        games: list[IndexedGame] = []
        refused: list[Refusal] = []
        keys: dict[str, int] = {}  # the keys of this source's games read now
        for count, row in enumerate(changed, start=1):
            found = checked_game(view, info.game, row)
            if isinstance(found, IndexedGame):
                found = _counted_once(index, path, found, keys)
            if isinstance(found, IndexedGame):
                games.append(found)
                keys[found.key] = found.number
            else:
                refused.append(found)
                if found.kind == "copy":
                    report.copies.append(f"{path}: game {row.number} is {found.problem}")
                else:
                    report.refused.append(
                        named_refusal(str(path), row.number, row.record, found.problem)
                    )
            if progress is not None and (count % 500 == 0 or count == len(changed)):
                progress(info.name, count, len(changed))
    finally:
        view.close()
    index.apply_source(source, games, gone, refused)
    report.read += len(games)
    report.removed += len(gone)


def seen(row: GameRow) -> str:
    """What a store's row says of a finished game: a game whose row says anything else since
    (played again, its result or record changed in the store) is read again."""
    return json.dumps(
        [row.chain, row.finished_at, row.record, row.blue, row.orange, row.plies,
         row.winner.value if row.winner else None, row.reason.value if row.reason else None,
         row.ending]
    )  # fmt: skip


def named_refusal(source: str, number: int, record: str | None, problem: str) -> str:
    """A refused game as every command names it: its source, number and record, and why."""
    return f"{source}: game {number} ({record}): {problem}"


def checked_game(view: StoreView, game: str, row: GameRow) -> IndexedGame | Refusal:
    """A finished game of a store as the league keeps it, if its record holds as `referee
    tournament verify` checks it; else its refusal, with every problem found."""
    audit, record, chain = audit_record(view, row, game)
    problems = list(audit.problems)
    if not problems and chain is None:
        try:  # a record without a hash chain (an older referee's) is known by its file's hash
            chain = hashlib.sha256((view.directory / (row.record or "")).read_bytes()).hexdigest()
        except OSError as exc:
            problems.append(f"cannot read the record again: {exc}")
    if problems or record is None or chain is None:
        return Refusal(row.number, seen(row), row.record, "refused", None, "; ".join(problems))
    return indexed_game(game, row, record.header, chain)


def _counted_once(
    index: LeagueIndex, path: Path, game: IndexedGame, keys: dict[str, int]
) -> IndexedGame | Refusal:
    """The game, or a copy's refusal when a game with its key is counted already: read from
    another folder (a copied tournament), under another number, or earlier in this run."""
    where: tuple[str, int] | None = None
    if game.key in keys:
        where = (str(path), keys[game.key])
    elif (found := index.game_with_key(game.key)) is not None and found != (str(path), game.number):
        where = found
    if where is None:
        return game
    problem = f"game {where[1]} of {where[0]}, counted once (the same record)"
    return Refusal(game.number, game.seen, game.record, "copy", game.key, problem)


def indexed_game(game: str, row: GameRow, header: Header, key: str) -> IndexedGame:
    """A finished game of a store, with its players as its (checked) record's header names
    them."""
    players = {}
    for side, name in ((Side.BLUE, row.blue), (Side.ORANGE, row.orange)):
        info = header.players[side]  # checked: the record's players are the scheduled ones
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
        record=row.record or "",
        started_at=row.started_at or header.started_at.isoformat(),
        finished_at=row.finished_at or "",
        chain=row.chain,
        key=key,
        seen=seen(row),
    )
