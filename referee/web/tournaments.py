"""Tournaments for the web view: the dashboard's data from a tournament directory's store, and
the hook that shows a running tournament's games live.

A served folder that holds a tournament store (`referee.tournament.store`) is a tournament: its
standings (with ratings), progress, games in progress and latest results are read through the
store's read-only API and `build_report`, safe while the tournament runs in another process.

`watch_tournament(hub, play, emit)` wraps a runner's `play` and `emit` so that, in the process
that plays the tournament (`referee tournament run --web`), every game is also a live game of the
hub, and dashboards are told when a game starts or ends.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.match import LagMonitor, Listener
from referee.records import GameRecord
from referee.tournament.config import LoadedConfig
from referee.tournament.events import Event, GameFinished, GameStarted, TournamentFinished
from referee.tournament.report import GameLine, build_report
from referee.tournament.runner import PlayGame
from referee.tournament.schedule import ScheduledGame
from referee.tournament.store import STORE_NAME, GameState, StoreError, open_view
from referee.web.archive import Archive
from referee.web.live import LiveHub, chain

LATEST = 20  # finished games listed per tournament


def live_id(number: int) -> str:
    """The live-game id of a tournament's game `number`."""
    return f"g{number}"


def tournament_summaries(archive: Archive, hub: LiveHub) -> list[dict[str, Any]]:
    """Every served folder that is a tournament, as the dashboard shows it."""
    found = []
    for number, root in enumerate(archive.roots):
        if (root / STORE_NAME).is_file():
            found.append(summarise(archive, hub, number, root))
    return found


def summarise(archive: Archive, hub: LiveHub, number: int, root: Path) -> dict[str, Any]:
    try:
        view = open_view(root)
    except StoreError as exc:
        return {"folder": number, "error": str(exc)}
    try:
        report = build_report(view)
    except Exception as exc:  # a store being created or from another version: say so, go on
        return {"folder": number, "error": f"cannot read the store: {exc}"}
    finally:
        view.close()

    def game(line: GameLine) -> dict[str, Any]:
        record = _record_id(archive, number, line.record)
        live = hub.get(live_id(line.number))
        return {
            **line.model_dump(mode="json", exclude={"record", "detail"}),
            "record_id": record,
            "live": live.id if live is not None and live.result is None else None,
        }

    running = [g for g in report.games if g.state is GameState.RUNNING]
    finished = [g for g in report.games if g.state in (GameState.FINISHED, GameState.VOID)]
    return {
        "folder": number,
        "name": report.name,
        "game": report.game,
        "counts": {state.value: count for state, count in report.counts.items()},
        "total": len(report.games),
        "standings": [row.model_dump(mode="json") for row in report.standings],
        "rating_method": report.rating_method,
        "rating_anchor": report.rating_anchor,
        "running": [game(g) for g in running],
        "latest": [game(g) for g in finished[-LATEST:][::-1]],
    }


def _record_id(archive: Archive, number: int, record: str | None) -> str | None:
    if record is None:
        return None
    path = Path(record).resolve()
    if not path.is_relative_to(archive.roots[number]) or not path.is_file():
        return None
    return archive.record_id(number, path)


def watch_tournament(
    hub: LiveHub, play: PlayGame, emit: Callable[[Event], None]
) -> tuple[PlayGame, Callable[[Event], None]]:
    """`play` and `emit` for a `Runner` that also feed the web view of `hub`."""

    async def play_live(
        loaded: LoadedConfig, game: ScheduledGame, record: Path, listener: Listener, lag: LagMonitor
    ) -> GameRecord:
        title = f"game {game.number}: {game.blue} vs {game.orange}"
        live = hub.open_match(title=title, match_id=live_id(game.number))
        return await play(loaded, game, record, chain(listener, live.listener), lag)

    def emit_live(event: Event) -> None:
        emit(event)
        if isinstance(event, GameStarted | GameFinished | TournamentFinished):
            hub.notify("tournament", {"event": event.event})

    return play_live, emit_live
