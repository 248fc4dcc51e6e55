"""Rules of Legionnaires: move generation, move parsing, endings, options, Boardman's numbers."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from bots.solvers.legionnaires import reachable_positions
from protocols.base import BadSyntax, IllegalMove, Reason, Side
from protocols.legionnaires.options import LegionnairesOptions
from protocols.legionnaires.rules import GAME, LegionnairesState, Move, position
from scripts.perft import perft

ROOT = Path(__file__).resolve().parents[2]


def lines(state: LegionnairesState) -> list[str]:
    return [GAME.format_move(m) for m in GAME.legal_moves(state)]


def play(*moves: str) -> LegionnairesState:
    state = GAME.initial_state(None)
    for line in moves:
        state = GAME.apply(state, GAME.parse_move(state, line))
    return state


def reference_moves(state: LegionnairesState) -> set[str]:
    """The rules read literally, on coordinates: an independent check of the bitboard code."""
    width, height = state.board.width, state.board.height
    blue = set(GAME.state_json(state)["pawns"]["blue"])
    orange = set(GAME.state_json(state)["pawns"]["orange"])
    own, enemy = (blue, orange) if state.to_move is Side.BLUE else (orange, blue)

    def name(x: int, y: int) -> str:
        return f"{chr(97 + x)}{y + 1}"

    found = set()
    for src in own:
        x0, y0 = ord(src[0]) - 97, int(src[1:]) - 1
        for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            x, y = x0 + dx, y0 + dy
            while 0 <= x < width and 0 <= y < height and name(x, y) not in own | enemy:
                for ex in (-1, 0, 1):
                    for ey in (-1, 0, 1):
                        if name(x + ex, y + ey) in enemy and (ex or ey):
                            found.add(f"{src} {name(x + ex, y + ey)}")
                x, y = x + dx, y + dy
    return found


def random_position(rng: random.Random) -> LegionnairesState:
    width, height = rng.randint(2, 9), rng.randint(2, 9)
    squares = [f"{chr(97 + x)}{y + 1}" for x in range(width) for y in range(height)]
    chosen = rng.sample(squares, rng.randint(2, len(squares)))
    cut = rng.randint(1, len(chosen) - 1)
    side = rng.choice([Side.BLUE, Side.ORANGE])
    return position(chosen[:cut], chosen[cut:], to_move=side, width=width, height=height)


# The 8x8 start and the paper's opening.


def test_start_has_24_distinct_moves() -> None:
    moves = GAME.legal_moves(GAME.initial_state(None))
    assert len(moves) == 24
    assert len(set(moves)) == 24
    assert len({GAME.format_move(m) for m in moves}) == 24


def test_perft_depth_2_and_3() -> None:
    start = GAME.initial_state(None)
    assert perft(GAME, start, 2) == 482
    assert perft(GAME, start, 3) == 8_601


def test_paper_opening_and_long_slide_are_legal() -> None:
    start = GAME.initial_state(None)
    assert GAME.parse_move(start, "e6 g3") == Move("e6", "g3")
    assert GAME.parse_move(start, "a6 e1") == Move("a6", "e1")
    assert {"e6 g3", "a6 e1"} <= set(lines(start))


@pytest.mark.parametrize("line", ["e6 e5", "e6 f5"])
def test_moves_without_capture_are_illegal(line: str) -> None:
    with pytest.raises(IllegalMove) as info:
        GAME.parse_move(GAME.initial_state(None), line)
    assert not isinstance(info.value, BadSyntax)
    assert "capture" in info.value.reason


def test_after_e6_g3_only_a3_c3_e3_can_move() -> None:
    state = play("e6 g3")
    assert state.to_move is Side.ORANGE
    assert {m.frm for m in GAME.legal_moves(state)} == {"a3", "c3", "e3"}
    for blocked in ("f2", "h2"):
        for target in GAME.state_json(state)["pawns"]["blue"]:
            with pytest.raises(IllegalMove):
                GAME.parse_move(state, f"{blocked} {target}")


# Boardman's small boards.


@pytest.mark.parametrize(
    ("width", "height", "white", "black", "count"),
    [
        (2, 2, "a1", "a2", 3),
        (3, 2, "a1 c1", "a2 c2", 35),
        (3, 3, "a1 c1", "a3 c3", 35),
        (4, 4, "a1 c1 b2 d2", "a4 c4 b3 d3", 982),
        (5, 5, "a1 c1 e1 b2 d2 a3", "e5 c5 a5 d4 b4 e3", 14_789),
    ],
)
def test_reachable_positions_match_the_paper(
    width: int, height: int, white: str, black: str, count: int
) -> None:
    options = LegionnairesOptions(width=width, height=height, blue=white, orange=black)
    assert reachable_positions(options) == count


def test_positions_script_reproduces_the_table() -> None:
    script = ROOT / "scripts" / "legionnaires_positions.py"
    result = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" ok ") == 5


def test_3x3_walk_through_after_blacks_first_capture() -> None:
    """Black (orange) captures first; then each side has exactly two moves."""
    start = position(["a1", "c1"], ["a3", "c3"], to_move=Side.ORANGE, width=3, height=3)
    firsts = GAME.legal_moves(start)
    assert {GAME.format_move(m) for m in firsts} == {"a3 a1", "a3 c1", "c3 a1", "c3 c1"}
    for move in firsts:
        after = GAME.apply(start, move)
        assert after.to_move is Side.BLUE
        assert len(GAME.legal_moves(after)) == 2
        assert len(GAME.legal_moves(replace(after, to_move=Side.ORANGE))) == 2


# Move generation against the literal rules.


def test_generator_matches_reference_on_random_positions() -> None:
    rng = random.Random(20240611)
    for _ in range(400):
        state = random_position(rng)
        moves = GAME.legal_moves(state)
        assert len(set(moves)) == len(moves), "a move listed twice"
        assert set(lines(state)) == reference_moves(state)


def test_parser_accepts_exactly_the_legal_moves() -> None:
    rng = random.Random(7)
    for _ in range(40):
        state = random_position(rng)
        if GAME.outcome(state) is not None:
            continue
        legal = set(lines(state))
        names = GAME.state_json(state)["pawns"]["blue"] + GAME.state_json(state)["pawns"]["orange"]
        for frm in names:
            for to in names:
                line = f"{frm} {to}"
                if line in legal:
                    assert GAME.format_move(GAME.parse_move(state, line)) == line
                else:
                    with pytest.raises(IllegalMove) as info:
                        GAME.parse_move(state, line)
                    assert type(info.value) is IllegalMove and info.value.reason


def test_several_slides_to_one_capture_give_one_move() -> None:
    # a1-b2 and a1-b2-c3 both stop next to c2.
    assert lines(position(["a1"], ["c2", "a8"])) == ["a1 c2"]
    # d4-c5 and d4-e5 (two directions) both stop next to d6.
    assert lines(position(["d4"], ["d6"])) == ["d4 d6"]


def test_slide_is_blocked_by_any_pawn_and_the_edge() -> None:
    # The own pawn on b2 blocks a1's only diagonal (b2 itself can reach h8).
    state = position(["a1", "b2"], ["h8"])
    assert not any(m.frm == "a1" for m in GAME.legal_moves(state))
    # An enemy pawn blocks too: a1 cannot slide past c3 to capture next to d4 or beyond.
    state = position(["a1"], ["c3", "e6"])
    assert lines(state) == ["a1 c3"]


def test_capture_next_to_the_start_needs_a_slide() -> None:
    # a1 cannot slide at all (b2 is taken), so the adjacent a2 is out of reach.
    state = position(["a1", "h8"], ["a2", "b2"])
    assert "a1 a2" not in lines(state)
    with pytest.raises(IllegalMove, match="slide diagonally before capturing"):
        GAME.parse_move(state, "a1 a2")


def test_capture_beside_the_vacated_start_square() -> None:
    # b2 slides to c3 and captures b3, right next to the square it left.
    state = position(["b2"], ["b3", "a1"], width=3, height=3)
    assert "b2 b3" in lines(state)
    after = GAME.apply(state, Move("b2", "b3"))
    assert GAME.state_json(after)["pawns"] == {"blue": ["b3"], "orange": ["a1"]}


# Applying moves and endings.


def test_apply_moves_the_pawn_onto_the_captured_square() -> None:
    start = GAME.initial_state(None)
    after = GAME.apply(start, Move("e6", "g3"))
    pawns = GAME.state_json(after)["pawns"]
    assert "g3" in pawns["blue"] and "e6" not in pawns["blue"]
    assert "g3" not in pawns["orange"]
    assert (len(pawns["blue"]), len(pawns["orange"])) == (12, 11)
    assert (after.to_move, after.ply) == (Side.ORANGE, 1)
    assert GAME.state_json(start)["pawns"]["blue"][2] == "e6", "apply changed its input"


def test_player_without_a_move_loses() -> None:
    state = position(["a1"], ["a8"], to_move=Side.ORANGE)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (Side.BLUE, Reason.NO_LEGAL_MOVE)
    assert "orange" in outcome.detail
    assert GAME.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        GAME.parse_move(state, "a8 a1")


def test_capturing_the_last_pawn_wins() -> None:
    state = position(["a1"], ["c2"], width=3, height=3)
    assert GAME.outcome(state) is None
    after = GAME.apply(state, GAME.parse_move(state, "a1 c2"))
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.winner is Side.BLUE
    assert outcome.reason is Reason.NO_LEGAL_MOVE


def test_random_games_end_within_23_plies() -> None:
    rng = random.Random(3)
    for _ in range(200):
        state = GAME.initial_state(None)
        while GAME.outcome(state) is None:
            state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
        assert state.ply <= 23


# Wire syntax.


@pytest.mark.parametrize("line", ["", " \r", "e6", "e6 g3 g4", "E6 g3", "e6 i1", "e9 g3", "e06 g3"])
def test_malformed_lines_are_bad_syntax(line: str) -> None:
    with pytest.raises(BadSyntax) as info:
        GAME.parse_move(GAME.initial_state(None), line)
    assert info.value.reason


def test_sloppy_spacing_and_cr_are_accepted() -> None:
    assert GAME.parse_move(GAME.initial_state(None), "\te6   g3 \r") == Move("e6", "g3")


def test_wrong_owner_and_own_target_are_illegal() -> None:
    start = GAME.initial_state(None)
    with pytest.raises(IllegalMove, match="own pawns"):
        GAME.parse_move(start, "a3 c6")  # orange's pawn, blue to move
    with pytest.raises(IllegalMove, match="own pawn"):
        GAME.parse_move(start, "a6 b7")


def test_squares_beyond_rank_9_on_tall_boards() -> None:
    state = position(["a12"], ["c10"], width=3, height=12)
    assert lines(state) == ["a12 c10"]
    with pytest.raises(BadSyntax):
        GAME.parse_move(state, "a13 c10")


# Options and views.


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"width": 1}, "greater than or equal to 2"),
        ({"height": 27}, "less than or equal to 26"),
        ({"width": 5, "height": 5}, "explicit start"),
        ({"blue": "a1"}, "both"),
        ({"blue": "a1 z1", "orange": "b2"}, "not a square"),
        ({"blue": "a1 a1", "orange": "b2"}, "twice"),
        ({"blue": "a1 b2", "orange": "b2"}, "both have a pawn on b2"),
        ({"blue": [], "orange": "b2"}, "at least one pawn"),
        ({"colour": "blue"}, "Extra inputs"),
    ],
)
def test_bad_options_are_rejected(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        GAME.parse_options(raw)


def test_options_accept_lists_or_strings_and_round_trip() -> None:
    from_string = GAME.parse_options({"width": 3, "height": 2, "blue": "a1, c1", "orange": "a2 c2"})
    from_list = GAME.parse_options(
        {"width": 3, "height": 2, "blue": ["a1", "c1"], "orange": ["a2", "c2"]}
    )
    assert from_string == from_list
    assert GAME.parse_options(from_list.model_dump(mode="json")) == from_list
    state = GAME.initial_state(from_list)
    assert GAME.state_json(state) == {
        "to_move": "blue",
        "ply": 0,
        "width": 3,
        "height": 2,
        "pawns": {"blue": ["a1", "c1"], "orange": ["a2", "c2"]},
    }


def test_render_text_draws_ranks_top_down() -> None:
    text = GAME.render_text(GAME.initial_state(None))
    rows = text.splitlines()
    assert rows[0].split() == list("abcdefgh")
    assert rows[1].split() == ["8", "B", ".", "B", ".", "B", ".", "B", ".", "8"]
    assert rows[8].split() == ["1", "O", ".", "O", ".", "O", ".", "O", ".", "1"]
    assert "blue to move" in text
