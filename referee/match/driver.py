"""The trio driver of one game: the judge and two players, under one deadline.

`play(order, host)` is the one way a game is played: it opens both players, tells each what the
judge says, and then only waits, for the verdict or for the deadline of the side asked (a task
sleeps until it). A ply takes no task switch: the mover's reader hears the answer and calls
`answered`, which has the judge check it, writes the move to the opponent, and only then has
the judge play it, asks whether it ended the game and records it, while the opponent reads.
Faults come the same way (`faulted`). Every ending is a named `Reason`; a bug of the referee's
own voids the game as `referee-error` (its traceback on stderr and in the run's log:
errors.py), Ctrl-C as `interrupted`; both still write the result line.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from protocols import get_game
from protocols.base import Reason, Side
from referee.bot import unwrap_single
from referee.builtin_tables import prepare_tables
from referee.exchange import BotFault
from referee.match.errors import report_referee_error
from referee.match.host import Host
from referee.match.judge import Forward, Judge, Verdict, line_fault
from referee.match.lag import LagMonitor
from referee.match.order import GameOrder
from referee.match.player import OpenPlayer, Player, open_bot_player
from referee.match.recorder import Listener, Recorder, header_of, result_of
from referee.match.seats import START_FAILURE_WAIT, Seats
from referee.players import needs_tables, refuse_undeclared
from referee.records import GameRecord, Result


async def play(
    order: GameOrder,
    host: Host,
    *,
    record_path: Path | None = None,
    listener: Listener | None = None,
    lag_monitor: LagMonitor | None = None,
    on_decided: Callable[[], None] | None = None,
    open_player: OpenPlayer = open_bot_player,
) -> GameRecord:
    """Play `order` on `host` to its end and return the record (also written, line by line,
    to `record_path`, whose folder no bot sees, and told to `listener`). `on_decided` is
    called once the result is known, before the players have closed (a tournament starts its
    next game then). Raises `OpeningRefused` before anything is played if a player cannot be
    sent the opening."""
    refuse_undeclared(order.players, order.opening)
    if record_path is not None:  # no bot may read or rewrite the records
        host = host.hiding(record_path.absolute().parent)
    recorder = Recorder(record_path, listener)
    return await _Game(order, host, recorder, lag_monitor, open_player, on_decided).play()


class _Game:
    """One game being played; its methods `answered` and `faulted` are the players' events."""

    def __init__(
        self,
        order: GameOrder,
        host: Host,
        recorder: Recorder,
        lag_monitor: LagMonitor | None,
        open_player: OpenPlayer,
        on_decided: Callable[[], None] | None,
    ) -> None:
        self.order = order
        self.settings = order.settings
        self.game = get_game(order.game)
        self.options = self.game.parse_options(order.options)
        self.colours = order.colours()
        self.judge = Judge(self.game, self.options, order.opening, order.settings)
        self.host = host
        self.recorder = recorder
        self.lag_monitor = lag_monitor
        self.on_decided = on_decided  # the result is known (the players are still closing)
        self.seats = Seats(self.colours, order.settings, host.isolation, open_player)
        self.players = self.seats.players
        self.verdict: Verdict | None = None
        self._pending: tuple[Side, BotFault] | None = None  # a fault to judge (it may wait)
        # A move being forwarded (the rules not yet asked whether it ended the game), and the
        # answers that raced its write.
        self._forwarding = False
        self._raced: list[tuple[Player, str]] = []
        self._error: Exception | None = None  # a bug of ours in a player's reader
        self._decided = trio.Event()  # a verdict, a fault to judge or an error
        # The side asked, since when, and by when it must answer (watched by a sleep).
        self._asked = Side.BLUE
        self._asked_at = 0.0
        self._deadline = math.inf
        self._sleep = trio.CancelScope()  # the watch's sleep, woken if the deadline moves earlier

    # -- the game ---------------------------------------------------------------------------

    async def play(self) -> GameRecord:
        options = self.options.model_dump(mode="json")
        self.recorder.start(header_of(self.order, self.colours, options, self.host.isolation.name))
        verdict: Verdict
        try:
            verdict = await self._play_with_bots(options)
        except (KeyboardInterrupt, trio.Cancelled):
            self._finish(Verdict(None, Reason.INTERRUPTED, "the referee was interrupted"))
            raise
        except Exception as exc:  # a bug of ours: void the game, loudly; never blame a bot
            detail = report_referee_error(exc, self.order.title(), self.host.log)
            verdict = Verdict(None, Reason.REFEREE_ERROR, detail)
        result = self._finish(verdict)
        assert self.recorder.header is not None
        return GameRecord(header=self.recorder.header, plies=self.recorder.plies, result=result)

    def _finish(self, verdict: Verdict) -> Result:
        self._record()
        result = result_of(verdict, len(self.judge.plies), self.players)
        self.recorder.finish(result)
        return result

    async def _play_with_bots(self, options: dict[str, Any]) -> Verdict:
        if any(needs_tables(p.command) for p in self.colours.values()):
            await prepare_tables(self.game.name, options)  # before any bot's clock runs
        try:
            async with trio.open_nursery() as nursery:
                try:
                    return await self.seats.open(nursery, self) or await self._play_game()
                finally:
                    self.seats.close()
                    if self.on_decided is not None:
                        self.on_decided()
        except BaseExceptionGroup as group:
            # Only the game's own block raises here (the seats keep the players' failures):
            # re-raise it as itself, so Ctrl-C stays an interruption and a bug a referee error.
            raise unwrap_single(group) from None

    async def _play_game(self) -> Verdict:
        verdict = await self._turns()
        self._record()  # while its CPU time can still be read
        await self._send_end(verdict)
        return verdict

    async def _send_end(self, verdict: Verdict) -> None:
        grace = self.settings.exit_grace
        if verdict.final is not None:
            # The game-ending move is still forwarded before END (spec 1.4); a bot that
            # stopped reading cannot change the result.
            await self.players[self.judge.state.to_move].notify(verdict.final, grace)
        for side in Side:
            await self.players[side].notify("END", grace)

    async def _turns(self) -> Verdict:
        """Tell both sides their first lines, ask the mover, then wait for the verdict."""
        start = self.judge.start()
        failed: tuple[Side, BotFault] | None = None
        # One write each: a bot reading its colour finds what follows it already there.
        for side, lines in ((start.waiting, start.waiting_lines), (start.mover, start.told)):
            if lines:
                try:
                    await self.players[side].send_line("\n".join(lines))
                except BotFault as fault:  # it died while starting, or stopped reading at once
                    failed = failed or (side, fault)
        if failed is None and (ended := self.judge.ended()) is not None:
            return ended
        async with trio.open_nursery() as watching:
            watching.start_soon(self._watch_deadline, watching.cancel_scope)
            if failed is not None:
                # The game is decided, but the mover is still asked, as it would have been: a
                # bot that never started cannot win, so one that fails on its first question
                # must have it to show that (its fault is waited for); an answer is not judged.
                self._judge_fault(*failed)
            if refused := await self._ask(start.mover, start.asked, trio.current_time()):
                self._judge_fault(start.mover, refused)
            await self._decided.wait()
            watching.cancel_scope.cancel()
        self._decided.set()  # the game is decided: nothing a player does now is judged
        if self._error is not None:
            raise self._error
        if self.verdict is not None:
            return self.verdict
        if self._pending is not None:
            return await self._fault_verdict(*self._pending)
        return await self._timeout()

    async def _watch_deadline(self, game: trio.CancelScope) -> None:
        """Sleep until the deadline of the side asked; when it has passed, the game is decided
        (a timeout) and `game`'s wait, a write included, is cancelled. A ply moves the deadline
        later by an assignment, slept through again here; `_ask` wakes the sleep only when it
        moves the deadline earlier."""
        while True:
            deadline = self._deadline
            with trio.CancelScope() as self._sleep:
                await trio.sleep_until(deadline)
            if trio.current_time() >= self._deadline and not self._decided.is_set():
                self._decided.set()  # a timeout: the verdict is left to `_timeout`
                game.cancel()
                return

    async def _ask(self, side: Side, line: str, now: float) -> BotFault | None:
        """Ask `side` for its answer to `line`, from `now`, by its clock's deadline; its fault
        if it stopped reading."""
        self._asked, self._asked_at = side, now
        deadline = self.judge.clocks[side].deadline(now)
        if deadline < self._deadline:
            self._sleep.cancel()  # the watch sleeps until a later deadline
        self._deadline = deadline
        try:
            await self.players[side].prompt(line)
        except BotFault as fault:
            return fault
        return None

    # -- the players' events ------------------------------------------------------------------

    async def answered(self, player: Player, line: str) -> None:
        """A player's answer, from its reader: judged, and its move forwarded, at once."""
        if self._decided.is_set():
            return
        if self._forwarding:  # it raced a move still being written to it (a full pipe)
            self._raced.append((player, line))
            return
        try:
            side, now = self.seats.side_of(player), trio.current_time()
            elapsed = now - self._asked_at
            judged = self.judge.check(side, line)
            if isinstance(judged, Verdict):
                # A losing line is a fault like any other: while a side has yet to make its
                # first move, that side's own failure is waited for (it may never have started).
                self._judge_fault(side, line_fault(side, judged))
            elif player.fault is not None:  # a second line in the same turn: out of turn,
                self.judge.play(elapsed)  # unless the move ended the game (then trailing)
                ended = self.judge.ended()
                fault = self.judge.fault(side, player.fault)
                self._decide(ended._replace(final=judged.line) if ended else fault)
            else:
                await self._forward(judged, now, elapsed)
            self._record()  # the move just played, while the opponent thinks
        except Exception as exc:  # a bug of ours: the driver's task reports it
            self._error = exc
            self._decided.set()

    async def _forward(self, move: Forward, now: float, elapsed: float) -> None:
        """Write the move to the opponent, asking it for its answer, and only then play it
        (`elapsed`: the time it took) and ask the rules whether it ended the game: the
        opponent reads it meanwhile. If it did, the opponent is not waited for (the move was
        its last line before END), and a failed write changes nothing (as for a game's final
        move)."""
        self._forwarding = True
        try:
            fault = await self._ask(move.to, move.line, now)
        finally:
            self._forwarding = False
            self.judge.play(elapsed)
        if (ended := self.judge.ended()) is not None:
            self.players[move.to].stop_waiting()
            self._decide(ended)
            return  # an answer that raced the write answered nothing: the game is over
        if fault is not None:
            self._judge_fault(move.to, fault)
        raced, self._raced = self._raced, []
        for player, line in raced:
            await self.answered(player, line)

    def faulted(self, player: Player) -> None:
        """A player's fault, the moment its reader found it: judged in the driver's task."""
        fault = player.fault
        if fault is not None:
            self._judge_fault(self.seats.side_of(player), fault)

    def _judge_fault(self, side: Side, fault: BotFault) -> None:
        if not self._decided.is_set():
            self._pending = (side, fault)
            self._decided.set()

    def _decide(self, verdict: Verdict) -> None:
        if not self._decided.is_set():  # the first decision stands (a timeout may come first)
            self.verdict = verdict
            self._decided.set()

    # -- verdicts -----------------------------------------------------------------------------

    async def _fault_verdict(self, side: Side, fault: BotFault) -> Verdict:
        """`side` loses for `fault`; before any move, the opponent has `START_FAILURE_WAIT` for
        a fault of its own to show (the judge decides whether one of the two never started)."""
        if not self.judge.waits_for_opponent(fault):
            return self.judge.fault(side, fault)
        theirs = await self.seats.fault_of(side.other, START_FAILURE_WAIT)
        return self.judge.fault(side, fault, theirs)

    async def _timeout(self) -> Verdict:
        """The side asked did not answer by its deadline: a loss on time, unless the referee
        itself was stalled while it had the move (then void)."""
        side, deadline = self._asked, self._deadline
        late = trio.current_time() - deadline  # how long after the deadline we looked
        lag = self.lag_monitor.lag_between(self._asked_at, deadline) if self.lag_monitor else 0.0
        fault = self.judge.timed_out(side, self.players[side].timeout_fault(), max(late, lag))
        return await self._fault_verdict(side, fault)

    # -- the record ---------------------------------------------------------------------------

    def _record(self) -> None:
        """Record the plies played and not yet recorded (the last one, at most): called once
        the move is on its way to the opponent, so that neither the mover's CPU reading nor
        the record line delays it, and on every way out of the game."""
        plies = self.judge.plies
        for played in plies[len(self.recorder.plies) :]:
            bot = self.players.get(played.side)
            self.recorder.ply(played, bot.last_cpu_ms if bot is not None else None)
