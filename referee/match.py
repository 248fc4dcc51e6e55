"""Play one game between two bot processes: colours, the turn loop, clocks and the verdict.

The framing is the spec's section 1: `blue`/`orange` to each bot, the mover's line judged by the
rules, the canonical move forwarded to the opponent, `END` to both at the end. Every ending is a
named `Reason` in the result. A bug in the referee voids the game (`referee-fault`) rather than
blaming a bot, and Ctrl-C voids it as `interrupted`; both still write the result line.
"""

from __future__ import annotations

import json
import logging
import math
import random
import shlex
import sys
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import trio
from pydantic import BaseModel, ConfigDict, Field, field_validator

from protocols import get_game
from protocols.base import Game, IllegalMove, Outcome, Reason, Side
from protocols.options import GameOptions
from referee.bot import (
    BotExit,
    BotFault,
    BotInfrastructureError,
    BotStartError,
    open_bot,
    unwrap_single,
)
from referee.builtin_tables import prepare_tables, table_cache_directory
from referee.isolation.confinement import player_places, reach_check
from referee.isolation.levels import Isolation, IsolationSettings, IsolationUnavailable, choose
from referee.isolation.limits import Limits
from referee.openings import apply_opening
from referee.records import (
    BotReport,
    GameRecord,
    Header,
    PlayerInfo,
    Ply,
    RecordWriter,
    Result,
    TimeControl,
    utc_now,
)

# -- players ----------------------------------------------------------------------------------

BUILTIN_PREFIX = "builtin:"
# The built-in bots (`python -m bots NAME`), named here because the referee never imports `bots`
# (tests/bots/test_builtin_names.py keeps this list equal to the bots' own).
BUILTIN_BOTS = ("random", "greedy", "search", "perfect", "applet", "lielow-reference")
# The built-in bots that play only some games, and those games; the others play every game (the
# same test keeps this what the bots themselves accept).
BUILTIN_GAMES = {"perfect": ("l-game", "alak"), "lielow-reference": ("lielow",)}
# The built-in bots that read solved tables or a compiled engine from the cache folder.
CACHED_BOTS = ("perfect", "search")
# A built-in bot reads nothing of its folder, so it runs in `/`: the caller's folder (a private
# home, a tournament's folder) is neither needed by it nor shown to it.
BUILTIN_CWD = Path("/")
POSITION = "position"  # the protocol extension that starts a game from an opening
# A referee fault's traceback, for whoever keeps a log (the arena's server); nothing otherwise.
log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())


class OpeningRefused(ValueError):
    """A game with an opening between bots of which one has not declared `position`."""


def first_lines(side: Side, opening: Sequence[str]) -> list[str]:
    """What `side` is told before a game goes on: its colour, then, with an opening,
    `position K` and the opening's K moves (spec 1.10)."""
    if not opening:
        return [side.value]
    return [side.value, f"{POSITION} {len(opening)}", *opening]


def refuse_undeclared(players: Sequence[PlayerSpec], opening: Sequence[str] | None) -> None:
    """Raise `OpeningRefused`, naming the bot, if a game from `opening` cannot be played: a bot
    that has not declared the `position` extension is never sent its lines, and a game is never
    played from the start instead."""
    if not opening:
        return
    for player in players:
        if not player.understands(POSITION):
            raise OpeningRefused(
                f"{player.name} has not declared the {POSITION!r} extension, so it cannot start "
                f'from an opening: declare it (capabilities = ["{POSITION}"] for a tournament '
                "player, --position-capable for play) or play without openings"
            )


def as_builtin(opponent: str) -> str:
    """An opponent as `referee check` and a course name it: a built-in bot's name (`random`,
    `perfect --seed 3`) as its command (`builtin:...`); anything else as it is."""
    stripped = opponent.strip()
    return BUILTIN_PREFIX + stripped if stripped.partition(" ")[0] in BUILTIN_BOTS else opponent


def builtins_playing(game: str) -> list[str]:
    """The built-in bots that play `game`."""
    return [name for name in BUILTIN_BOTS if game in BUILTIN_GAMES.get(name, (game,))]


