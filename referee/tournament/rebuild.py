"""Make a tournament's store again from its game records, which are the source of truth.

A store that cannot be read (emptied, damaged, deleted while its records remain) is refused by
`tournament run`; `referee tournament rebuild CONFIG` makes a new one: the config's schedule,
every record file matched with its game (`games/0007-2.jsonl`: game 7, attempt 2), checked
(header, hash chain, players and seed of that game), and the game's state put back as its last
attempt left it: finished with its result, void, or to be played (an attempt cut short). A
staged format's later stages are added as the runner adds them, from the results restored so
far. Nothing is written over: the new store is made beside the old file and replaces it only
when whole; the old file is kept, renamed. A record that does not read, or that belongs to no
game of this config's schedule, stops the rebuild with its name and changes nothing.

A round robin or gauntlet that grew (players added, more games per pairing) is rebuilt too: its
recorded games keep their numbers (and take their rounds from the grown schedule), and the
schedule's other games follow them, as `growth.py` adds them. A game set aside by `tournament
replay` and not yet played again counts with the result of its last record.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from protocols.base import Side
from referee.records import ChainedRecord, RecordError, read_chained_record
from referee.tournament.config import LoadedConfig
from referee.tournament.formats import is_staged, make_schedule, new_games, plan_for
from referee.tournament.growth import match_schedule
from referee.tournament.resume import create_tournament
from referee.tournament.schedule import ScheduledGame, game_seed
from referee.tournament.store import (
    RECORDS_DIR,
    GameState,
    RestoredAttempt,
    Store,
    StoreError,
    open_store,
    record_files,
)

_RECORD_NAME = re.compile(r"(\d+)(?:-(\d+))?\.jsonl")


class RebuildError(StoreError):
    """The records cannot make a store for this config; the message names the record."""


@dataclass(frozen=True)
class Rebuilt:
    """What a rebuild made: games by state, records read, and where the old store went."""

    records: int
    finished: int
    to_play: int
    kept: Path | None


Attempts = dict[int, list[tuple[int, Path]]]  # game number -> (attempt, record file), in order


def rebuild_store(loaded: LoadedConfig) -> Rebuilt:
    """Make the tournament's store from its records (RebuildError, StoreError: nothing changed)."""
    directory = loaded.directory
    attempts = find_records(directory)
    if not attempts:
        raise RebuildError(f"{directory / RECORDS_DIR}: no game records to rebuild from")
    store = open_store(directory, fresh=True)
    try:
        schedule = _schedule(loaded, attempts)
        _create(loaded, store, schedule, grown=schedule != make_schedule(loaded.config))
        _restore(store, attempts, schedule)
        if is_staged(loaded.config.format):
            _restore_stages(loaded, store, attempts)
        if stray := sorted(set(attempts) - {row.number for row in store.games()}):
            first = attempts[stray[0]][0][1]
            raise RebuildError(
                f"{first}: game {stray[0]} is not in the schedule {loaded.path} makes"
                + (f" (nor are {len(stray) - 1} more recorded games)" if len(stray) > 1 else "")
            )
        rows = store.games()
        kept = store.publish()
    finally:
        store.close()
    return Rebuilt(
        records=sum(len(found) for found in attempts.values()),
        finished=sum(row.state is GameState.FINISHED for row in rows),
        to_play=sum(row.state is not GameState.FINISHED for row in rows),
        kept=kept,
    )


def find_records(directory: Path) -> Attempts:
    """The record files of a tournament directory, by game and attempt."""
    found: Attempts = defaultdict(list)
    for path in record_files(directory):
        if match := _RECORD_NAME.fullmatch(path.name):
            found[int(match[1])].append((int(match[2] or 1), path))
    return {number: sorted(found[number]) for number in sorted(found)}


