"""The judge of one game: answers in, the move to forward or the verdict out.

It owns the position, the plies played, the two clocks and every verdict's reason and wording;
it does no I/O and reads no clock (the driver tells it how long each answer took). The framing
is the spec's section 1: each bot is told its colour (and, from an opening, `position K` and the
opening's moves), the mover's line is judged by the rules, the canonical move is forwarded to
the opponent, and the game ends by the rules, by a bot's fault or void.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

from protocols.base import Game, IllegalMove, Reason, Side
from protocols.options import GameOptions
from referee.exchange import BotFault
from referee.match.clock import Clock
from referee.match.settings import TimeSettings
from referee.openings import apply_opening
from referee.players import POSITION

# Faults that say a bot could not start, when they come before its first move. A bot that never
# started cannot win: when one bot failed so before its first move and the other failed too in
# any way (failed to start as well, wrote out of turn, an illegal move, died after its own first
# move...), neither wins (each is scored a loss), whichever failure was noticed first.
START_FAILURES = frozenset({Reason.CRASH, Reason.RESOURCE_LIMIT})
SIDES = tuple(Side)


class Verdict(NamedTuple):
    """How a game ended: the winner (None: draw or void), the reason, and the details."""

    winner: Side | None
    reason: Reason
    detail: str
    line: str | None = None  # the offending line, for bot faults
    ending: str | None = None  # the game's own ending, with reason game-ending
    # The game-ending move, if it is still to be forwarded to the opponent before END (spec 1.4).
    final: str | None = None


class Forward(NamedTuple):
    """A legal move: `line`, its canonical form, goes to `to`, the opponent."""

    to: Side
    line: str


class Played(NamedTuple):
    """One ply as the judge saw it: the line received and the move as forwarded."""

    side: Side
    received: str
    move: str
    elapsed: float  # seconds from the ask to the answer


class Start(NamedTuple):
    """What each bot is told before the game goes on: the side not on move all of its lines;
    the mover all but the last, which it answers (`asked`)."""

    waiting: Side
    waiting_lines: list[str]
    mover: Side
    told: list[str]
    asked: str


def first_lines(side: Side, opening: Sequence[str]) -> list[str]:
    """What `side` is told before a game goes on: its colour, then, with an opening,
    `position K` and the opening's K moves (spec 1.10)."""
    if not opening:
        return [side.value]
    return [side.value, f"{POSITION} {len(opening)}", *opening]


def fault_verdict(side: Side, fault: BotFault) -> Verdict:
    """`side` loses for `fault`, unless the fault voids the game (referee overload)."""
    winner = None if fault.reason.voids_game else side.other
    return Verdict(winner, fault.reason, f"{side}: {fault.detail}", fault.line)


def neither_started(faults: dict[Side, BotFault], unmoved: Collection[Side] = SIDES) -> Verdict:
    """Both bots failed, one of them before its first move (the sides that had not moved yet:
    `unmoved`) and without ever starting: no winner, both faults named (blue's first). The
    reason is the start failure's (a crash), which the detail names."""
    detail = "; ".join(f"{side}: {faults[side].detail}" for side in Side)
    if len(unmoved) == 1:
        (side,) = unmoved
        return Verdict(None, Reason.CRASH, f"neither wins: {side} never made a move ({detail})")
    both = all(fault.reason in START_FAILURES for fault in faults.values())
    what = "neither player could start" if both else "neither player started playing"
    return Verdict(None, Reason.CRASH, f"{what} ({detail})")


def never_started(faults: Mapping[Side, BotFault], unmoved: Collection[Side] = SIDES) -> bool:
    """Whether both sides' faults are a game that one bot never started playing: neither
    voids the game, and the fault of a side that had not made its first move yet (of
    `unmoved`: before any move, both) is a failure to start (a bot that never started cannot
    win, whatever the other did wrong)."""
    if any(fault.reason.voids_game for fault in faults.values()):
        return False
    return any(faults[side].reason in START_FAILURES for side in unmoved)


def line_fault(side: Side, verdict: Verdict) -> BotFault:
    """The fault of `side` that `verdict`, the loss `answer` gave its line, names."""
    return BotFault(verdict.reason, verdict.detail.removeprefix(f"{side}: "), verdict.line)


