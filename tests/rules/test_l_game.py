"""The L game: move names, the start, legality, endings, options, and the retrograde solver."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from bots.solvers.l_game import (
    Value,
    arrangements,
    best_move,
    best_moves,
    canonical,
    solve,
    summarize,
    symmetric_images,
)
from protocols import get_game
from protocols.base import BadSyntax, IllegalMove, Reason, Side
from protocols.l_game.options import LGameOptions
from protocols.l_game.rules import (
    GAME,
    MASKS,
    PLACEMENT_OF_NAME,
    LGameState,
    Move,
    coords,
    make_state,
)

ROOT = Path(__file__).resolve().parents[2]
Cell = tuple[int, int]
COMPASS: dict[str, Cell] = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
NO_DRAW_RULES = LGameOptions(repetition=0, ply_limit=0)


def on_board(x: int, y: int) -> bool:
    return 1 <= x <= 4 and 1 <= y <= 4


def all_l_placements() -> set[frozenset[Cell]]:
    """Every L tetromino on the board, from its shape turned and flipped (not from names)."""
    shape = [(0, 0), (0, 1), (0, 2), (1, 2)]
    found: set[frozenset[Cell]] = set()
    for swap in (False, True):
        for sx in (1, -1):
            for sy in (1, -1):
                cells = [((b, a) if swap else (a, b)) for a, b in shape]
                cells = [(sx * a, sy * b) for a, b in cells]
                for dx in range(-4, 5):
                    for dy in range(-4, 5):
                        moved = frozenset((a + dx, b + dy) for a, b in cells)
                        if all(on_board(*c) for c in moved):
                            found.add(moved)
    return found


def covered(name: str) -> frozenset[Cell]:
    """The squares an L name covers, read through the game's own state_json."""
    for other in ("1 1 E", "4 4 N", "4 1 W"):  # every L misses one of these
        try:
            state = make_state(name, other, free_neutrals(name, other))
        except ValueError:
            continue
        return frozenset((x, y) for x, y in GAME.state_json(state)["blue"])
    raise AssertionError(f"no room for another L beside {name}")


def free_neutrals(*names: str) -> list[Cell]:
    """Two squares left free by the named placements (a helper to build test positions)."""
    used = 0
    for name in names:
        used |= MASKS[PLACEMENT_OF_NAME[name]]
    return [coords(s) for s in range(16) if not used >> s & 1][:2]


def all_names() -> list[str]:
    return [f"{x} {y} {d}" for y in range(1, 5) for x in range(1, 5) for d in "NESW"]


# --- names -------------------------------------------------------------------------------------


def test_every_name_has_exactly_one_fitting_leg() -> None:
    """Whenever the foot is on the board, exactly one perpendicular leg fits (spec's claim)."""
    for x in range(1, 5):
        for y in range(1, 5):
            for dx, dy in COMPASS.values():
                if not on_board(x + dx, y + dy):
                    continue
                legs = [(-dy, dx), (dy, -dx)]
                fits = [(lx, ly) for lx, ly in legs if on_board(x + 2 * lx, y + 2 * ly)]
                assert len(fits) == 1, (x, y, dx, dy)


def test_48_placements_have_distinct_names() -> None:
    """The 48 names with the foot on the board name the 48 L placements, one each."""
    names = [n for n in all_names() if on_board(*_foot(n))]
    assert len(names) == 48
    decoded = {name: covered(name) for name in names}
    assert len(set(decoded.values())) == 48
    assert set(decoded.values()) == all_l_placements()
    for name, cells in decoded.items():
        x, y, _ = name.split()
        assert (int(x), int(y)) in cells and _foot(name) in cells


def _foot(name: str) -> Cell:
    x, y, d = name.split()
    return int(x) + COMPASS[d][0], int(y) + COMPASS[d][1]


def test_names_with_the_foot_off_the_board_are_bad_syntax() -> None:
    start = GAME.initial_state()
    for name in all_names():
        if not on_board(*_foot(name)):
            with pytest.raises(BadSyntax):
                GAME.parse_move(start, name)


