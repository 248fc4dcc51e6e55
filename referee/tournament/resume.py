"""A tournament's store opened for a run: created for a new tournament, grown for one that only
added players or games, else checked to hold the schedule its config makes; a config that changed
the schedule is refused, saying what changed and what may change.
"""

from __future__ import annotations

from referee.records import utc_now
from referee.tournament.config import LoadedConfig, book_change, changed_keys, comparable_key
from referee.tournament.formats import FormatMismatch, is_staged, make_schedule, plan_for
from referee.tournament.growth import added_games
from referee.tournament.schedule import ScheduledGame
from referee.tournament.setting_changes import changes
from referee.tournament.store import (
    Store,
    StoreError,
    TournamentInfo,
    UnreadableStore,
    open_store,
)

STAGED_NAMES = {"stages": "group-stage tournament", "knockout": "knockout", "swiss": "Swiss"}


class ScheduleChanged(StoreError):
    """The config no longer describes the schedule stored in the tournament directory."""


def open_tournament(loaded: LoadedConfig) -> tuple[Store, list[ScheduledGame]]:
    """Open (or create) the tournament's store and check it holds this config's schedule."""
    config = loaded.config
    schedule = make_schedule(config)
    store = open_store(loaded.directory)
    try:
        if store.is_new():
            create_tournament(loaded, store, schedule)
        else:
            _grow_or_check(loaded, store, schedule)
            store.update_config(config.model_dump(mode="json"))
    except BaseException:
        store.close()
        raise
    return store, schedule


def create_tournament(
    loaded: LoadedConfig, store: Store, games: list[ScheduledGame], *, publish: bool = True
) -> None:
    """Write a new store: the tournament's description (its config and schedule key) and the
    schedule `games` (see `Store.create` for `publish`)."""
    config = loaded.config
    info = TournamentInfo(
        name=config.name,
        game=config.schedule_key()["game"],
        config=config.model_dump(mode="json"),
        schedule_key=loaded.schedule_key(),  # with the sha256 of its book, if it has one
        created_at=utc_now().isoformat(),
    )
    rows = [(g.number, g.round, g.blue, g.orange, g.seed) for g in games]
    store.create(info, config.player_names, rows, publish=publish)


def _grow_or_check(loaded: LoadedConfig, store: Store, schedule: list[ScheduledGame]) -> None:
    """Add the new games of a tournament that only grew; else check nothing changed."""
    stored = store.info().schedule_key
    wanted = comparable_key(stored, loaded.schedule_key())
    added = added_games(stored, wanted, store.games(), schedule)
    if added is None:
        _check_unchanged(loaded, store, schedule)
        return
    rows = [(g.number, g.round, g.blue, g.orange, g.seed) for g in added]
    store.grow(loaded.config.player_names, rows, wanted)


def _check_unchanged(loaded: LoadedConfig, store: Store, schedule: list[ScheduledGame]) -> None:
    stored = store.info().schedule_key
    wanted = comparable_key(stored, loaded.schedule_key())
    changed = changed_keys(stored, wanted)
    if changed == ["openings"] and (book := book_change(stored, wanted)) is not None:
        raise ScheduleChanged(
            f"{loaded.path}: {book}: the tournament in {loaded.directory} cannot go on from "
            "other openings. Put the old book back to resume it, or set another `directory` "
            "to start a new tournament."
        )
    if not changed and not store.grown():  # a grown schedule is in the order it grew
        rows = [(g.number, g.blue, g.orange, g.seed) for g in store.games()]
        if is_staged(loaded.config.format):
            rows = rows[: len(schedule)]  # the first stage; the format checks the later ones
        if rows != [(g.number, g.blue, g.orange, g.seed) for g in schedule]:
            changed = ["the schedule itself (made by another version of the referee)"]
        elif is_staged(loaded.config.format):
            try:
                plan_for(loaded.config, store.games())
            except FormatMismatch as exc:
                changed = [f"the later stages ({exc})"]
    if changed:
        details = "; ".join(
            line
            for key in changed
            if key in wanted or key in stored
            for line in changes(key, stored.get(key), wanted.get(key))
        )
        raise ScheduleChanged(
            f"{loaded.path}: the config changes the schedule of the tournament in "
            f"{loaded.directory} ({details or changed[0]}). Put the old values back to resume it, "
            f"or set another `directory` to start a new tournament ({_what_may_change(loaded)})."
        )


def _what_may_change(loaded: LoadedConfig) -> str:
    """What a config may change in a tournament that has started, said for its format."""
    fmt = loaded.config.format
    if is_staged(fmt):
        return (
            f"a {STAGED_NAMES[fmt]} cannot take more players or games per pairing once it has "
            "started: its later rounds follow from its first"
        )
    return "adding players or games per pairing is fine: the games played are kept"


def store_problem(exc: StoreError, loaded: LoadedConfig) -> str:
    """What is wrong with a tournament's store and, for one that cannot be read, how to get it
    back from the records."""
    if not isinstance(exc, UnreadableStore):
        return str(exc)
    return (
        f"{exc}. Nothing was changed. The game records in {loaded.directory / 'games'} are the "
        f"source of truth: make the store again from them with `referee tournament rebuild "
        f"{loaded.path}`, then run again."
    )
