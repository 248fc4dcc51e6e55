"""The final: a normal tournament folder, DIR/final, made once from the pinned versions and
played (or resumed) like any other tournament.

`prepare_final` writes DIR/final/tournament.toml the first time (the [final] tournament file's
settings, its baselines, and each pinned version as a player: its folder, its command, and as a
comment its version and content hash), records each version's content hash in the store, and
from then on reads that file as `referee tournament run` does. Every time it is read, each
pinned version must still hash to what was recorded: a version changed after the pin is
refused, never played in its place. The file is never written again, so the final is the same
whatever happens to the [final] file or the arena later; its schedule follows from its seed
and its players (by name, the baselines first), so the same pins make the same schedule.

`play_final` plays it in the server's own trio loop with the tournament runner (the games it
was playing when stopped are played again, as `tournament run` resumes); `referee arena final`
plays it through the same session as `referee tournament run`. `referee tournament verify
DIR/final` checks every game of it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

import trio

from referee.app.config import parse_config
from referee.arena.final_file import (
    Entrant,
    FinalFileError,
    config_text,
    final_config,
    own_problems,
    read_final_file,
)
from referee.arena.final_progress import FINAL_DIR
from referee.arena.finalists import Entry, entries, pinned_at, record_hashes
from referee.arena.folder import Arena
from referee.arena.preflight import version_folder
from referee.arena.version_hash import version_hash
from referee.course.scheme import BASELINE_PREFIX, CourseError, load_scheme
from referee.isolation import IsolationUnavailable, describe
from referee.match.host import Host
from referee.nofollow import write_file
from referee.players import POSITION
from referee.tournament.bot_folders import layout_refusal
from referee.tournament.config import ConfigError, LoadedConfig
from referee.tournament.events import Event, GameFinished, TournamentFinished
from referee.tournament.resume import open_tournament, store_problem
from referee.tournament.roster import Roster
from referee.tournament.runner import Runner, play_match, tournament_host
from referee.tournament.store import Store, StoreError

CONFIG_NAME = "tournament.toml"
log = logging.getLogger("referee.arena")


class FinalError(Exception):
    """The final cannot be made or played as things are; the message says why and what to do."""


def final_dir(arena: Arena) -> Path:
    return arena.paths.root / FINAL_DIR


def final_config_path(arena: Arena) -> Path:
    return final_dir(arena) / CONFIG_NAME


def prepare_final(arena: Arena) -> LoadedConfig:
    """The final's config, written first if it is not yet (the versions must be pinned), read
    and checked against the pins; `FinalError` says what stops it. For a command: it runs
    the store's queries on the writer connection (the server uses `open_final`)."""
    db = arena.store.writer
    people = entries(db)
    path = final_config_path(arena)
    if people and not path.exists():
        text, hashes = final_text(arena, people, pinned_at(db))
        record_hashes(db, hashes)
        _keep(path, text)
        people = entries(db)
    return load_final(arena, people)


async def open_final(arena: Arena) -> LoadedConfig:
    """`prepare_final` in the server: its queries through the store's connections, its files
    and hashes off the event loop."""
    store = arena.store
    people = await store.read(entries)
    path = final_config_path(arena)
    if people and not path.exists():
        when = await store.read(pinned_at)
        text, hashes = await trio.to_thread.run_sync(final_text, arena, people, when)
        await store.write(record_hashes, hashes)
        await trio.to_thread.run_sync(_keep, path, text)
        people = await store.read(entries)
    return await trio.to_thread.run_sync(load_final, arena, people)


def load_final(arena: Arena, people: list[Entry]) -> LoadedConfig:
    """The final's config as `tournament run` reads it, every pinned version in it as pinned."""
    if not people:
        raise FinalError(
            "no student is pinned for the final: the versions are pinned at the deadline (or "
            "by `referee arena final --now`), and only students' accounts play"
        )
    path = final_config_path(arena)
    try:
        loaded = parse_config(path.read_text(encoding="utf-8"), path)
    except (OSError, UnicodeDecodeError, ConfigError) as exc:
        raise FinalError(str(exc)) from None
    if problems := changed_versions(loaded, people):
        raise FinalError(
            f"{path}: the final plays the versions as they were pinned:\n" + "\n".join(problems)
        )
    return loaded


def changed_versions(loaded: LoadedConfig, people: list[Entry]) -> list[str]:
    """The pinned versions that the final's config would not play as they were pinned."""
    problems = []
    names = set(loaded.config.player_names)
    roster = Roster.of(loaded)
    for entry in people:
        if entry.version_id is None:
            continue
        what = f"{entry.username}'s version {entry.version_number}"
        if entry.player not in names:
            problems.append(f"{what} is not a player of the final")
        elif roster.players[entry.player].content_hash != entry.content_hash:
            problems.append(f"{what}: its files or its command changed since it was pinned")
    return problems


