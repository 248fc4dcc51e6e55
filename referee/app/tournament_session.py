"""Play or resume one tournament in this process: open its store (`tournament/resume.py`
checks that it holds this config's schedule), run it with the live display (or JSON events on
stdout), the live web dashboard or a cluster when asked, and turn how it finished into the
command's exit code.

`referee tournament run`, `referee match` and `referee demo` play tournaments through here.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Protocol

import trio
from rich.console import Console

from referee import EXIT_INTERRUPTED, EXIT_OK, EXIT_VOID
from referee.bot import unwrap_single
from referee.course.collect import course_places
from referee.isolation import Isolation, IsolationUnavailable, check_bot_users, describe
from referee.match.host import Host
from referee.nofollow import PlantedLink
from referee.players import unreachable_player
from referee.printable import printable
from referee.tournament.bot_folders import layout_refusal
from referee.tournament.config import LoadedConfig
from referee.tournament.events import Event, TournamentFinished
from referee.tournament.opening_plan import OpeningPlan
from referee.tournament.preflight import StartCheck, check_bots
from referee.tournament.resume import open_tournament, store_problem
from referee.tournament.roster import Roster
from referee.tournament.runner import PlayGame, Runner, RunState, play_match, tournament_host
from referee.tournament.store import STORE_NAME, GameRow, GameState, Store, StoreError
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
    to play is then started once (`preflight.py`); a bot that cannot start stops the run here
    too, named with the reason, unless `allow_broken` says to score its games as losses
    (`refuse_broken`: the refusal in the command's own words, given the bots' names).

    With `cluster` (or the config's `[cluster] address`) the games are played on a Dask
    cluster (docs/cluster.md): each worker chooses its bots' isolation and starts them.
    """
    address = loaded.config.cluster_address(cluster)
    roster = Roster.of(loaded)  # every player with its content hash, once for the whole run
    if refusal := layout_refusal(roster.specs(game_seed=loaded.config.seed)):
        err.print(f"referee: {loaded.path}: {refusal}", markup=False, highlight=False)
        return None
    host: Host | None = None
    if address is None:
        try:
            # Chosen once, here, for every game of the run; no bot of the tournament may see
            # its folder (the store, the records), its config, a course's own folders, any
            # other player's files, nor other runs' output.
            course = course_places(loaded.path) if loaded.collected else []
            host = tournament_host(loaded, roster, *course)
            # Two bots a game, each with a user of its own, as many games at once as it plays.
            games_at_once = concurrency or loaded.config.effective_concurrency()
            check_bot_users(host.isolation, 2 * games_at_once)
        except IsolationUnavailable as exc:
            err.print(f"referee: {loaded.path}: [match.isolation]: {exc}", markup=False)
            return None
    made_directory = not loaded.directory.exists()
    new_store = not (loaded.directory / STORE_NAME).exists()
    try:
        store, _ = open_tournament(loaded)
    except StoreError as exc:
        err.print(f"referee: {store_problem(exc, loaded)}", markup=False, highlight=False)
        return None
    isolation = host.isolation if host is not None else None
    if isolation is not None:
        waiting = roster.specs(_waiting(loaded, store.games()))
        if refused := unreachable_player(waiting, isolation):  # the path and the fix
            _let_go(store, new_store, made_directory)
            err.print(f"referee: {refused}", markup=False, highlight=False)
            return None
        err.print(describe(isolation), markup=False, highlight=False)
    printing: Callable[[Event], None] = print_event if events else (lambda event: None)
    emit = printing if watch is None else _both(watch, printing)
    done = sum(g.state is GameState.FINISHED for g in store.games())
    if done:
        total = len(store.games())
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
        if not await _bots_start(
            loaded, roster, store, isolation, err, limit, allow_broken, remote, refuse_broken
        ):
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
            _let_go(store, new_store, made_directory)
        else:
            store.close()
    if final is not None and final.interrupted:
        err.print(
            f"interrupted after {final.finished} finished games: {resume_hint}",
            markup=False,
            highlight=False,
        )
    return final


