"""The judge of a game, without processes or an event loop: random legal games and random bad
lines over every registered game (hypothesis), each verdict checked against what the rules
themselves say; the faults, the start failures and the timeouts' wording."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import game_names, get_game
from protocols.base import Game, IllegalMove, Reason, Side
from referee.exchange import BotFault
from referee.match.judge import Forward, Judge, Played, Verdict, first_lines
from referee.match.settings import TimeSettings

GAMES = game_names()
TIME = TimeSettings(move_timeout=1.0, grace=0.25, startup_allowance=2.0)
# What a bot could write on one line: any text without a line break.
LINE = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"), max_size=30)
MAX_PLIES = 2000


def judge_of(name: str, opening: list[str] | None = None) -> tuple[Game[Any, Any, Any], Judge]:
    game = get_game(name)
    return game, Judge(game, game.parse_options(None), opening or [], TIME)


def random_opening(game: Game[Any, Any, Any], rng: random.Random, plies: int) -> list[str]:
    """Up to `plies` random legal moves that do not end the game, as lines."""
    state = game.initial_state(None)
    lines: list[str] = []
    for _ in range(plies):
        moves = list(game.legal_moves(state))
        move = rng.choice(moves) if moves else None
        if move is None or game.outcome(after := game.apply(state, move)) is not None:
            break
        lines.append(game.format_move(move))
        state = after
    return lines


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), opening_plies=st.integers(0, 4))
def test_a_random_legal_game_is_forwarded_move_by_move_and_ends_as_the_rules_say(
    name: str, seed: int, opening_plies: int
) -> None:
    rng = random.Random(seed)
    game = get_game(name)
    opening = random_opening(game, rng, opening_plies)
    _, judge = judge_of(name, opening)
    start = judge.start()
    state = judge.state  # where the opening leads: the rules' own position
    assert start.mover is state.to_move and start.waiting is state.to_move.other
    assert [*start.told, start.asked] == first_lines(start.mover, opening)
    assert start.waiting_lines == first_lines(start.waiting, opening)
    for ply in range(1, MAX_PLIES):
        moves = list(game.legal_moves(state))
        line = game.format_move(rng.choice(moves))
        side = state.to_move
        judged = judge.answer(side, line, 0.5)
        move = game.parse_move(state, line)
        state = game.apply(state, move)
        outcome = game.outcome(state)
        assert judged == Forward(side.other, game.format_move(move))
        assert judge.plies[-1] == (side, line, game.format_move(move), 0.5)
        assert len(judge.plies) == ply
        if outcome is None:
            assert judge.ended() is None
            continue
        assert judge.ended() == Verdict(
            outcome.winner, outcome.reason, outcome.detail, None, outcome.ending
        )
        return
    pytest.fail(f"{name}: no ending within {MAX_PLIES} plies")


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 30), line=LINE)
def test_any_line_gets_the_verdict_the_rules_give_it(
    name: str, seed: int, plies: int, line: str
) -> None:
    rng = random.Random(seed)
    game, judge = judge_of(name)
    for _ in range(plies):  # a random legal game to some point, judged as it goes
        moves = list(game.legal_moves(judge.state))
        if not moves or game.outcome(judge.state) is not None:
            break  # the game ended: a line now is judged by the rules all the same
        judge.answer(judge.state.to_move, game.format_move(rng.choice(moves)), 0.0)
    before, side, played = judge.state, judge.state.to_move, len(judge.plies)
    judged = judge.answer(side, line, 0.0)
    try:
        move = game.parse_move(before, line)
    except IllegalMove as exc:
        assert judged == Verdict(side.other, exc.reason_code, f"{side}: {exc.reason}", line)
        assert len(judge.plies) == played and judge.state is before  # nothing was played
        assert judged.reason in (Reason.ILLEGAL_MOVE, Reason.BAD_SYNTAX)
        return
    after = game.apply(before, move)
    assert len(judge.plies) == played + 1
    assert judged == Forward(side.other, game.format_move(move))
    assert (judge.ended() is None) == (game.outcome(after) is None)


def test_a_fault_loses_unless_it_voids_the_game() -> None:
    _, judge = judge_of("tic-tac-toe")
    fault = BotFault(Reason.OUT_OF_TURN, "wrote a line when it was not its turn", "x")
    assert judge.fault(Side.BLUE, fault) == Verdict(
        Side.ORANGE, Reason.OUT_OF_TURN, "blue: wrote a line when it was not its turn", "x"
    )
    void = BotFault(Reason.REFEREE_OVERLOAD, "timed out while the referee lagged")
    assert judge.fault(Side.ORANGE, void).winner is None


def test_two_bots_that_could_not_start_are_one_verdict_only_before_any_move() -> None:
    game, judge = judge_of("tic-tac-toe")
    blue = BotFault(Reason.CRASH, "closed its output: exited with code 127")
    orange = BotFault(Reason.RESOURCE_LIMIT, "hit the memory limit (1024 MB)")
    assert judge.waits_for_opponent(blue)
    assert judge.fault(Side.ORANGE, orange, blue) == Verdict(
        None,
        Reason.CRASH,
        "neither player could start (blue: closed its output: exited with code 127; "
        "orange: hit the memory limit (1024 MB))",
    )
    # No failure of the opponent's own: the crash loses.
    assert judge.fault(Side.BLUE, blue, None).winner is Side.ORANGE
    # A bot that never started cannot win: any fault of its opponent before any move (here a
    # line out of turn) is a game neither started playing, whichever was noticed first.
    early = BotFault(Reason.OUT_OF_TURN, "wrote a line when it was not its turn", "x")
    neither = Verdict(
        None,
        Reason.CRASH,
        "neither player started playing (blue: closed its output: exited with code 127; "
        "orange: wrote a line when it was not its turn)",
    )
    assert judge.waits_for_opponent(early)
    assert judge.fault(Side.BLUE, blue, early) == neither
    assert judge.fault(Side.ORANGE, early, blue) == neither
    # Two faults of bots that both started (neither a failure to start): the one judged loses.
    assert judge.fault(Side.ORANGE, early, early).winner is Side.BLUE
    # After blue's first move, orange has yet to move: orange failing to start and blue failing
    # after its move is still a game orange never started, whichever was noticed first.
    move = game.format_move(next(iter(game.legal_moves(judge.state))))
    assert isinstance(judge.answer(Side.BLUE, move, 0.1), Forward)
    assert judge.unmoved() == [Side.ORANGE]
    assert judge.waits_for_opponent(orange) and judge.waits_for_opponent(blue)
    never_moved = Verdict(
        None,
        Reason.CRASH,
        "neither wins: orange never made a move (blue: closed its output: exited with code "
        "127; orange: hit the memory limit (1024 MB))",
    )
    assert judge.fault(Side.ORANGE, orange, blue) == never_moved
    assert judge.fault(Side.BLUE, blue, orange) == never_moved
    # Blue's crash is no failure to start (it moved): against orange's line out of turn, the
    # fault judged loses, as between any two bots that started.
    assert judge.fault(Side.BLUE, blue, early).winner is Side.ORANGE
    assert judge.fault(Side.ORANGE, early, blue).winner is Side.BLUE
    # Once both have moved, a crash is a crash, whatever the other did.
    reply = game.format_move(next(iter(game.legal_moves(judge.state))))
    assert isinstance(judge.answer(Side.ORANGE, reply, 0.1), Forward)
    assert judge.unmoved() == [] and not judge.waits_for_opponent(orange)
    assert judge.fault(Side.ORANGE, orange, blue).winner is Side.BLUE


def test_a_timeout_is_void_when_the_referee_lagged_more_than_the_threshold() -> None:
    _, judge = judge_of("tic-tac-toe")
    late = BotFault(Reason.TIMEOUT, "no complete line within the time limit")
    assert judge.timed_out(Side.BLUE, late, 0.25) is late  # at the threshold: still a timeout
    void = judge.timed_out(Side.BLUE, late, 0.375)
    assert void.reason is Reason.REFEREE_OVERLOAD
    assert void.detail == (
        "timed out while the referee lagged 0.375 s (threshold 0.25 s): void, to be replayed"
    )
    stuck = BotFault(Reason.RESOURCE_LIMIT, "hit the memory limit (1024 MB), then wrote ...")
    assert judge.timed_out(Side.BLUE, stuck, 5.0) is stuck  # a limit is never the referee's lag


def test_a_timeout_on_a_game_clock_says_the_clock_ran_out() -> None:
    game = get_game("tic-tac-toe")
    judge = Judge(game, game.parse_options(None), [], TIME.model_copy(update={"clock_total": 1.0}))
    late = BotFault(Reason.TIMEOUT, "no complete line within the time limit")
    assert judge.timed_out(Side.BLUE, late, 0.0).detail == (
        "no complete line within the time limit (its game clock ran out)"
    )


def test_each_answer_is_charged_to_its_sides_clock() -> None:
    game = get_game("tic-tac-toe")
    judge = Judge(game, game.parse_options(None), [], TIME.model_copy(update={"clock_total": 8.0}))
    assert judge.clocks[Side.BLUE].deadline(10.0) == 10.0 + 8.0 + 0.25 + 2.0
    judge.answer(Side.BLUE, game.format_move(next(iter(game.legal_moves(judge.state)))), 3.0)
    assert judge.clocks[Side.BLUE].remaining == 7.0  # 1.0 beyond the start-up allowance
    assert judge.clocks[Side.ORANGE].remaining == 8.0
    judge.answer(Side.ORANGE, "no such move", 0.5)  # charged, then lost
    assert judge.clocks[Side.ORANGE].remaining == 8.0  # inside its own allowance


def test_a_move_checked_is_played_only_when_told() -> None:
    """The driver writes a move before it plays it: `check` judges the line and changes
    nothing; `play` charges the clock, moves the position on and keeps the ply; `answer` is
    both, and gives the same."""
    game = get_game("lasker-morris")
    checked = Judge(
        game, game.parse_options({}), (), TimeSettings(clock_total=10.0, startup_allowance=0.5)
    )
    answered = Judge(
        game, game.parse_options({}), (), TimeSettings(clock_total=10.0, startup_allowance=0.5)
    )
    before = checked.state
    judged = checked.check(Side.BLUE, "h1 d1 r0")
    assert judged == Forward(Side.ORANGE, "h1 d1 r0")
    assert checked.state is before and checked.plies == [] and checked.clocks[Side.BLUE].moves == 0
    checked.play(2.0)
    assert answered.answer(Side.BLUE, "h1 d1 r0", 2.0) == judged
    for judge in (checked, answered):
        assert judge.state.to_move is Side.ORANGE
        assert judge.plies == [Played(Side.BLUE, "h1 d1 r0", "h1 d1 r0", 2.0)]
        assert judge.clocks[Side.BLUE].remaining == answered.clocks[Side.BLUE].remaining < 10.0
    checked.play(1.0)  # nothing pending: nothing happens
    assert len(checked.plies) == 1