def builtin_refusal(command: str, game: str) -> str | None:
    """Why `command`, when it names a built-in bot (`builtin:NAME [args]`), cannot play `game`:
    no built-in bot has that name, or that bot plays other games only. None for a command that
    can, or is not a built-in: its start is for the game to tell."""
    stripped = command.strip()
    if not stripped.startswith(BUILTIN_PREFIX):
        return None
    name = stripped[len(BUILTIN_PREFIX) :].partition(" ")[0]
    if name not in BUILTIN_BOTS:
        return f"{BUILTIN_PREFIX}{name} is not a built-in bot ({', '.join(BUILTIN_BOTS)})"
    if name not in builtins_playing(game):
        plays = " and ".join(BUILTIN_GAMES[name])
        return (
            f"{BUILTIN_PREFIX}{name} plays only {plays}, not {game} (the built-in bots of "
            f"{game}: {', '.join(builtins_playing(game))})"
        )
    return None


def is_builtin(command: str) -> bool:
    """Whether `command` is a built-in bot as `resolve_command` expands it."""
    return command.startswith(shlex.join([sys.executable, "-m", "bots"]) + " ")


def player_cwd(player: PlayerSpec) -> Path | None:
    """The folder a player runs in (None: the referee's own)."""
    return BUILTIN_CWD if is_builtin(player.command) else player.cwd


def resolve_command(command: str, game: str, options: GameOptions | None = None) -> str:
    """Expand `builtin:NAME [args]` to the command that runs that built-in bot for `game`.

    Game options are not sent on the wire, so a built-in bot is told them on its command line
    (only those that differ from the defaults). Any other command is returned unchanged.
    """
    stripped = command.strip()
    if not stripped.startswith(BUILTIN_PREFIX):
        return command
    name, _, rest = stripped[len(BUILTIN_PREFIX) :].partition(" ")
    argv = [sys.executable, "-m", "bots", name, "--game", game]
    changed = options.model_dump(mode="json", exclude_defaults=True) if options else {}
    if changed:
        argv += ["--options", json.dumps(changed, separators=(",", ":"))]
    if name in CACHED_BOTS:
        # Its HOME and environment are not the referee's: it is told where its solved tables
        # are (a folder its command line names is also visible in its sandbox).
        argv += ["--cache-dir", str(table_cache_directory())]
    return shlex.join(argv) + (f" {rest.strip()}" if rest.strip() else "")


def unreachable_player(players: Sequence[PlayerSpec], isolation: Isolation) -> str | None:
    """Before a run's first game (no bot started): the refusal of the first of `players` that
    this machine cannot run under `isolation` as a user of its own ("cannot run NAME here: "
    the path that stops it and the fix), or None."""
    for player in players:
        if problem := reach_check(player.command, player_cwd(player), isolation):
            return f"cannot run {player.name} here: {problem}"
    return None


class PlayerSpec(BaseModel):
    """A player: a display name and the command that starts its program."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    command: str
    cwd: Path | None = None
    limits: Limits | None = None  # this player's own resource limits; None: the match's
    # Protocol extensions it has declared it understands (its configuration says so; a bot is
    # never asked): "position", a game started from an opening (spec 1.10).
    capabilities: frozenset[str] = frozenset()

    def understands(self, extension: str) -> bool:
        """Whether it may be sent `extension`'s lines: declared, or a built-in bot (which all
        understand every extension)."""
        return extension in self.capabilities or is_builtin(self.command)

    content_hash: str | None = None  # what the bot is made of (referee/bot_content.py)


class TimeSettings(TimeControl):
    """The time control, and how a timeout is judged when the referee itself lagged: a
    tournament's `[time_control]` table."""

    overload_threshold: float = Field(
        0.25, gt=0, description="referee lag (seconds) during a move that voids its timeout"
    )

    @field_validator(*TimeControl.model_fields, "overload_threshold")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        """Every time is finite: a bot that never answers must lose, and a record's times stay
        numbers that every JSON reader reads (`inf` is not JSON)."""
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number of seconds")
        return value


class MatchSettings(TimeSettings):
    """How a match is refereed: the time defaults are the course referee's; containment and
    fair CPU default to the safe side (`referee play` turns freezing off, as the course does)."""

    exit_grace: float = Field(1.0, ge=0, description="seconds a bot may take to exit after END")
    max_line_bytes: int = Field(4096, ge=16)
    random_assignment: bool = True
    # Untrusted bots: resource limits, the isolation level (referee/isolation/), fair CPU. The
    # level defaults to `auto`, the strongest the machine offers, everywhere: bots are untrusted.
    limits: Limits = Field(default_factory=Limits)
    isolation: IsolationSettings = Field(default_factory=IsolationSettings)
    # Fair CPU: a bot that has used `freeze_grace` seconds of CPU since its answer is frozen
    # until it is asked again; one that blocks on its input first is never stopped (bot.py).
    freeze: bool = Field(True, description="freeze the bot not on move while it ponders")
    freeze_grace: float = Field(
        0.05, ge=0, description="seconds of CPU after its answer before a pondering bot is frozen"
    )