def _schedule(loaded: LoadedConfig, attempts: Attempts) -> list[ScheduledGame]:
    """The config's schedule with the recorded games at their numbers: as made, or (for a
    tournament that grew) the recorded games first and the schedule's others after them."""
    schedule = make_schedule(loaded.config)
    by_number = {game.number: game for game in schedule}
    recorded = {number: _scheduled_as(found[-1][1], number) for number, found in attempts.items()}
    if all(_same_game(by_number.get(n), g) for n, g in recorded.items() if n in by_number):
        return schedule
    if is_staged(loaded.config.format):
        number = next(n for n, g in recorded.items() if not _same_game(by_number.get(n), g))
        raise _not_this_game(attempts[number][-1][1], recorded[number], by_number.get(number))
    matched = match_schedule([(g.blue, g.orange) for g in recorded.values()], schedule)
    # A grown tournament's games keep their seeds: the first schedule's (from the tournament's
    # seed and their number), or for games added later, the grown schedule's.
    seeds = {g.seed for g in schedule} | {game_seed(loaded.config.seed, n) for n in recorded}
    if matched is None or any(g.seed not in seeds for g in recorded.values()):
        raise RebuildError(
            f"{loaded.directory / RECORDS_DIR}: the recorded games are not those of the "
            f"schedule {loaded.path} makes (was the config changed?)"
        )
    games = [replace(g, round=m.round) for g, m in zip(recorded.values(), matched[0], strict=True)]
    first = max(recorded) + 1
    return [*games, *(replace(g, number=first + i) for i, g in enumerate(matched[1]))]


def _scheduled_as(path: Path, number: int) -> ScheduledGame:
    """The game a record says was played (its round unknown: 0)."""
    header = _read(path).record.header
    blue, orange = header.players[Side.BLUE].name, header.players[Side.ORANGE].name
    return ScheduledGame(number, 0, blue, orange, header.seed if header.seed is not None else -1)


def _same_game(scheduled: ScheduledGame | None, recorded: ScheduledGame) -> bool:
    if scheduled is None:
        return False
    return (scheduled.blue, scheduled.orange, scheduled.seed) == (
        recorded.blue,
        recorded.orange,
        recorded.seed,
    )


def _not_this_game(
    path: Path, recorded: ScheduledGame, scheduled: ScheduledGame | None
) -> RebuildError:
    played = f"{recorded.blue} (blue) against {recorded.orange}, seed {recorded.seed}"
    if scheduled is None:
        return RebuildError(f"{path}: {played}: game {recorded.number} is not in the schedule")
    wanted = f"{scheduled.blue} (blue) against {scheduled.orange}, seed {scheduled.seed}"
    return RebuildError(
        f"{path}: {played}, but game {recorded.number} of the schedule is {wanted} "
        "(was the config changed?)"
    )


def _read(path: Path) -> ChainedRecord:
    try:
        return read_chained_record(path)
    except RecordError as exc:
        raise RebuildError(
            f"{exc}. Move the record out of {path.parent} to play its game again."
        ) from None


def _create(loaded: LoadedConfig, store: Store, games: list[ScheduledGame], grown: bool) -> None:
    create_tournament(loaded, store, games, publish=False)
    if grown:
        store.mark_grown()


def _restore(store: Store, attempts: Attempts, games: list[ScheduledGame]) -> None:
    """Each of `games` that has records gets its attempts and its state back."""
    for game in games:
        found = attempts.get(game.number)
        if found:
            store.restore(game.number, [_attempt(game, attempt, path) for attempt, path in found])


def _attempt(game: ScheduledGame, attempt: int, path: Path) -> RestoredAttempt:
    record, chain = _read(path)
    played = _scheduled_as(path, game.number)
    if not _same_game(game, played):
        raise _not_this_game(path, played, game)
    result = record.result
    ended = result.finished_at if result else _modified(path)
    return RestoredAttempt(
        attempt=attempt,
        result=result,
        started_at=record.header.started_at.isoformat(),
        ended_at=ended.isoformat(),
        chain=chain,
    )


def _modified(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def _restore_stages(loaded: LoadedConfig, store: Store, attempts: Attempts) -> None:
    """Add each later stage as the runner would, and restore its recorded games."""
    config = loaded.config
    while True:
        rows = store.games()
        added = new_games(plan_for(config, rows), len(rows) + 1, config.seed)
        if not added:
            return
        store.add_stage([(g.number, g.round, g.blue, g.orange, g.seed) for g in added])
        _restore(store, attempts, added)