def test_spec_name_examples_decode_as_written() -> None:
    assert covered("1 1 E") == {(1, 1), (2, 1), (1, 2), (1, 3)}
    assert covered("4 4 N") == {(4, 4), (4, 3), (3, 4), (2, 4)}
    assert covered("3 1 W") == {(2, 1), (3, 1), (3, 2), (3, 3)}
    assert covered("2 4 E") == {(2, 2), (2, 3), (2, 4), (3, 4)}


def test_spec_example_with_a_neutral_move() -> None:
    """`1 2 E 4 3 1 1`: the L reuses (1,2) and (1,3); the neutral goes to the vacated (1,1)."""
    state = make_state("1 1 E", "3 1 E", [(4, 3), (4, 4)])
    move = GAME.parse_move(state, "1 2 E 4 3 1 1")
    after = GAME.state_json(GAME.apply(state, move))
    assert sorted(map(tuple, after["blue"])) == sorted([(1, 2), (2, 2), (1, 3), (1, 4)])
    assert sorted(map(tuple, after["neutrals"])) == [(1, 1), (4, 4)]
    assert after["blue_name"] == "1 2 E" and after["to_move"] == "orange"


# --- the start ---------------------------------------------------------------------------------


def test_start_position_matches_the_spec() -> None:
    view = GAME.state_json(GAME.initial_state())
    assert view["to_move"] == "blue" and view["ply"] == 0
    assert set(map(tuple, view["blue"])) == {(2, 1), (3, 1), (3, 2), (3, 3)}
    assert set(map(tuple, view["orange"])) == {(2, 2), (2, 3), (2, 4), (3, 4)}
    assert set(map(tuple, view["neutrals"])) == {(1, 1), (4, 4)}
    assert (view["blue_name"], view["orange_name"]) == ("3 1 W", "2 4 E")


def test_65_legal_first_moves() -> None:
    """65 counts the distinct legal move lines at the start, which are also the distinct positions
    blue can reach: blue's L has 5 new placements (the 10 squares not held by orange or a neutral
    hold 6 L placements, one of them the current one), and after each placement blue either
    leaves the neutrals alone or moves one of the 2 neutrals to one of the 6 empty squares:
    5 * (1 + 2 * 6) = 65."""
    start = GAME.initial_state()
    moves = GAME.legal_moves(start)
    assert len(moves) == 65
    assert len({GAME.format_move(m) for m in moves}) == 65
    assert len({(GAME.apply(start, m).blue, GAME.apply(start, m).neutrals) for m in moves}) == 65
    placements = {GAME.format_move(m)[:5] for m in moves}
    assert placements == {"3 1 E", "3 3 E", "4 1 S", "4 1 W", "4 3 W"}
    for name in placements:  # check each against the squares left free by the spec's start
        free = {(x, y) for x in range(1, 5) for y in range(1, 5)}
        free -= {(2, 2), (2, 3), (2, 4), (3, 4), (1, 1), (4, 4)}
        assert covered(name) <= free


def test_neutral_may_go_to_a_square_the_l_left() -> None:
    start = GAME.initial_state()
    move = GAME.parse_move(start, "3 1 E 1 1 2 1")
    assert move in GAME.legal_moves(start)
    with pytest.raises(IllegalMove) as info:
        GAME.parse_move(start, "3 1 E 1 1 1 1")
    assert not isinstance(info.value, BadSyntax)
    assert "different square" in info.value.reason


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("3 1 W", "different placement"),
        ("2 2 N", "overlap orange's L"),
        ("1 1 E", "cover a neutral"),
        ("3 1 E 2 1 1 2", "no neutral piece on (2,1)"),
        ("3 1 E 1 1 4 1", "covered by the L just placed"),
        ("3 1 E 1 1 2 2", "covered by orange's L"),
        ("3 1 E 1 1 4 4", "other neutral"),
    ],
)
def test_illegal_moves_say_why(line: str, words: str) -> None:
    with pytest.raises(IllegalMove) as info:
        GAME.parse_move(GAME.initial_state(), line)
    assert not isinstance(info.value, BadSyntax)
    assert words in info.value.reason