# -- the seam: what a match needs of a player --------------------------------------------------
# Declared here, by its only user, rather than in referee/bot.py: the protocol is the match's
# view of a player, and `BotProcess` satisfies it structurally without knowing about it. Tests
# put an in-memory player behind it (tests/match/fake_player.py) to check time control on a
# virtual clock.


class Player(Protocol):
    """One side of a match: lines in and out under deadlines, and how it ended."""

    @property
    def fault(self) -> BotFault | None:
        """What it did wrong so far, kept until the match judges it."""

    @property
    def last_cpu_ms(self) -> float | None:
        """CPU time of its last answer, where measured."""

    @property
    def exit(self) -> BotExit | None:
        """How it ended; set once it is closed."""

    @property
    def isolation_level(self) -> str | None:
        """The isolation level it actually ran under, for the record."""

    @property
    def isolation_note(self) -> str | None:
        """Why it ran below the level asked for, where it did (the cause, named)."""

    async def ask(
        self, line: str | None, deadline: float, then: Callable[[], None] | None = None
    ) -> str | None:
        """Write `line`, return the one-line answer by `deadline` (None if interrupted);
        `then` runs once the line is written, while the player thinks."""

    async def notify(self, line: str, timeout: float) -> bool:
        """Best-effort write at the end of a game; whether the line was written."""

    async def send_line(self, line: str) -> None:
        """Write a line it does not answer (its colour)."""

    def interrupt(self) -> None:
        """Stop a pending `ask`: the game ended for another reason."""


FaultCallback = Callable[[Player], None]


class OpenPlayer(Protocol):
    """Opens one side for a match: `(player, opponent, settings, isolation, on_fault)`.

    `on_fault` is called at once when the player does something wrong while not being asked.
    Raises `BotStartError` (the player's fault) or `BotInfrastructureError` (void) on entry.
    """

    def __call__(
        self,
        player: PlayerSpec,
        opponent: PlayerSpec,
        settings: MatchSettings,
        isolation: Isolation,
        on_fault: FaultCallback,
        /,
    ) -> AbstractAsyncContextManager[Player]: ...


def open_bot_player(
    player: PlayerSpec,
    opponent: PlayerSpec,
    settings: MatchSettings,
    isolation: Isolation,
    on_fault: FaultCallback,
) -> AbstractAsyncContextManager[Player]:
    """The real player: its program in a confined process, hidden from the opponent's files."""
    return open_bot(
        player.command,
        name=player.name,
        cwd=player_cwd(player),
        max_line_bytes=settings.max_line_bytes,
        exit_grace=settings.exit_grace,
        on_fault=on_fault,
        limits=player.limits or settings.limits,
        isolation=isolation
        if is_builtin(opponent.command)
        else isolation.among(player_places(opponent.command, player_cwd(opponent))),
        freeze=settings.freeze,
        freeze_grace=settings.freeze_grace,
    )


Listener = Callable[[Header | Ply | Result], None]


class Verdict(NamedTuple):
    """How a game ended: the winner (None: draw or void), the reason, and the details."""

    winner: Side | None
    reason: Reason
    detail: str
    line: str | None = None  # the offending line, for bot faults
    ending: str | None = None  # the game's own ending, with reason game-ending


def fault_verdict(side: Side, fault: BotFault) -> Verdict:
    """`side` loses for `fault`, unless the fault voids the game (referee overload)."""
    winner = None if fault.reason.voids_game else side.other
    return Verdict(winner, fault.reason, f"{side}: {fault.detail}", fault.line)


# Faults that say a bot could not start, when they come before any move. When both bots fail
# so, neither wins (each is scored a loss), whichever failure was noticed first.
START_FAILURES = frozenset({Reason.CRASH, Reason.RESOURCE_LIMIT})
START_FAILURE_WAIT = 1.0  # seconds the other bot has for its own start failure to show
START_FAILURE_POLL = 0.01


