"""The perfect bots: fastest wins, longest defences, draws kept, and wins through the referee."""

from __future__ import annotations

import random
from pathlib import Path

from bots.clock import unlimited
from bots.perfect_bot import AlakPerfect, LGamePerfect
from bots.solvers.alak import solve as solve_alak
from bots.solvers.l_game import Value, arrangements, best_moves, solve
from protocols.alak.rules import GAME as ALAK
from protocols.alak.rules import start_position
from protocols.base import Reason, Side
from protocols.l_game.options import LGameOptions
from protocols.l_game.rules import GAME, NAMES, LGameState, coords, make_state, squares_of
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, resolve_command
from tests.games import play_game
from tests.scriptbots import script_bot

NO_DRAW_RULES = LGameOptions(repetition=0, ply_limit=0)


def longest_win() -> tuple[LGameState, int]:
    """A position with blue to move and the longest forced win in the table."""
    table = solve()
    mover, opponent, neutrals = max(
        (a for a in arrangements() if table.lookup(*a)[0] == Value.WIN),
        key=lambda a: table.lookup(*a)[1],
    )
    state = make_state(
        NAMES[mover],
        NAMES[opponent],
        [coords(s) for s in squares_of(neutrals)],
        Side.BLUE,
        options=NO_DRAW_RULES,
    )
    return state, table.lookup(mover, opponent, neutrals)[1]


def test_l_game_perfect_bot_wins_the_longest_win_by_the_fastest_route() -> None:
    state, distance = longest_win()
    assert distance > 5  # a real test of the route, not a one-move win
    bot = LGamePerfect(seed=1)
    defender = random.Random(2)
    plies = 0
    while GAME.outcome(state) is None:
        if state.to_move is Side.BLUE:
            move = bot.choose(state, unlimited())
        else:  # the best defence: every move that holds out longest
            move = defender.choice(best_moves(state))
        state = GAME.apply(state, move)
        plies += 1
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (Side.BLUE, Reason.NO_LEGAL_MOVE)
    assert plies == distance


def test_l_game_perfect_bot_wins_faster_against_a_random_defender() -> None:
    for seed in range(5):
        state, distance = longest_win()
        bot, defender = LGamePerfect(seed), random.Random(seed)
        plies = 0
        while GAME.outcome(state) is None:
            mover = bot.choose if state.to_move is Side.BLUE else None
            move = mover(state, unlimited()) if mover else defender.choice(GAME.legal_moves(state))
            state = GAME.apply(state, move)
            plies += 1
        outcome = GAME.outcome(state)
        assert outcome is not None and outcome.winner is Side.BLUE
        assert plies <= distance


def test_l_game_perfect_bot_in_a_lost_position_holds_out_longest() -> None:
    state, distance = longest_win()
    bots = {Side.BLUE: LGamePerfect(seed=3), Side.ORANGE: LGamePerfect(seed=4)}
    plies = 0
    while GAME.outcome(state) is None:
        move = bots[state.to_move].choose(state, unlimited())
        if state.to_move is Side.ORANGE:  # the loser: only the longest defences qualify
            assert move in best_moves(state)
        state = GAME.apply(state, move)
        plies += 1
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner is Side.BLUE
    assert plies == distance  # the loser delayed the end as long as the winner allowed


def test_l_game_perfect_bots_draw_from_the_start() -> None:
    state = GAME.initial_state()
    bots = {Side.BLUE: LGamePerfect(seed=4), Side.ORANGE: LGamePerfect(seed=5)}
    while GAME.outcome(state) is None:
        state = GAME.apply(state, bots[state.to_move].choose(state, unlimited()))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner is None


def test_alak_perfect_bots_reach_the_solved_result() -> None:
    for size in (5, 6, 7, 8):
        value, _ = solve_alak(size).lookup(0)
        state = start_position(size, repetition=3, ply_limit=0)
        bots = {side: AlakPerfect(size, seed) for seed, side in enumerate(Side)}
        while ALAK.outcome(state) is None:
            state = ALAK.apply(state, bots[state.to_move].choose(state, unlimited()))
        outcome = ALAK.outcome(state)
        assert outcome is not None
        expected = {Value.WIN: Side.BLUE, Value.DRAW: None, Value.LOSS: Side.ORANGE}[Value(value)]
        assert outcome.winner is expected, (size, outcome)


async def test_perfect_bot_punishes_a_losing_first_move_through_the_referee(
    tmp_path: Path,
) -> None:
    # '4 1 S' from the start lets orange leave blue's L without a placement (a win in 1).
    blunder = script_bot(
        tmp_path,
        "blunder",
        """
        assert hear() == "blue"
        say("4 1 S")
        while hear() not in ("END", ""):
            pass
        """,
    )
    perfect = resolve_command("builtin:perfect --seed 1", "l-game")
    settings = MatchSettings(startup_allowance=10.0, random_assignment=False)
    record = await play_game(
        "l-game",
        PlayerSpec(name="blunder", command=blunder),
        PlayerSpec(name="perfect", command=perfect),
        settings=settings,
    )
    assert record.result is not None
    result = record.result
    assert (result.winner, result.reason) == (Side.ORANGE, Reason.NO_LEGAL_MOVE), result.detail
    assert len(record.plies) == 2


async def test_perfect_bots_draw_the_l_game_through_the_referee(tmp_path: Path) -> None:
    settings = MatchSettings(startup_allowance=10.0, random_assignment=False)
    record = await play_game(
        "l-game",
        PlayerSpec(name="a", command=resolve_command("builtin:perfect --seed 1", "l-game")),
        PlayerSpec(name="b", command=resolve_command("builtin:search --seed 2", "l-game")),
        settings=settings,
    )
    assert record.result is not None
    assert record.result.winner is None
    assert record.result.reason in (Reason.REPETITION, Reason.PLY_LIMIT)
