"""Play a tournament's schedule: up to N games at once in one trio process, committed as they end.

Opening a tournament checks the store against the config: a new directory gets the schedule, an
existing one must have been made from the same schedule (same game, options, players, format,
games per pairing and seed) or the run is refused. Games left `running` by a referee that died go
back to `pending` and are replayed from the start; finished games are never played again.

Workers take the first pending game (with `one_game_per_player`, the first whose players are both
free), play it, and commit its result. A void result (referee fault, infrastructure failure,
referee overload, cut short) never counts for anyone: the game goes to the back of the queue and
is replayed, up to `max_replays` times; a game voided by a bug of the referee's own
(`referee-error`, its traceback in the tournament's `referee.log`) is replayed once at most, so
that a bug shows instead of passing for bad luck. Ctrl-C (SIGINT) or SIGTERM stops the run
cleanly: games in progress are voided as interrupted and go back to `pending`.

A staged format (group stages, knockout, Swiss: `formats/`) adds its games as it goes: when no
game is left to play and none is being played, the runner asks the format for its plan, stores
the next stage's games in one transaction and plays on; a plan with nothing to add ends the run.
"""

from __future__ import annotations

import signal
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import trio

from protocols.base import Reason, Side
from referee.match import driver
from referee.match.errors import report_referee_error
from referee.match.host import Host, choose_host, run_log
from referee.match.lag import LagMonitor
from referee.match.order import GameOrder
from referee.match.recorder import Listener
from referee.nofollow import PlantedLink
from referee.records import GameRecord, Header, Ply, Result, utc_now
from referee.tournament.bot_folders import contain_run
from referee.tournament.config import LoadedConfig
from referee.tournament.events import (
    Event,
    GameFinished,
    GameStarted,
    StandingLine,
    TournamentFinished,
    TournamentStarted,
)
from referee.tournament.formats import Plan, is_staged, new_games, plan_for
from referee.tournament.opening_plan import OpeningPlan
from referee.tournament.roster import Roster
from referee.tournament.schedule import ScheduledGame
from referee.tournament.standings import (
    GameResult,
    Standing,
    compute_standings,
    in_final_order,
)
from referee.tournament.store import GameRow, GameState, Store

T = TypeVar("T")
MAX_ERROR_REPLAYS = 1  # replays of a game voided by a referee error
# How one game is played: (config, game, record path, listener, lag monitor, decided) -> its
# record, where `decided()` is called once the game's result is known, before its bots have
# gone (the runner then starts the next game while this one closes).
PlayGame = Callable[
    [LoadedConfig, ScheduledGame, Path, Listener, LagMonitor, Callable[[], None]],
    Awaitable[GameRecord],
]


def tournament_host(loaded: LoadedConfig, roster: Roster, *hidden: Path) -> Host:
    """Where a tournament's games are played here: its `[match.isolation]` level chosen on
    this machine; hidden from every bot, its folder (the store, the records), its config,
    `hidden` (a course's own folders), every other player's files (the run's `roster`) and
    other runs' stores and records (`contain_run`); its log in its folder. Chosen once per
    run; raises `IsolationUnavailable`."""
    settings = loaded.config.match_settings()
    host = choose_host(
        settings.isolation,
        loaded.directory,
        loaded.path,
        *hidden,
        log=run_log(loaded.directory),
    )
    players = roster.specs(game_seed=loaded.config.seed)
    return replace(host, isolation=contain_run(host.isolation, players))


def game_order(loaded: LoadedConfig, roster: Roster, game: ScheduledGame) -> GameOrder:
    """One scheduled game as an order: its colours, seed and opening the schedule's, its
    players the run's `roster`'s."""
    config = loaded.config
    return GameOrder(
        game=config.game,
        options=config.game_options,
        players=(roster.spec(game.blue, game.seed), roster.spec(game.orange, game.seed)),
        settings=config.match_settings(),
        seed=game.seed,
        opening=tuple(game.opening),
    )


