"""Tournaments for the web view: the dashboard's data from a tournament directory's store, and
the hook that shows a running tournament's games live.

A folder that holds a tournament store (`referee.tournament.store`), a served folder or one up to
`MAX_DEPTH` levels below it (`referee demo` writes one tournament per game in subfolders), is a
tournament: its standings (with ratings), progress, games in progress and latest results, and
a staged format's stages (group tables, bracket, Swiss rounds: `plan`), are read through the
store's read-only API and `build_report`, safe while the tournament runs in another process.

`TournamentWatch(hub)` is what, in the process that plays the tournament (`referee tournament
run --web`), makes every game also a live game of the hub and tells dashboards when a game starts
or ends; `watch_tournament(hub, play, emit)` wraps a runner's `play` and `emit` with it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from referee.match.lag import LagMonitor
from referee.match.recorder import Listener
from referee.records import GameRecord
from referee.tournament.config import LoadedConfig
from referee.tournament.events import Event, GameFinished, GameStarted, TournamentFinished
from referee.tournament.report import GameLine, build_report, not_played, rating_note
from referee.tournament.runner import PlayGame
from referee.tournament.schedule import ScheduledGame
from referee.tournament.store import STORE_NAME, GameState, StoreError, open_view
from referee.web.archive import Archive
from referee.web.live import LiveHub, chain

LATEST = 20  # finished games listed per tournament
MAX_DEPTH = 3  # how far below a served folder tournaments are looked for


def live_id(number: int) -> str:
    """The live-game id of a tournament's game `number`."""
    return f"g{number}"


def tournament_summaries(archive: Archive, hub: LiveHub) -> list[dict[str, Any]]:
    """Every tournament in or below the served folders, as the dashboard shows it."""
    found = []
    for number, root in enumerate(archive.roots):
        for directory in tournament_directories(root):
            found.append(summarise(archive, hub, number, directory))
    return found


def tournament_directories(root: Path, depth: int = MAX_DEPTH) -> Iterator[Path]:
    """`root` and the folders up to `depth` levels below it that hold a store, by path.

    Hidden folders are skipped, links to folders are not followed (so nothing outside `root` is
    read), and a tournament's own folders are not searched: its games/ may hold thousands of
    records and never a tournament.
    """
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if STORE_NAME in files:
            dirs.clear()
            yield here
        elif len(here.relative_to(root).parts) >= depth:
            dirs.clear()
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))


def summarise(archive: Archive, hub: LiveHub, number: int, directory: Path) -> dict[str, Any]:
    """One tournament's summary; `id` names it on the page (`0`, or `0/lielow` below a root)."""
    where = directory.relative_to(archive.roots[number]).as_posix()
    ident = {"folder": number, "id": str(number) if where == "." else f"{number}/{where}"}
    try:
        view = open_view(directory)
    except StoreError as exc:
        return {**ident, "error": str(exc)}
    try:
        report = build_report(view)
    except Exception as exc:  # a store being created or from another version: say so, go on
        return {**ident, "error": f"cannot read the store: {exc}"}
    finally:
        view.close()

    def game(line: GameLine) -> dict[str, Any]:
        record = _record_id(archive, number, line.record)
        # A process that plays a tournament serves exactly its directory: the hub's live games
        # are that tournament's, never those of one found below a served folder.
        live = hub.get(live_id(line.number)) if where == "." else None
        return {
            **line.model_dump(mode="json", exclude={"record", "detail"}),
            "record_id": record,
            "live": live.id if live is not None and live.result is None else None,
        }

    running = [g for g in report.games if g.state is GameState.RUNNING]
    finished = [g for g in report.games if g.state in (GameState.FINISHED, GameState.VOID)]
    return {
        **ident,
        "name": report.name,
        "game": report.game,
        "counts": {state.value: count for state, count in report.counts.items()},
        # A match its SPRT stopped: its games left are not played, not waiting.
        "not_played": not_played(report),
        "total": len(report.games),
        "standings": [row.model_dump(mode="json") for row in report.standings],
        "rating_method": report.rating_method,
        "rating_anchor": report.rating_anchor,
        "rating_note": rating_note(report),
        # A match's folder: its own figures, in the words `referee match` prints.
        "match": None if report.match is None else report.match.model_dump(mode="json"),
        "running": [game(g) for g in running],
        "latest": [game(g) for g in finished[-LATEST:][::-1]],
        "format": report.format,
        # The stages as the dashboard draws them; which group each game is in is not needed.
        "plan": None
        if report.plan is None
        else report.plan.model_dump(mode="json", exclude={"slots", "new"}),
    }


def _record_id(archive: Archive, number: int, record: str | None) -> str | None:
    if record is None:
        return None
    path = Path(record).resolve()
    if not path.is_relative_to(archive.roots[number]) or not path.is_file():
        return None
    return archive.record_id(number, path)


class TournamentWatch:
    """A running tournament as the hub shows it: each game a live game of the hub, and
    dashboards told when a game starts or ends (`app/observers.py`'s `Dashboard`)."""

    def __init__(self, hub: LiveHub) -> None:
        self.hub = hub

    def game_listener(self, game: ScheduledGame, record: Path) -> Listener:
        title = f"game {game.number}: {game.blue} vs {game.orange}"
        live = self.hub.open_match(title=title, match_id=live_id(game.number), record=record)
        return live.listener

    def on_event(self, event: Event) -> None:
        if isinstance(event, GameStarted | GameFinished | TournamentFinished):
            self.hub.notify("tournament", {"event": event.event})


def watch_tournament(
    hub: LiveHub, play: PlayGame, emit: Callable[[Event], None]
) -> tuple[PlayGame, Callable[[Event], None]]:
    """`play` and `emit` for a `Runner` that also feed the web view of `hub`."""
    watch = TournamentWatch(hub)

    async def play_live(
        loaded: LoadedConfig,
        game: ScheduledGame,
        record: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        heard = chain(listener, watch.game_listener(game, record))
        return await play(loaded, game, record, heard, lag, decided)

    def emit_live(event: Event) -> None:
        emit(event)
        watch.on_event(event)

    return play_live, emit_live
