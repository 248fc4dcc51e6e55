"""Play or resume one tournament in this process: open its store (`session_open.py`;
`tournament/resume.py` checks that it holds this config's schedule), start each waiting bot
once (`preflight.py`; the checks shown by `views/start_checks.py`), run it with the live
display (or JSON events on stdout), the live web dashboard or a cluster when asked, and turn
how it finished into the command's exit code.

`referee tournament run`, `referee match` and `referee demo` play tournaments through here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Protocol

import trio
from rich.console import Console

from referee import EXIT_INTERRUPTED, EXIT_OK, EXIT_VOID
from referee.app.preflight import RemoteCheck, preflight
from referee.app.session_open import Refused, open_session
from referee.bot import unwrap_single
from referee.isolation import describe
from referee.nofollow import PlantedLink
from referee.tournament.config import LoadedConfig
from referee.tournament.events import Event, TournamentFinished
from referee.tournament.runner import PlayGame, Runner, RunState, play_match
from referee.views.start_checks import show_start_checks, starting_bots
from referee.views.tournament_live import LiveDisplay

if TYPE_CHECKING:
    from referee.web.live import LiveHub


class Display(Protocol):
    """A live view of a run: redraws from the run's state until cancelled."""

    async def run(self) -> None: ...


def _both(first: Callable[[Event], None], then: Callable[[Event], None]) -> Callable[[Event], None]:
    def emit(event: Event) -> None:
        first(event)
        then(event)

    return emit


@dataclass(frozen=True)
class WebView:
    """Where `tournament run --web` serves the live dashboard."""

    host: str
    port: int


def play_tournament(
    loaded: LoadedConfig,
    err: Console,
    *,
    concurrency: int | None = None,
    quiet: bool = False,
    events: bool = False,
    web: WebView | None = None,
    allow_broken: bool = False,
    stop_when: Callable[[RunState], bool] | None = None,
    could_stop: Callable[[int], bool] | None = None,
    watch: Callable[[Event], None] | None = None,
    display: Callable[[Console, RunState], Display] | None = None,
    resume_hint: str = "run the same command to resume",
    cluster: str | None = None,
    refuse_broken: Callable[[Sequence[str]], str] | None = None,
) -> TournamentFinished | None:
    """Play or resume one tournament with the live display (and, with `web`, the live web
    dashboard for as long as it runs); None if it could not start.

    A match (`referee match`) passes the runner's `stop_when` (and `could_stop`: which games'
    results could make it stop), `watch` to see every event before the runner asks
    `stop_when`, and its own `display` in place of the standings.

    The first line it prints is the isolation level the bots will run under, once nothing
    stops the run before its bots start: a level this machine cannot give, a store that cannot
    be used or is reached through a planted link, a bot whose program or folder its user cannot
    reach here, each said (with why and what would fix it) instead. Every bot with games still
    to play is then started once (`app/preflight.py`); a bot that cannot start stops the run here
    too, named with the reason, unless `allow_broken` says to score its games as losses
    (`refuse_broken`: the refusal in the command's own words, given the bots' names).

    With `cluster` (or the config's `[cluster] address`) the games are played on a Dask
    cluster (docs/cluster.md): each worker chooses its bots' isolation and starts them.
    """
    opened = open_session(loaded, concurrency, cluster)
    if isinstance(opened, Refused):
        err.print(opened.message, markup=False, highlight=opened.highlight)
        return None
    store, host, address, isolation = opened.store, opened.host, opened.address, opened.isolation
    roster = opened.roster
    if isolation is not None:
        err.print(describe(isolation), markup=False, highlight=False)
    printing: Callable[[Event], None] = print_event if events else (lambda event: None)
    emit = printing if watch is None else _both(watch, printing)
    done, total = opened.done()
    if done:
        err.print(f"resuming: {done}/{total} games done", markup=False, highlight=False)

    async def main() -> TournamentFinished | None:
        async with AsyncExitStack() as stack:
            return await play_with(stack)

    async def play_with(stack: AsyncExitStack) -> TournamentFinished | None:
        async with trio.open_nursery() as nursery:
            # The dashboard first: its address was the command's first line.
            hub = None if web is None else await _serve_dashboard(nursery, loaded, web)
            final = await play_in(stack, nursery, hub)
            nursery.cancel_scope.cancel()
        return final

    async def play_in(
        stack: AsyncExitStack, nursery: trio.Nursery, hub: LiveHub | None
    ) -> TournamentFinished | None:
        limit = concurrency
        remote: RemoteCheck | None = None
        play: PlayGame
        if host is not None:
            play = partial(play_match, host=host, roster=roster)
        else:
            assert address is not None  # no host: the games are played on a cluster
            # Deferred: the cluster package (asyncio, bot packing) loads only for runs on one.
            from referee.cluster.start import enter_cluster

            session = await enter_cluster(stack, loaded, roster, address, err)
            if session is None:
                return None
            play = partial(session.play, roster=roster)
            limit = concurrency or loaded.config.concurrency or max(1, session.slots())
            remote = partial(session.check_bots, loaded)
        found = await preflight(
            loaded,
            roster,
            store,
            isolation,
            limit,
            allow_broken=allow_broken,
            remote=remote,
            refuse_broken=refuse_broken,
            checking=partial(starting_bots, err),
        )
        show_start_checks(err, found.checks, found.refusal)
        if found.refusal is not None:
            return None
        on_event = emit
        if hub is not None:
            # Deferred: the dashboard's parts load only for runs that serve it.
            from referee.web.tournaments import watch_tournament

            play, on_event = watch_tournament(hub, play, emit)
        runner = Runner(
            loaded,
            store,
            concurrency=limit,
            emit=on_event,
            play=play,
            stop_when=stop_when,
            could_stop=could_stop,
        )
        if not quiet:
            live: Display = LiveDisplay(err, runner.state, loaded.config.name)
            if display is not None:
                live = display(err, runner.state)
            nursery.start_soon(live.run)
        return await runner.run()

    final = None
    try:
        final = trio.run(main)
    except BaseExceptionGroup as group:  # a link planted on the way to a record, mid-run
        if not isinstance(planted := unwrap_single(group), PlantedLink):
            raise
        err.print(f"referee: cannot write the record: {planted}", markup=False, highlight=False)
    finally:
        if final is None:
            opened.let_go()
        else:
            opened.close()
    if final is not None and final.interrupted:
        err.print(
            f"interrupted after {final.finished} finished games: {resume_hint}",
            markup=False,
            highlight=False,
        )
    return final


async def _serve_dashboard(nursery: trio.Nursery, loaded: LoadedConfig, web: WebView) -> LiveHub:
    """Start the web view of this tournament's folder; its games are shown live (through the
    hub) once they are played."""
    # Deferred: the web stack (starlette, hypercorn) loads only for runs that serve it.
    from referee.web.server import start_web_server

    server = await start_web_server(nursery, [loaded.directory], web.port, host=web.host)
    return server.hub


def print_event(event: Event) -> None:
    sys.stdout.write(event.model_dump_json() + "\n")
    sys.stdout.flush()


def exit_code(final: TournamentFinished) -> int:
    if final.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if final.complete and final.void == 0 else EXIT_VOID