async def play_match(
    loaded: LoadedConfig,
    game: ScheduledGame,
    record: Path,
    listener: Listener,
    lag: LagMonitor,
    decided: Callable[[], None] = lambda: None,
    *,
    host: Host,
    roster: Roster,
) -> GameRecord:
    """Play one scheduled game here, on the run's `host`, between players of its `roster`."""
    order = game_order(loaded, roster, game)
    return await driver.play(
        order, host, record_path=record, listener=listener, lag_monitor=lag, on_decided=decided
    )


def played_here(loaded: LoadedConfig) -> PlayGame:
    """How a run plays its games here: the run's players (`Roster`) and host made now."""
    roster = Roster.of(loaded)
    return partial(play_match, host=tournament_host(loaded, roster), roster=roster)


@dataclass
class RunningGame:
    game: ScheduledGame
    attempt: int
    record: str
    started: float  # trio clock
    plies: int = 0


@dataclass
class RunState:
    """What a run knows at any moment; the live display reads it."""

    players: list[str]
    total: int
    results: list[GameResult] = field(default_factory=list)
    running: dict[int, RunningGame] = field(default_factory=dict)
    recent: deque[GameFinished] = field(default_factory=lambda: deque(maxlen=8))
    finished_before: int = 0  # finished in earlier runs
    void: int = 0  # games void for good (replays used up)
    interrupted: bool = False
    plan: Plan | None = None  # a staged format's stages so far (None: one stage, made up front)

    @property
    def finished(self) -> int:
        return len(self.results)

    def standings(self) -> list[Standing]:
        """By points; once a staged format has its final order, in that order."""
        standings = compute_standings(self.players, self.results)
        if self.plan is not None and self.plan.finished:
            return in_final_order(standings, self.plan.placings)
        return standings


def game_result(row: GameRow) -> GameResult:
    assert row.reason is not None
    return GameResult(row.blue, row.orange, row.winner, row.reason)