class Judge:
    """One game's position, plies and clocks; see the module docstring."""

    def __init__(
        self,
        game: Game[Any, Any, Any],
        options: GameOptions,
        opening: Sequence[str],
        time: TimeSettings,
    ) -> None:
        self.game = game
        # The moves played before the bots take over: the game starts where they lead, and
        # the draw rules count them as played.
        self.opening = list(opening)
        self.state: Any = apply_opening(game, game.initial_state(options), self.opening)
        self.clocks = {side: Clock.of(time) for side in Side}
        self.overload_threshold = time.overload_threshold
        self.plies: list[Played] = []
        # The move `check` found legal and `play` has yet to play: side, line, move, as sent.
        self._pending: tuple[Side, str, Any, str] | None = None

    def start(self) -> Start:
        """What to tell each side first (blue moves first, or whoever is to move after the
        opening)."""
        mover = self.state.to_move
        *told, asked = first_lines(mover, self.opening)
        return Start(mover.other, first_lines(mover.other, self.opening), mover, told, asked)

    def ended(self) -> Verdict | None:
        """The rules' verdict on the position as it stands: after the opening, and after each
        move played (the game's own endings and its draw rules)."""
        outcome = self.game.outcome(self.state)
        if outcome is None:
            return None
        return Verdict(outcome.winner, outcome.reason, outcome.detail, None, outcome.ending)

    def answer(self, side: Side, line: str, elapsed: float) -> Forward | Verdict:
        """`side` answered `line` after `elapsed` seconds: its clock is charged, and the line
        is judged. A legal move is played and forwarded (whether it ended the game is asked
        with `ended`, once the move is on its way); any other line loses. (`check`, then
        `play` for a legal move.)"""
        judged = self.check(side, line)
        if isinstance(judged, Forward):
            self.play(elapsed)
        else:
            self.clocks[side].charge(elapsed)
        return judged

    def check(self, side: Side, line: str) -> Forward | Verdict:
        """`side`'s line judged, and nothing played yet: the move to forward, its canonical
        form for the opponent, left pending until `play`; or the verdict on a line that loses.
        The driver writes the move before it plays it, so that neither the position's update
        nor the clock is on the path from a bot's move to its opponent."""
        try:
            move = self.game.parse_move(self.state, line)
        except IllegalMove as exc:
            return Verdict(side.other, exc.reason_code, f"{side}: {exc.reason}", line)
        forwarded = self.game.format_move(move)
        self._pending = (side, line, move, forwarded)
        return Forward(side.other, forwarded)

    def play(self, elapsed: float) -> None:
        """The move `check` left pending is played, after `elapsed` seconds: the mover's
        clock is charged, the position moves on and the ply is kept."""
        if self._pending is None:
            return
        (side, line, move, forwarded), self._pending = self._pending, None
        self.clocks[side].charge(elapsed)
        self.state = self.game.apply(self.state, move)
        self.plies.append(Played(side, line, forwarded, elapsed))

    def waits_for_opponent(self, fault: BotFault) -> bool:
        """Whether `fault` may be one of two faults of a game one bot never started playing:
        any fault that does not void the game, while a side has yet to make its first move.
        Which of two failing programs the referee notices first is chance, so the opponent's
        own fault is waited for a moment (`fault`'s `theirs`)."""
        return len(self.plies) < len(SIDES) and not fault.reason.voids_game

    def unmoved(self) -> list[Side]:
        """The sides that have not made a move of their own yet (after an opening's moves)."""
        moved = {played.side for played in self.plies[: len(SIDES)]}  # the plies alternate
        return [side for side in Side if side not in moved]

    def fault(self, side: Side, fault: BotFault, theirs: BotFault | None = None) -> Verdict:
        """`side` loses for `fault` (unless it voids the game), or, while a side has yet to
        make its first move, when that side never started (its fault, `fault` or the
        opponent's `theirs`, a failure to start), neither wins: a bot that never started
        cannot win."""
        unmoved = self.unmoved()
        if theirs is not None and self.waits_for_opponent(fault):
            faults = {side: fault, side.other: theirs}
            if never_started(faults, unmoved):
                return neither_started(faults, unmoved)
        return fault_verdict(side, fault)

    def timed_out(self, side: Side, fault: BotFault, stall: float) -> BotFault:
        """The fault of `side`, which did not answer in time (`fault`: what its process
        showed), while the referee itself was stalled for up to `stall` seconds: the game is
        void if that stall could have caused it; a game clock that ran out is named."""
        if fault.reason is not Reason.TIMEOUT:
            return fault  # it ran into a limit and was stuck after that
        if stall > self.overload_threshold:
            return BotFault(
                Reason.REFEREE_OVERLOAD,
                f"timed out while the referee lagged {stall:.3f} s (threshold "
                f"{self.overload_threshold} s): void, to be replayed",
            )
        if self.clocks[side].game_clock:
            return BotFault(Reason.TIMEOUT, f"{fault.detail} (its game clock ran out)")
        return fault