@pytest.mark.parametrize(
    "line", ["", "3 1", "3 1 E 1 1", "3 1 e", "5 1 E", "0 1 E", "3 1 E 1 1 2 9", "a b c", "4 1 E"]
)
def test_malformed_lines_are_bad_syntax(line: str) -> None:
    with pytest.raises(BadSyntax) as info:
        GAME.parse_move(GAME.initial_state(), line)
    assert info.value.reason


def test_registry_and_alias() -> None:
    assert get_game("lgame") is GAME and get_game("l-game") is GAME


# --- endings -----------------------------------------------------------------------------------

# Blue's L on 1 1 E, orange's on 2 2 E, neutrals on (3,1) and (4,2): every other placement of
# blue's L would cover orange's L, a neutral, or stand partly off the board.
#    1 2 3 4
# 1  B B N .
# 2  B O O N
# 3  B O . .
# 4  . O . .
STUCK = ("1 1 E", "2 2 E", [(3, 1), (4, 2)])


def test_player_who_cannot_move_the_l_loses() -> None:
    state = make_state(*STUCK)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (Side.ORANGE, Reason.NO_LEGAL_MOVE)
    assert GAME.legal_moves(state) == ()
    with pytest.raises(IllegalMove, match="over"):
        GAME.parse_move(state, "1 4 N")
    # The same arrangement with orange to move is not over.
    assert GAME.outcome(make_state(*STUCK, to_move=Side.ORANGE)) is None


def test_being_stuck_comes_before_the_ply_limit() -> None:
    outcome = GAME.outcome(make_state(*STUCK, ply=100))
    assert outcome is not None and outcome.reason is Reason.NO_LEGAL_MOVE


def play(state: LGameState, lines: list[str]) -> LGameState:
    for line in lines:
        state = GAME.apply(state, GAME.parse_move(state, line))
    return state


CYCLE = ["3 1 E", "1 4 E", "3 1 W", "2 4 E"]  # back to the start position after 4 plies


def test_third_occurrence_is_a_draw() -> None:
    start = GAME.initial_state()
    twice = play(start, CYCLE)
    assert twice.history[-1] == start.history[-1] and GAME.outcome(twice) is None
    thrice = play(twice, CYCLE[:3])
    assert GAME.outcome(thrice) is None
    thrice = play(thrice, CYCLE[3:])
    outcome = GAME.outcome(thrice)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, thrice.ply) == (None, Reason.REPETITION, 8)
    assert GAME.legal_moves(thrice) == ()
    assert GAME.outcome(play(GAME.initial_state(NO_DRAW_RULES), CYCLE * 2)) is None
    four = LGameOptions(repetition=4, ply_limit=0)
    assert GAME.outcome(play(GAME.initial_state(four), CYCLE * 2)) is None


def test_draw_after_100_plies() -> None:
    state = GAME.initial_state(LGameOptions(repetition=0))
    state = play(state, CYCLE * 24 + CYCLE[:3])
    assert state.ply == 99 and GAME.outcome(state) is None
    state = play(state, CYCLE[3:])
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winner, outcome.reason) == (None, Reason.PLY_LIMIT)
    unlimited = GAME.initial_state(NO_DRAW_RULES)
    assert GAME.outcome(play(unlimited, CYCLE * 26)) is None


def test_options_are_validated() -> None:
    assert GAME.parse_options(None) == LGameOptions(repetition=3, ply_limit=100)
    for bad in ({"repetition": 1}, {"repetition": -1}, {"ply_limit": -5}, {"plies": 10}):
        with pytest.raises(ValidationError):
            GAME.parse_options(bad)


def test_make_state_rejects_overlaps() -> None:
    with pytest.raises(ValueError):
        make_state("3 1 W", "3 1 W")
    with pytest.raises(ValueError):
        make_state("3 1 W", "2 4 E", [(2, 1), (4, 4)])
    with pytest.raises(ValueError):
        make_state("3 1 W", "2 4 E", [(4, 4), (4, 4)])