class Runner:
    """Plays the pending games of one tournament; `await runner.run()`."""

    def __init__(
        self,
        loaded: LoadedConfig,
        store: Store,
        *,
        concurrency: int | None = None,
        emit: Callable[[Event], None] = lambda event: None,
        play: PlayGame | None = None,
        stop_when: Callable[[RunState], bool] | None = None,
        could_stop: Callable[[int], bool] | None = None,
    ) -> None:
        self.loaded = loaded
        self.store = store
        self.openings = OpeningPlan(loaded)  # which opening each game starts from, if any
        self.concurrency = concurrency or loaded.config.effective_concurrency()
        self.emit = emit
        # How each game is played (None: here, on the host chosen now, once for the run,
        # between its players as they are now).
        self.play = play or played_here(loaded)
        self.lag = LagMonitor()
        self.state = RunState(players=loaded.config.player_names, total=0)
        self._queue: list[ScheduledGame] = []
        self._voids: dict[int, int] = {}
        self._busy: set[str] = set()
        self._changed = trio.Event()
        self._db_limiter = trio.CapacityLimiter(1)
        # Asked after each finished game: once it says so, no further game starts (the games
        # being played still finish and count). A match stopped by a statistical test uses it.
        # `could_stop(number)`: whether that game's result, whatever it is, could make it say
        # so (None: any could); a worker whose game could starts its next one only once that
        # game is counted, so that no game starts after the run was told to stop.
        self.stop_when = stop_when
        self.could_stop = could_stop
        self.stopped = False
        self._staged = is_staged(loaded.config.format)
        self._advancing = trio.Lock()
        self._plans = self._shown = 0  # plans asked for after games, and the latest one shown

    def _prepare(self) -> None:
        self.store.recover()
        rows = self.store.games()
        self.state.total = len(rows)
        for row in rows:
            self._voids[row.number] = row.voids
            if row.state is GameState.FINISHED:
                self.state.results.append(game_result(row))
            elif row.state is GameState.PENDING or row.voids <= self._replays(row.reason):
                self._queue.append(_scheduled(row))
            else:
                self.state.void += 1
        self.state.finished_before = self.state.finished
        # Replays of void games come after the games not yet played.
        self._queue.sort(key=lambda g: (self._voids[g.number] > 0, g.number))
        if self._staged:
            self.state.plan = plan_for(self.loaded.config, rows)

    async def run(self, *, handle_signals: bool = True) -> TournamentFinished:
        """Play every pending game; returns the final event (also emitted)."""
        self._prepare()
        config = self.loaded.config
        self.emit(
            TournamentStarted(
                name=config.name,
                game=config.game,
                directory=str(self.loaded.directory),
                games=self.state.total,
                finished=self.state.finished,
                concurrency=self.concurrency,
            )
        )
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.lag.run)
            if handle_signals:
                nursery.start_soon(self._watch_signals, nursery.cancel_scope)
            async with trio.open_nursery() as workers:
                for _ in range(self.concurrency):
                    workers.start_soon(self._worker)
            nursery.cancel_scope.cancel()
        final = self._final_event()
        self.emit(final)
        return final

    async def _watch_signals(self, scope: trio.CancelScope) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                self.state.interrupted = True
                scope.cancel()
                return

    def _final_event(self) -> TournamentFinished:
        pending = self.state.total - self.state.finished - self.state.void
        plan = self.state.plan
        return TournamentFinished(
            complete=pending == 0 and (plan is None or plan.finished),
            interrupted=self.state.interrupted,
            finished=self.state.finished,
            void=self.state.void,
            pending=pending,
            standings=[StandingLine.of(s) for s in self.state.standings()],
        )

    # -- the queue ----------------------------------------------------------------------------

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def _next_game(self) -> ScheduledGame | None:
        exclusive = self.loaded.config.one_game_per_player
        while True:
            if self.stopped:
                return None
            for i, game in enumerate(self._queue):
                if not exclusive or self._busy.isdisjoint(game.players):
                    del self._queue[i]
                    self._busy.update(game.players)
                    return game
            if not self._queue and not self.state.running:
                if await self._advance():
                    continue
                return None
            await self._changed.wait()

    async def _advance(self) -> bool:
        """A staged format's next stage, stored and queued; False when there is none."""
        if not self._staged or self.stopped:
            return False
        async with self._advancing:
            if self._queue or self.state.running:
                return True  # another worker added the stage while this one waited
            added, plan = await self._db(self._add_stage)
            self._plans += 1
            self._shown = self._plans
            self.state.plan = plan
            for game in added:
                self._voids[game.number] = 0
            self._queue += added
            self.state.total += len(added)
            self._wake()
            return bool(added)

    def _add_stage(self) -> tuple[list[ScheduledGame], Plan]:
        config = self.loaded.config
        rows = self.store.games()
        plan = plan_for(config, rows)
        added = new_games(plan, len(rows) + 1, config.seed)
        if not added:
            return [], plan
        self.store.add_stage([(g.number, g.round, g.blue, g.orange, g.seed) for g in added])
        return added, plan_for(config, self.store.games())

    async def _replan(self) -> None:
        """The plan after a game, for the live view: worked out beside the store's commits, not
        in their way, and never shown after a newer one."""
        self._plans += 1
        asked = self._plans
        rows = await self._db(self.store.games)
        plan = await trio.to_thread.run_sync(plan_for, self.loaded.config, rows)
        if asked > self._shown:
            self._shown = asked
            self.state.plan = plan

    async def _worker(self) -> None:
        # A worker takes its next game as soon as its game is decided: closing the bots,
        # writing the record and committing the result go on beside the next game's start.
        # At most one of its games is closing at a time, so slow exits cannot pile up. When
        # its game's result could stop the run, it waits until that game is counted and the
        # stop rule asked: a game started before could be one the rule would not have started.
        closed: trio.Event | None = None  # of the game before the one being played
        async with trio.open_nursery() as closing:
            while (game := await self._next_game()) is not None:
                decided, done = trio.Event(), trio.Event()
                closing.start_soon(self._play_and_free, game, decided, done)
                await decided.wait()
                if self._may_stop_after(game.number):
                    await done.wait()
                if closed is not None:
                    await closed.wait()
                closed = done

    def _may_stop_after(self, number: int) -> bool:
        """Whether game `number`'s result could make the stop rule stop the run."""
        if self.stop_when is None:
            return False
        return self.could_stop is None or self.could_stop(number)

    async def _play_and_free(
        self, game: ScheduledGame, decided: trio.Event, done: trio.Event
    ) -> None:
        try:
            await self._play_one(game, decided.set)
        finally:
            decided.set()
            done.set()
            self._busy.difference_update(game.players)
            self._wake()

    # -- one game -----------------------------------------------------------------------------

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        # SQLite commits wait for the disk: keep them off the event loop, one at a time.
        return await trio.to_thread.run_sync(lambda: fn(*args), limiter=self._db_limiter)

    async def _play_one(self, game: ScheduledGame, decided: Callable[[], None]) -> None:
        attempt, record = await self._db(self.store.start, game.number)
        running = RunningGame(game, attempt, record, trio.current_time())
        self.state.running[game.number] = running
        self.emit(GameStarted(number=game.number, attempt=attempt, blue=game.blue,
                              orange=game.orange, record=record))  # fmt: skip
        committed = False
        try:
            result = await self._attempt(game, running, decided)
            state = await self._db(self.store.finish, game.number, attempt, result)
            committed = True
            self._after(game, running, result, state)
        finally:
            # At once: a void game's replay, queued by `_after`, may start as soon as this awaits.
            del self.state.running[game.number]
            if not committed:
                with trio.CancelScope(shield=True):
                    await self._db(self.store.release, game.number, attempt)
        if self._staged:  # the live view's tables and bracket
            await self._replan()

    async def _attempt(
        self, game: ScheduledGame, running: RunningGame, decided: Callable[[], None]
    ) -> Result:
        def listener(line: Header | Ply | Result) -> None:
            if isinstance(line, Ply):
                running.plies += 1

        path = self.loaded.directory / running.record
        if self.openings.enabled:
            games = await self._db(self.store.games)
            game = replace(game, opening=self.openings.opening(game.number, games))
        try:
            record = await self.play(self.loaded, game, path, listener, self.lag, decided)
        except PlantedLink:
            # The way to its record holds a link someone planted since the run started (the
            # command refuses one planted before): nothing is written, and the run stops
            # rather than void every game for it.
            raise
        except Exception as exc:  # a bug of ours outside the match: void, loudly
            where = f"game {game.number} of {self.loaded.config.name}"
            return Result(
                winner=None,
                reason=Reason.REFEREE_ERROR,
                detail=report_referee_error(exc, where, run_log(self.loaded.directory)),
                plies=running.plies,
                void=True,
                finished_at=utc_now(),
            )
        assert record.result is not None
        return record.result

    def _replays(self, reason: Reason | None) -> int:
        """How many times a game voided for `reason` may be replayed: after a referee error
        once at most (a bug that shows again is not bad luck), else up to `max_replays`."""
        limit = self.loaded.config.max_replays
        return min(limit, MAX_ERROR_REPLAYS) if reason is Reason.REFEREE_ERROR else limit

    def _after(
        self, game: ScheduledGame, running: RunningGame, result: Result, state: GameState
    ) -> None:
        replay = False
        if state is GameState.FINISHED:
            self.state.results.append(
                GameResult(game.blue, game.orange, result.winner, result.reason)
            )
        else:
            self._voids[game.number] += 1
            replay = self._voids[game.number] <= self._replays(result.reason)
            if replay:
                self._queue.append(game)
            else:
                self.state.void += 1
        event = finished_event(game, running, result, replay)
        self.state.recent.appendleft(event)
        self.emit(event)
        if self.stop_when is not None and not self.stopped and self.stop_when(self.state):
            self.stopped = True
            self._wake()


def _scheduled(row: GameRow) -> ScheduledGame:
    return ScheduledGame(row.number, row.round, row.blue, row.orange, row.seed)


def finished_event(
    game: ScheduledGame, running: RunningGame, result: Result, replay: bool
) -> GameFinished:
    winner = None
    if result.winner is not None:
        winner = game.blue if result.winner is Side.BLUE else game.orange
    return GameFinished(
        number=game.number,
        attempt=running.attempt,
        blue=game.blue,
        orange=game.orange,
        result=result.label,
        winner=winner,
        reason=result.reason,
        ending=result.ending,
        detail=result.detail,
        plies=result.plies,
        record=running.record,
        replay=replay,
    )