def final_text(arena: Arena, people: list[Entry], pinned: str | None) -> tuple[str, dict[int, str]]:
    """The text of the final's config, made from the [final] file and the pinned `people`, and
    each pinned version's content hash (by account); `FinalError` for a final that cannot be
    made (the file broken since the arena started, a field too small...)."""
    config = arena.config
    final_path = arena.path(config.final.tournament)
    try:
        final = read_final_file(final_path)
        baselines = list(load_scheme(arena.path(config.grades.scheme)).baselines)
    except (FinalFileError, CourseError) as exc:
        raise FinalError(str(exc)) from None
    if problems := own_problems(final, config.game, baselines):
        raise FinalError(final.described(problems))
    path = final_config_path(arena)
    entrants, hashes = [], {}
    for entry in people:
        if entry.version_id is not None:
            entrant, hashes[entry.account_id] = _entrant(arena, entry, path.parent)
            entrants.append(entrant)
    settings = final_config(
        final,
        name=config.name,
        game_options=config.game_options,
        time_control=config.time_control.model_dump(exclude_none=True),
        match=config.match_entries(),
        concurrency=config.schedule.concurrency,
        entrants=entrants,
    )
    absent = [e.username for e in people if e.version_id is None]
    header = [
        f"The final of {config.name}: the versions pinned at {pinned},",
        f"played as {os.path.relpath(final_path, path.parent)} says.",
        "Each student plays the version pinned then; the baselines come from that file.",
        "A normal tournament: `referee tournament results|verify` on this folder;",
        "`referee arena final` (or the arena's server) plays it and resumes it.",
        f"Absent (no version to play): {', '.join(absent) if absent else 'nobody'}.",
    ]
    text = config_text(settings, header, {e.name: e.note for e in entrants})
    try:
        parse_config(text, path)  # as `tournament run` will read it, before it is kept
    except ConfigError as exc:
        raise FinalError(str(exc)) from None
    return text, hashes


def _entrant(arena: Arena, entry: Entry, folder: Path) -> tuple[Entrant, str]:
    """A pinned version as a player of the final, and its content hash (as the tournament
    computes it for the player: its command and its own folder)."""
    assert entry.version_id is not None
    if not entry.command:
        raise FinalError(f"{entry.username}'s version {entry.version_number} has no command")
    if entry.player.startswith(BASELINE_PREFIX):
        raise FinalError(
            f"{entry.username}: a username starting with {BASELINE_PREFIX} names a built-in "
            "bot in the final; give the student another username"
        )
    where = version_folder(arena.paths, entry.version_id).resolve()
    digest = version_hash(entry.command, where)
    note = f"{entry.username}: version {entry.version_number} (id {entry.version_id}), "
    entrant = Entrant(
        name=entry.player,
        command=entry.command,
        folder=os.path.relpath(where, folder.resolve()),
        capabilities=tuple(c for c in entry.capabilities if c == POSITION),
        note=note + f"content sha256 {digest}",
    )
    return entrant, digest


def _keep(path: Path, text: str) -> None:
    try:
        write_whole(path, text)
    except OSError as exc:  # a full disk, a link planted in the way: said, not a crash
        raise FinalError(f"{path}: cannot write the final's config: {exc}") from None


def write_whole(path: Path, text: str, mode: int = 0o644) -> None:
    """Write `text` to `path` whole or not at all (beside it, synced and renamed into place,
    without following a planted link: `nofollow.write_file`)."""
    write_file(path, text, sync=True, mode=mode)


async def play_final(
    loaded: LoadedConfig, *, emit: Callable[[Event], None] = lambda event: None
) -> TournamentFinished:
    """Play (or resume) the final in this trio loop, as `tournament run` plays a tournament on
    this machine: the isolation chosen once, the store checked against the config, the
    runner. Cancelled, its games in progress go back to be played again."""
    roster, host, store = await trio.to_thread.run_sync(_ready, loaded)
    log.info("the final: %s", describe(host.isolation))
    try:
        play = partial(play_match, host=host, roster=roster)
        runner = Runner(loaded, store, emit=emit, play=play)
        return await runner.run(handle_signals=False)
    finally:
        store.close()


def _ready(loaded: LoadedConfig) -> tuple[Roster, Host, Store]:
    """The final's players (its roster, their content hashes), its host (as a tournament's,
    `tournament_host`) and its store opened (off the event loop: all read the disk, and
    choosing the isolation may try the machine's programs)."""
    roster = Roster.of(loaded)
    if refusal := layout_refusal(roster.specs(game_seed=loaded.config.seed)):
        raise FinalError(f"{loaded.path}: {refusal}")
    try:
        host = tournament_host(loaded, roster)
    except IsolationUnavailable as exc:
        raise FinalError(f"{loaded.path}: [match.isolation]: {exc}") from None
    try:
        store, _ = open_tournament(loaded)
    except StoreError as exc:
        raise FinalError(store_problem(exc, loaded)) from None
    return roster, host, store


def log_event(event: Event) -> None:
    """The final's games in the arena's log."""
    if isinstance(event, GameFinished):
        void = " (void, played again)" if event.replay else ""
        log.info(
            "final game %d: %s - %s: %s%s", event.number, event.blue, event.orange, event.result,
            void,
        )  # fmt: skip