def neither_started(faults: dict[Side, BotFault]) -> Verdict:
    """Both bots failed before any move: no winner, both faults named (blue's first)."""
    detail = "; ".join(f"{side}: {faults[side].detail}" for side in Side)
    return Verdict(None, Reason.CRASH, f"neither player could start ({detail})")


# -- the referee's own lag -------------------------------------------------------------------
# The referee's own lag: how late the event loop wakes up compared with when it meant to.
#
# A bot's timeout is only fair if the referee looked at the clock on time. When the machine is
# overloaded (or the referee is busy), the loop can wake up long after a deadline, and a reply that
# arrived in time may still be sitting unread in the pipe. `LagMonitor.run` is a cheap ticking task
# (one wake-up every `interval`); a match asks `lag_between(start, end)` when a bot times out, and a
# timeout that coincides with lag above the threshold voids the game instead of scoring it.

DEFAULT_INTERVAL = 0.05  # seconds between ticks: 20 wake-ups a second, negligible CPU
DEFAULT_HISTORY = 600.0  # seconds of lag samples kept (longer than any move)
MIN_RECORDED_LAG = 0.005  # smaller lags are scheduling noise; not worth keeping


class LagMonitor:
    """Samples the loop's lateness; one per referee process, shared by every match."""

    def __init__(
        self, interval: float = DEFAULT_INTERVAL, history: float = DEFAULT_HISTORY
    ) -> None:
        self.interval = interval
        self.history = history
        # (wake-up time, lag): the loop was stalled during [time - lag, time].
        self._samples: deque[tuple[float, float]] = deque()
        self._last_tick: float | None = None
        self.max_lag = 0.0

    async def run(self) -> None:
        """Tick forever (until cancelled), recording every late wake-up."""
        while True:
            self._last_tick = trio.current_time()
            meant = self._last_tick + self.interval
            await trio.sleep_until(meant)
            now = trio.current_time()
            self.record(now, now - meant)

    def record(self, now: float, lag: float) -> None:
        """The loop woke up at `now`, `lag` seconds late (public so tests can feed samples)."""
        if lag >= MIN_RECORDED_LAG:
            self._samples.append((now, lag))
            self.max_lag = max(self.max_lag, lag)
        while self._samples and self._samples[0][0] < now - self.history:
            self._samples.popleft()

    def lag_between(self, start: float, end: float) -> float:
        """The longest stall that overlapped [start, end], including one still going on now."""
        worst = 0.0
        for woke, lag in reversed(self._samples):
            if woke < start:
                break
            if woke - lag <= end:
                worst = max(worst, lag)
        return max(worst, self._pending_stall(start, end))

    def _pending_stall(self, start: float, end: float) -> float:
        # The ticker may not have run yet after a stall that just ended (the same stall delayed
        # both it and the timeout being handled now): measure that stall from its last tick.
        if self._last_tick is None:
            return 0.0
        stalled_since = self._last_tick + self.interval
        now = trio.current_time()
        if now - stalled_since <= 0 or stalled_since > end or now < start:
            return 0.0
        return now - stalled_since


# -- the match ------------------------------------------------------------------------------