def test_render_text_shows_the_grid() -> None:
    lines = GAME.render_text(GAME.initial_state()).splitlines()
    assert lines[0].split() == ["1", "2", "3", "4"]
    assert lines[1].split() == ["1", "N", "B", "B", "."]
    assert lines[4].split() == ["4", ".", "O", "O", "N"]
    assert "blue" in lines[-1]


def test_moves_round_trip_in_order() -> None:
    state = make_state("1 1 E", "3 1 E", [(4, 3), (4, 4)])
    moves = GAME.legal_moves(state)
    assert len(set(moves)) == len(moves)
    for move in moves:
        assert GAME.parse_move(state, GAME.format_move(move)) == move
    assert Move(moves[0].placement) == moves[0]  # the L-only move comes first


# --- the solver --------------------------------------------------------------------------------


def test_solver_reproduces_the_published_analysis() -> None:
    summary = summarize(solve())
    assert summary.arrangements == 18_368
    assert summary.classes == 2_296
    assert summary.stuck == 15
    assert summary.forced_losses == 14
    assert summary.wins + summary.draws == 2_267
    assert (summary.wins, summary.draws) == (1_006, 1_261)
    assert solve().of_state(GAME.initial_state()) == (Value.DRAW, 0)


def test_solver_script_prints_the_analysis() -> None:
    result = subprocess.run(
        [sys.executable, "scripts/solve_lgame.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    for text in ("18,368", "2,296", "stuck (lost at once): 15", "by force: 14", "1,006", "1,261"):
        assert text in result.stdout
    assert "value for blue: draw" in result.stdout


def test_solver_values_are_the_same_under_symmetry() -> None:
    table = solve()
    for arrangement in arrangements():
        images = symmetric_images(*arrangement)
        assert len(set(images)) == 8  # no arrangement is symmetric
        assert len({table.lookup(*image) for image in images}) == 1


@pytest.mark.slow
def test_solver_agrees_with_the_rules_everywhere() -> None:
    """Each arrangement's value and distance obey the game equations over the rule module's moves:
    a loss in d has only moves to wins, the slowest in d - 1 (d = 0: no move); a win in d has a
    move to a loss in d - 1 and none to a shorter loss; a draw has no move to a loss and some move
    to a draw."""
    table = solve()
    for mover, opponent, neutrals in arrangements():
        state = LGameState(Side.BLUE, 0, mover, opponent, neutrals, (0,), 0, 0)
        value, distance = table.of_state(state)
        after = [table.of_state(GAME.apply(state, m)) for m in GAME.legal_moves(state)]
        losses = [d for v, d in after if v == Value.LOSS]
        if value == Value.LOSS:
            assert all(v == Value.WIN for v, _ in after)
            assert distance == (1 + max(d for _, d in after) if after else 0)
        elif value == Value.WIN:
            assert losses and distance == 1 + min(losses)
        else:
            assert not losses and any(v == Value.DRAW for v, _ in after)


def test_perfect_play_realises_the_distances() -> None:
    """From one arrangement of each won or lost class, best play on both sides ends the game
    with the predicted winner after exactly the predicted number of plies."""
    table = solve()
    seen: set[int] = set()
    for arrangement in arrangements():
        key = canonical(*arrangement)
        value, distance = table.lookup(*arrangement)
        if key in seen or value == Value.DRAW:
            continue
        seen.add(key)
        state = LGameState(Side.BLUE, 0, *arrangement, (0,), 0, 0)
        while GAME.outcome(state) is None:
            state = GAME.apply(state, best_move(state, table))
        outcome = GAME.outcome(state)
        assert outcome is not None and state.ply == distance
        assert outcome.winner is (Side.BLUE if value == Value.WIN else Side.ORANGE)
    assert len(seen) == 15 + 14 + 1_006


def test_perfect_play_from_the_start_keeps_the_draw() -> None:
    state = GAME.initial_state()
    table = solve()
    while GAME.outcome(state) is None:
        assert table.of_state(state)[0] == Value.DRAW
        state = GAME.apply(state, best_move(state, table))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner is None
    assert best_moves(state) == []
