"""Play or resume one tournament in this process, as a session: `TournamentSession.open`
opens its store (`session_open.py`; `tournament/resume.py` checks that it holds this config's
schedule) and returns the session, with what to say (the isolation, the games already done),
or the refusal; `run(observers)` starts each waiting bot once (`preflight.py`) and plays its
games, here or on a cluster, with the observers the command passes in (`observers.py`: JSON
events, the web dashboard; a match's tally; the terminal's views); `close` (or leaving its
`with`) lets the store go. `exit_code` turns how it finished into the command's exit code.

Nothing is printed here: what the run says before its games (the start checks, the cluster's
lines, why it stopped) is told to the observers, and the command's views say the rest.
`referee tournament run`, `referee match` and `referee demo` play tournaments through here,
with the terminal's observers (`views/session_lines.py`) among theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, AsyncExitStack, ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType

import trio

from referee import EXIT_INTERRUPTED, EXIT_OK, EXIT_VOID
from referee.app.observers import Observer
from referee.app.preflight import RemoteCheck, preflight
from referee.app.session_open import OpenedSession, Refused, open_session
from referee.bot import unwrap_single
from referee.isolation import Isolation
from referee.match.lag import LagMonitor
from referee.match.recorder import Listener
from referee.nofollow import PlantedLink
from referee.records import GameRecord, Header, Ply, Result
from referee.tournament.config import LoadedConfig
from referee.tournament.events import Event, TournamentFinished
from referee.tournament.runner import PlayGame, Runner, RunState, play_match
from referee.tournament.schedule import ScheduledGame


@dataclass(frozen=True)
class SessionSettings:
    """How a session plays, beside its observers.

    A match (`referee match`) passes the runner's `stop_when` (and `could_stop`: which games'
    results could make it stop); its tally, an observer given first, has seen each event
    before the runner asks. `allow_broken` scores the games of a bot that cannot start as
    losses instead of refusing the run (`refuse_broken`: the refusal in the command's own
    words, given the bots' names). With `cluster` (or the config's `[cluster] address`) the
    games are played on a Dask cluster (docs/cluster.md): each worker chooses its bots'
    isolation and starts them.
    """

    concurrency: int | None = None
    allow_broken: bool = False
    cluster: str | None = None
    stop_when: Callable[[RunState], bool] | None = None
    could_stop: Callable[[int], bool] | None = None
    refuse_broken: Callable[[Sequence[str]], str] | None = None
    resume_hint: str = "run the same command to resume"


@dataclass(frozen=True)
class _Games:
    """How the games are played: here or on a cluster, how many at once, and how the bots of a
    cluster are checked."""

    play: PlayGame
    limit: int | None
    remote: RemoteCheck | None = None


class TournamentSession:
    """One tournament played or resumed: `open`, then `run(observers)` once, then `close`
    (or `with session:`)."""

    def __init__(
        self, loaded: LoadedConfig, opened: OpenedSession, settings: SessionSettings
    ) -> None:
        self.loaded = loaded
        self.opened = opened
        self.settings = settings
        # What the command says first: the isolation level the bots will run under (None: on
        # a cluster, whose workers choose), then the games already done, of those scheduled.
        self.isolation: Isolation | None = opened.isolation
        self.resumed: tuple[int, int] = opened.done()
        self.final: TournamentFinished | None = None

    @classmethod
    def open(
        cls, loaded: LoadedConfig, settings: SessionSettings | None = None
    ) -> TournamentSession | Refused:
        """The session with its store open, or why it cannot be: a level of isolation this
        machine cannot give, a store that cannot be used or is reached through a planted link,
        a bot whose program or folder its user cannot reach here (with why and what would fix
        it)."""
        settings = settings or SessionSettings()
        opened = open_session(loaded, settings.concurrency, settings.cluster)
        if isinstance(opened, Refused):
            return opened
        return cls(loaded, opened, settings)

    def run(self, observers: Sequence[Observer] = ()) -> TournamentFinished | None:
        """Start each bot with games still to play once, then play the games with `observers`
        watching; the final event, or None when the run stopped before its first game (a bot
        that cannot start, in the observers' `start_checks`; a cluster that cannot be
        reached, or a link planted on the way to a record, in their `said`). Ctrl-C ends it
        with the games finished so far kept: the final event says it was interrupted."""
        try:
            self.final = trio.run(self._main, observers)
        except BaseExceptionGroup as group:  # a link planted on the way to a record, mid-run
            if not isinstance(planted := unwrap_single(group), PlantedLink):
                raise
            _say(observers, f"referee: cannot write the record: {planted}")
        return self.final

    def close(self) -> None:
        """Let the store go; a first run that played nothing leaves nothing behind."""
        if self.final is None:
            self.opened.let_go()
        else:
            self.opened.close()

    def __enter__(self) -> TournamentSession:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    async def _main(self, observers: Sequence[Observer]) -> TournamentFinished | None:
        async with AsyncExitStack() as stack, trio.open_nursery() as nursery:
            try:
                # The observers first: a dashboard's address was the command's first line.
                for observer in observers:
                    await observer.open(nursery)
                return await self._play(stack, nursery, observers)
            finally:
                nursery.cancel_scope.cancel()  # the observers' tasks end with the games

    async def _play(
        self, stack: AsyncExitStack, nursery: trio.Nursery, observers: Sequence[Observer]
    ) -> TournamentFinished | None:
        games = await self._games(stack, observers)
        if games is None or not await self._preflight(games, observers):
            return None
        runner = Runner(
            self.loaded,
            self.opened.store,
            concurrency=games.limit,
            emit=partial(_tell, observers),
            play=_watched(games.play, observers),
            stop_when=self.settings.stop_when,
            could_stop=self.settings.could_stop,
        )
        for observer in observers:
            nursery.start_soon(observer.run, runner.state)
        return await runner.run()

    async def _games(self, stack: AsyncExitStack, observers: Sequence[Observer]) -> _Games | None:
        """Where the games are played; None (said to `observers`) if the cluster cannot be
        used."""
        concurrency = self.settings.concurrency
        if self.opened.host is not None:
            return _Games(
                partial(play_match, host=self.opened.host, roster=self.opened.roster), concurrency
            )
        address = self.opened.address
        assert address is not None  # no host: the games are played on a cluster
        # Deferred: the cluster package (asyncio, bot packing) loads only for runs on one.
        from referee.cluster.start import enter_cluster

        session = await enter_cluster(
            stack,
            self.loaded,
            self.opened.roster,
            address,
            partial(_say, observers),
            partial(_connecting, observers),
        )
        if session is None:
            return None
        limit = concurrency or self.loaded.config.concurrency or max(1, session.slots())
        return _Games(
            partial(session.play, roster=self.opened.roster),
            limit,
            partial(session.check_bots, self.loaded),
        )

    async def _preflight(self, games: _Games, observers: Sequence[Observer]) -> bool:
        """Start each waiting bot once; whether the run may go on (the checks told to
        `observers`)."""
        found = await preflight(
            self.loaded,
            self.opened.roster,
            self.opened.store,
            self.opened.isolation,
            games.limit,
            allow_broken=self.settings.allow_broken,
            remote=games.remote,
            refuse_broken=self.settings.refuse_broken,
            checking=partial(_starting, observers),
        )
        for observer in observers:
            observer.start_checks(found.checks, found.refusal)
        return found.refusal is None


def play_tournament(
    loaded: LoadedConfig,
    observers: Sequence[Observer] = (),
    settings: SessionSettings | None = None,
) -> TournamentFinished | None:
    """A session opened, run with `observers` and closed: the final event, or None if it could
    not start. The observers are told how it opened (or why it did not) and an interruption."""
    settings = settings or SessionSettings()
    session = TournamentSession.open(loaded, settings)
    if isinstance(session, Refused):
        for observer in observers:
            observer.refused(session.message, session.highlight)
        return None
    for observer in observers:
        observer.opened(session.isolation, *session.resumed)
    with session:
        final = session.run(observers)
    if final is not None and final.interrupted:
        for observer in observers:
            observer.interrupted(final.finished, settings.resume_hint)
    return final


def _say(observers: Sequence[Observer], line: str) -> None:
    for observer in observers:
        observer.said(line)


def _starting(observers: Sequence[Observer], count: int) -> AbstractContextManager[None]:
    return _all_held([observer.starting_bots(count) for observer in observers])


def _connecting(observers: Sequence[Observer], address: str) -> AbstractContextManager[None]:
    return _all_held([observer.connecting(address) for observer in observers])


@contextmanager
def _all_held(contexts: Sequence[AbstractContextManager[object]]) -> Iterator[None]:
    with ExitStack() as stack:
        for context in contexts:
            stack.enter_context(context)
        yield


def _tell(observers: Sequence[Observer], event: Event) -> None:
    for observer in observers:
        observer.on_event(event)


def _watched(play: PlayGame, observers: Sequence[Observer]) -> PlayGame:
    """`play`, with each game's lines also heard by the observers that listen to games."""

    async def play_watched(
        loaded: LoadedConfig,
        game: ScheduledGame,
        record: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        heard = [listener]
        for observer in observers:
            if (extra := observer.game_listener(game, record)) is not None:
                heard.append(extra)
        return await play(loaded, game, record, _chain(heard), lag, decided)

    return play_watched


def _chain(listeners: list[Listener]) -> Listener:
    if len(listeners) == 1:
        return listeners[0]

    def every(line: Header | Ply | Result) -> None:
        for listener in listeners:
            listener(line)

    return every


def exit_code(final: TournamentFinished) -> int:
    if final.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if final.complete and final.void == 0 else EXIT_VOID