class Match:
    """One game between two players; `await Match(...).play()` returns the complete record."""

    def __init__(
        self,
        game_name: str,
        player1: PlayerSpec,
        player2: PlayerSpec,
        *,
        options: dict[str, Any] | None = None,
        settings: MatchSettings | None = None,
        seed: int | None = None,
        record_path: Path | None = None,
        listener: Listener | None = None,
        lag_monitor: LagMonitor | None = None,
        open_player: OpenPlayer = open_bot_player,
        on_decided: Callable[[], None] | None = None,
        isolation: Isolation | None = None,
        opening: Sequence[str] | None = None,
    ) -> None:
        self.game: Game[Any, Any, Any] = get_game(game_name)
        self.options = self.game.parse_options(options)
        self.settings = settings or MatchSettings()
        self.seed = seed
        self.players = self._assign_colours(player1, player2)
        self.record_path = record_path
        self.listener = listener
        # The moves played before the bots take over (spec 1.10): the game starts where they
        # lead, and the draw rules count them as played.
        self.opening = list(opening or [])
        refuse_undeclared([player1, player2], self.opening)
        self.state: Any = apply_opening(
            self.game, self.game.initial_state(self.options), self.opening
        )
        self.plies: list[Ply] = []
        # The move last played, until it is recorded: (side, line received, move, seconds).
        self._unrecorded: tuple[Side, str, str, float] | None = None
        self.bots: dict[Side, Player] = {}
        self._open_player = open_player
        self._game_over = trio.Event()  # the players' tasks close them when it is set
        # Called once the result is known, before the players have closed (a tournament starts
        # its next game then).
        self.on_decided = on_decided
        # The isolation chosen once for the whole run (None: chosen here from the settings).
        self.isolation = isolation
        self._writer: RecordWriter | None = None
        self._header: Header | None = None
        self._first_move_done: set[Side] = set()
        self.lag_monitor = lag_monitor
        self.clock = {side: self.settings.clock_total or 0.0 for side in Side}

    def _assign_colours(self, p1: PlayerSpec, p2: PlayerSpec) -> dict[Side, PlayerSpec]:
        if self.settings.random_assignment and random.Random(self.seed).random() < 0.5:
            p1, p2 = p2, p1
        return {Side.BLUE: p1, Side.ORANGE: p2}

    # -- the record ---------------------------------------------------------------------------

    def _emit(self, line: Header | Ply | Result) -> None:
        if self._writer is not None:
            self._writer.write(line)
        if self.listener is not None:
            self.listener(line)

    def _start_record(self) -> None:
        if self.record_path is not None:
            self._writer = RecordWriter(self.record_path)
        s = self.settings
        self._header = Header(
            game=self.game.name,
            options=self.options.model_dump(mode="json"),
            seed=self.seed,
            players={
                side: PlayerInfo(
                    name=p.name,
                    command=p.command,
                    cwd=str(p.cwd) if p.cwd else None,
                    limits=p.limits.model_dump() if p.limits else None,
                    content_hash=p.content_hash,
                )
                for side, p in self.players.items()
            },
            time_control=TimeControl.of(s),
            started_at=utc_now(),
            opening=self.opening or None,
            confinement={
                "isolation": s.isolation.level,
                "freeze": s.freeze,  # the policy: frozen only while pondering, after the grace
                "freeze_grace": s.freeze_grace,
                "limits": s.limits.model_dump(),
            },
        )
        self._emit(self._header)

    # -- playing ------------------------------------------------------------------------------

    async def play(self) -> GameRecord:
        """Play the game to its end and return the record (also written to `record_path`)."""
        self._start_record()
        verdict: Verdict
        try:
            verdict = await self._play_with_bots()
        except (KeyboardInterrupt, trio.Cancelled):
            self._finish(None, Reason.INTERRUPTED, "the referee was interrupted", None)
            raise
        except Exception as exc:  # a bug of ours: void the game, never blame a bot
            log.error("a referee fault voids the game (record %s)", self.record_path, exc_info=True)
            verdict = Verdict(None, Reason.REFEREE_FAULT, f"{type(exc).__name__}: {exc}")
        result = self._finish(*verdict)
        assert self._header is not None
        return GameRecord(header=self._header, plies=self.plies, result=result)

    def _finish(
        self,
        winner: Side | None,
        reason: Reason,
        detail: str,
        line: str | None,
        ending: str | None = None,
    ) -> Result:
        self._record_move()
        reports = {
            side: BotReport(
                exit_code=bot.exit.returncode,
                killed=bot.exit.killed_by_referee,
                stderr_tail=bot.exit.stderr_tail,
                stderr_bytes=bot.exit.stderr_bytes,
                isolation=bot.isolation_level,
                isolation_note=bot.isolation_note,
                unasked=list(bot.exit.unasked),
            )
            for side in Side
            if (bot := self.bots.get(side)) is not None and bot.exit is not None
        }
        result = Result(
            winner=winner,
            reason=reason,
            ending=ending,
            detail=detail,
            loser_line=line,
            plies=len(self.plies),
            void=reason.voids_game,
            finished_at=utc_now(),
            bots=reports,
        )
        self._emit(result)
        if self._writer is not None:
            self._writer.close()
        return result

    async def _play_with_bots(self) -> Verdict:
        try:
            isolation = self.isolation or choose(self.settings.isolation)
        except IsolationUnavailable as exc:
            return Verdict(None, Reason.INFRASTRUCTURE, str(exc))
        if self.record_path is not None:  # no bot may read or rewrite the records
            isolation = isolation.hiding(self.record_path.absolute().parent)
        if any(
            f"-m bots {name} " in p.command for p in self.players.values() for name in CACHED_BOTS
        ):
            options = self.options.model_dump(mode="json")
            await prepare_tables(self.game.name, options)  # before any bot's clock runs
        try:
            async with trio.open_nursery() as nursery:
                try:
                    return await self._open_both(nursery, isolation) or await self._play_game()
                finally:
                    self._game_over.set()  # both players close, at once
                    if self.on_decided is not None:
                        self.on_decided()
        except BaseExceptionGroup as group:
            # Only the match's own block raises here (`_hold` keeps the players' failures):
            # re-raise it as itself, so Ctrl-C stays an interruption and a bug a referee fault.
            raise unwrap_single(group) from None

    async def _play_game(self) -> Verdict:
        verdict = await self._turn_loop()
        self._record_move()  # while its CPU time can still be read
        await self._send_end()
        return verdict

    async def _open_both(self, nursery: trio.Nursery, isolation: Isolation) -> Verdict | None:
        """Open both players at once (opening one is mostly waiting for its program to be
        executed); a verdict if either could not start."""
        failures: dict[Side, BotStartError | BotInfrastructureError] = {}
        opened = {side: trio.Event() for side in self.players}
        for side in self.players:
            nursery.start_soon(self._hold, side, isolation, opened[side], failures)
        for event in opened.values():
            await event.wait()
        for side in Side:  # the machine failing us voids the game, whoever else failed
            if isinstance(failure := failures.get(side), BotInfrastructureError):
                return Verdict(None, Reason.INFRASTRUCTURE, f"{side}: {failure.detail}")
        failed = [(side, e) for side in Side if isinstance(e := failures.get(side), BotStartError)]
        return await self._start_failure_verdict(failed) if failed else None

    async def _hold(
        self,
        side: Side,
        isolation: Isolation,
        opened: trio.Event,
        failures: dict[Side, BotStartError | BotInfrastructureError],
    ) -> None:
        """Open one player and keep it open until the game is over: a player's context is left
        by the task that entered it, so each player has a task of its own."""
        player, opponent = self.players[side], self.players[side.other]
        try:
            async with self._open_player(
                player, opponent, self.settings, isolation, self._on_idle_fault
            ) as bot:
                self.bots[side] = bot
                opened.set()
                await self._game_over.wait()
        except (BotStartError, BotInfrastructureError) as exc:
            failures[side] = exc
        finally:
            opened.set()

    async def _start_failure_verdict(self, failed: list[tuple[Side, BotStartError]]) -> Verdict:
        """Both could not be started, or one could not and the other was: the other wins
        unless it fails before moving too (exits at once, a script that is not there), for a
        program that started and died at once never started playing either."""
        if len(failed) == 2:
            return neither_started(dict(failed))
        side, exc = failed[0]
        if (theirs := await self._start_failure_of(side.other)) is not None:
            return neither_started({side: exc, side.other: theirs})
        return Verdict(side.other, Reason.CRASH, f"{side}: {exc.detail}")

    async def _fault_verdict(self, side: Side, fault: BotFault) -> Verdict:
        """`side` loses for `fault`, unless no move was played yet and the opponent could not
        start either."""
        if self.plies or fault.reason not in START_FAILURES:
            return fault_verdict(side, fault)
        if (theirs := await self._start_failure_of(side.other)) is None:
            return fault_verdict(side, fault)
        return neither_started({side: fault, side.other: theirs})

    async def _start_failure_of(self, side: Side) -> BotFault | None:
        """`side`'s own failure to start, if it shows within `START_FAILURE_WAIT`: which of two
        dead programs the referee notices first is chance. None: it is still there."""
        bot = self.bots[side]
        with trio.move_on_after(START_FAILURE_WAIT):
            while bot.fault is None:
                await trio.sleep(START_FAILURE_POLL)
        fault = bot.fault
        return fault if fault is not None and fault.reason in START_FAILURES else None

    def _on_idle_fault(self, bot: Player) -> None:
        # The bot that is not on move did something wrong: stop waiting for the mover.
        for other in self.bots.values():
            if other is not bot:
                other.interrupt()

    async def _turn_loop(self) -> Verdict:
        mover = self.state.to_move  # blue, or whoever is to move after the opening
        try:
            # One write each: a bot reading its colour finds what follows it already there.
            waiting = first_lines(mover.other, self.opening)
            await self.bots[mover.other].send_line("\n".join(waiting))
        except BotFault as fault:  # it died while starting, or stopped reading at once
            return await self._fault_verdict(mover.other, fault)
        *told, to_send = first_lines(mover, self.opening)  # the mover answers the last of its lines
        if told:
            try:
                await self.bots[mover].send_line("\n".join(told))
            except BotFault as fault:
                return await self._fault_verdict(mover, fault)
        outcome: Outcome | None = self.game.outcome(self.state)
        while outcome is None:
            side: Side = self.state.to_move
            try:
                received, elapsed = await self._ask(side, to_send)
            except BotFault as fault:
                return await self._fault_verdict(side, fault)
            finally:
                self._record_move()  # if the ask ended before it could
            idle_fault = self.bots[side.other].fault  # it wrote while the mover thought
            if idle_fault is not None:
                return await self._fault_verdict(side.other, idle_fault)
            assert received is not None  # only an idle bot's fault interrupts an answer
            # The answer is judged first: a debug line followed by the move is named as what
            # it is, and a move that ends the game ends it whatever the bot writes after it.
            try:
                move = self.game.parse_move(self.state, received)
            except IllegalMove as exc:
                return Verdict(side.other, exc.reason_code, f"{side}: {exc.reason}", received)
            self.state = self.game.apply(self.state, move)
            to_send = self.game.format_move(move)
            self._unrecorded = (side, received, to_send, elapsed)
            outcome = self.game.outcome(self.state)
            later_fault = self.bots[side].fault  # a second line in the same turn
            if later_fault is not None and outcome is None:
                return fault_verdict(side, later_fault)
        # After the game-ending move, what the mover wrote is trailing output (kept in the
        # record's `unasked`), never judged: the course referee never reads past that move.
        # The final legal move is still forwarded before END (spec 1.4).
        self._record_move()
        if self.plies:
            await self._forward_final(self.state.to_move, to_send)
        return Verdict(outcome.winner, outcome.reason, outcome.detail, None, outcome.ending)

    def _record_move(self) -> None:
        """Record the move last played. It is called once the move is on its way to the
        opponent, so that neither the mover's CPU reading nor the record line delays it; every
        way out of the turn loop records it too (`_finish`)."""
        if self._unrecorded is None:
            return
        side, received, move, elapsed = self._unrecorded
        self._unrecorded = None
        # Built from values the referee itself made: validating them again costs more than
        # the rest of the record line.
        ply = Ply.model_construct(
            ply=len(self.plies) + 1,
            side=side,
            received=received,
            move=move,
            time_ms=round(elapsed * 1000, 3),
            cpu_ms=self.bots[side].last_cpu_ms,
        )
        self.plies.append(ply)
        self._emit(ply)

    async def _ask(self, side: Side, line: str) -> tuple[str | None, float]:
        s = self.settings
        allowance = 0.0 if side in self._first_move_done else s.startup_allowance
        self._first_move_done.add(side)
        budget = s.move_timeout if s.clock_total is None else self.clock[side]
        start = trio.current_time()
        deadline = start + budget + s.grace + allowance
        try:
            received = await self.bots[side].ask(line, deadline, self._record_move)
        except BotFault as fault:
            if fault.reason is Reason.TIMEOUT:
                raise self._timeout_fault(fault, start, deadline) from None
            raise
        elapsed = trio.current_time() - start
        if s.clock_total is not None:
            used = max(0.0, elapsed - allowance)  # the start-up allowance is not charged
            self.clock[side] = max(0.0, self.clock[side] - used) + s.clock_increment
        return received, elapsed

    def _timeout_fault(self, fault: BotFault, start: float, deadline: float) -> BotFault:
        """A timeout, unless the referee itself was stalled while the bot had the move."""
        late = trio.current_time() - deadline  # how long after the deadline we looked
        lag = self.lag_monitor.lag_between(start, deadline) if self.lag_monitor else 0.0
        worst = max(late, lag)
        if worst > self.settings.overload_threshold:
            return BotFault(
                Reason.REFEREE_OVERLOAD,
                f"timed out while the referee lagged {worst:.3f} s (threshold "
                f"{self.settings.overload_threshold} s): void, to be replayed",
            )
        if self.settings.clock_total is not None:
            return BotFault(Reason.TIMEOUT, f"{fault.detail} (its game clock ran out)")
        return fault

    async def _forward_final(self, side: Side, line: str) -> None:
        # The game is over: a bot that stopped reading cannot change the result.
        await self.bots[side].notify(line, self.settings.exit_grace)

    async def _send_end(self) -> None:
        for side in Side:
            await self.bots[side].notify("END", self.settings.exit_grace)