def _let_go(store: Store, new_store: bool, made_directory: bool) -> None:
    """Close the store of a run refused before its first game; one this run made is removed,
    with the directory it made: a refused first run leaves nothing behind."""
    if new_store:
        store.discard(made_directory)
    else:
        store.close()


def _waiting(loaded: LoadedConfig, games: Sequence[GameRow]) -> list[str]:
    """The players (config order) with games still to play."""
    unfinished = [g for g in games if g.state is not GameState.FINISHED]
    waiting = {g.blue for g in unfinished} | {g.orange for g in unfinished}
    return [name for name in loaded.config.player_names if name in waiting]


# The pre-flight check run elsewhere (a cluster's worker): (names, concurrency, the next
# game's opening) -> checks.
RemoteCheck = Callable[[list[str], int, Sequence[str]], Awaitable[list[StartCheck]]]


async def _bots_start(
    loaded: LoadedConfig,
    roster: Roster,
    store: Store,
    isolation: Isolation | None,
    err: Console,
    concurrency: int | None,
    allow_broken: bool,
    remote: RemoteCheck | None = None,
    refuse_broken: Callable[[Sequence[str]], str] | None = None,
) -> bool:
    """Start every bot that still has games once (here, or with `remote`); False if one cannot
    and that stops the run."""
    games = store.games()
    unfinished = [g for g in games if g.state is not GameState.FINISHED]
    names = _waiting(loaded, games)
    if not names:
        return True
    players = roster.specs(names)
    # The opening of the next game, if the games start from openings: a bot that declared
    # `position` is checked with the lines a game will send it.
    plan = OpeningPlan(loaded)
    opening = plan.opening(unfinished[0].number, games) if plan.enabled else ()
    limit = concurrency or loaded.config.effective_concurrency()
    with err.status(f"starting each of {len(players)} bots once..."):
        if remote is not None:
            checks = await remote(names, limit, opening)
        else:
            assert isolation is not None  # chosen when the games are played here
            settings = loaded.config.match_settings()
            checks = await check_bots(players, settings, isolation, limit, opening)
    broken = [c for c in checks if c.broken]
    unreachable = [c for c in checks if c.unreachable]
    for check in checks:
        if check.warning is not None:  # it names the bot
            err.print(printable(check.warning), markup=False, highlight=False)
        if check.problem is not None:
            what = "cannot start"
            if check.machine_failed:
                what = "cannot run here" if check.unreachable else "the machine failed"
            # The problem may quote the bot (its last words on stderr): shown, never obeyed.
            shown = f"{printable(check.name)}: {what}: {printable(check.problem)}"
            err.print(shown, markup=False, highlight=False)
    if unreachable:  # the machine's set-up, not the bots': no game is played under it
        names_text = ", ".join(printable(c.name) for c in unreachable)
        err.print(
            f"referee: not starting the tournament: this machine cannot run {names_text} as a "
            "user of its own (above: the path and the fix).",
            markup=False,
            highlight=False,
        )
        return False
    if broken and not allow_broken:
        names_text = ", ".join(printable(c.name) for c in broken)
        refusal = (
            f"not starting the tournament: {names_text} cannot start. {_fix(loaded)}, or add "
            "--allow-broken to score their games as losses."
        )
        if refuse_broken is not None:
            refusal = refuse_broken([c.name for c in broken])
        err.print(f"referee: {refusal}", markup=False, highlight=False)
        return False
    return True


def _fix(loaded: LoadedConfig) -> str:
    """How a bot that cannot start is fixed: in the config, or (a config that `referee course
    collect` wrote from the submissions) by a new submission, collected again."""
    if loaded.collected:
        return (
            f"{loaded.path} is written by `referee course collect` from the submissions: fix the "
            "bot in a new submission, run `referee course collect` again, then run again"
        )
    return f"Fix the command in {loaded.path} and run again"


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
