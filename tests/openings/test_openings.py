"""Openings: legal, undecided, deterministic for a seed, the same for both games of a pair; a
record that starts from one verifies, and one whose opening is illegal does not."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import pytest

from protocols import get_game
from protocols.base import Outcome, Reason
from referee.openings import (
    OpeningError,
    apply_opening,
    load_book,
    load_openings,
    opening_for_pair,
    random_opening,
)
from referee.records import Header, Ply, Result, read_record
from referee.replay import FrameBuilder, build_replay
from referee.verify import verify_record
from tests.commandline import referee
from tests.replay.make_records import GAMES, header_for, write_record


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("plies", [1, 4])
def test_random_openings_are_legal_and_undecided(game_name: str, plies: int) -> None:
    game = get_game(game_name)
    for seed in range(5):
        opening = random_opening(game_name, {}, plies, seed)
        assert len(opening) == plies
        state = apply_opening(game, game.initial_state(game.parse_options({})), opening)
        assert game.outcome(state) is None


@pytest.mark.parametrize("game_name", GAMES)
def test_openings_are_deterministic_for_a_seed(game_name: str) -> None:
    first = [opening_for_pair(game_name, {}, 7, pair, plies=4) for pair in range(6)]
    again = [opening_for_pair(game_name, {}, 7, pair, plies=4) for pair in range(6)]
    assert first == again
    other = [opening_for_pair(game_name, {}, 8, pair, plies=4) for pair in range(6)]
    assert first != other or game_name == "l-game"  # a tiny game may repeat by chance


def test_both_games_of_a_pair_share_the_opening() -> None:
    # A pair is identified by its index alone: games 2k-1 and 2k ask for pair k-1.
    def game_opening(number: int) -> list[str]:
        return opening_for_pair("alak", {}, 3, (number - 1) // 2, plies=3)

    for k in range(1, 6):
        assert game_opening(2 * k - 1) == game_opening(2 * k)
    assert len({tuple(game_opening(2 * k)) for k in range(1, 6)}) > 1


def test_no_plies_and_no_book_is_the_start_position() -> None:
    assert opening_for_pair("alak", {}, 1, 0) == []


def test_an_openings_file_is_read_canonically(tmp_path: Path) -> None:
    alak = tmp_path / "alak.txt"
    alak.write_text("# comment\nc d\n\ne, f\n")
    assert load_openings(alak, "alak") == [["c", "d"], ["e", "f"]]
    lielow = tmp_path / "lielow.txt"
    lielow.write_text("e2   e3, e7 e6\n")
    assert load_openings(lielow, "lielow") == [["e2 e3", "e7 e6"]]
    book = load_openings(lielow, "lielow")
    for pair in range(3):
        assert opening_for_pair("lielow", {}, 5, pair, book=book) == ["e2 e3", "e7 e6"]


def test_an_illegal_opening_in_a_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("e2 e3\ne2 e5\n")
    with pytest.raises(OpeningError, match=r"bad\.txt:2"):
        load_openings(path, "lielow")


def test_a_book_knows_the_line_of_each_opening_and_its_files_hash(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    path.write_bytes(b"# openings\n\nc d\n# sharper\ne f\nb, g\n")
    book = load_book(path, "alak")
    assert book.openings == [["c", "d"], ["e", "f"], ["b", "g"]]
    assert book.lines == [3, 5, 6]  # as an editor numbers them, comments and blanks included
    assert book.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    # The first opening on a line or after it: a comment or blank line leads to the next one.
    assert [book.first_from_line(line) for line in range(1, 7)] == [0, 0, 0, 1, 1, 2]
    with pytest.raises(
        OpeningError, match=r"no opening on line 7 or after it \(the last is on line 6\)"
    ):
        book.first_from_line(7)


def test_a_book_that_is_not_text_is_an_opening_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    path.write_bytes(b"c d\n\xff\xfe\n")
    with pytest.raises(OpeningError, match=r"book\.txt: not UTF-8 text"):
        load_book(path, "alak")


def record_from_opening(path: Path, game_name: str, opening: list[str], seed: int) -> Any:
    """A random game played on from `opening`, written with the opening in its header."""
    game = get_game(game_name)
    state = apply_opening(game, game.initial_state(game.parse_options({})), opening)
    header = header_for(game_name, seed).model_copy(update={"opening": opening})
    lines: list[Header | Ply | Result] = [header]
    rng = random.Random(seed)
    number = 0
    while game.outcome(state) is None and number < 300:
        move = game.format_move(rng.choice(list(game.legal_moves(state))))
        number += 1
        lines.append(Ply(ply=number, side=state.to_move, received=move, move=move, time_ms=1.0))
        state = game.apply(state, game.parse_move(state, move))
    outcome = game.outcome(state) or Outcome(None, Reason.INTERRUPTED, "cut short")
    lines.append(Result.of_outcome(outcome, number))
    return write_record(path, lines)


@pytest.mark.parametrize("game_name", GAMES)
def test_a_game_from_an_opening_records_it_and_verifies(tmp_path: Path, game_name: str) -> None:
    opening = random_opening(game_name, {}, 3, 11)
    record = record_from_opening(tmp_path / "g.jsonl", game_name, opening, 11)
    assert read_record(tmp_path / "g.jsonl").header.opening == opening
    found = verify_record(record)
    assert found.ok, found.problems
    replay = build_replay(record)
    assert replay.ok and len(replay.frames) == len(record.plies) + 1
    # The first frame is the position the bots took over, the same live and replayed.
    assert FrameBuilder(record.header).first == replay.frames[0]


def test_the_same_plies_without_their_opening_do_not_verify(tmp_path: Path) -> None:
    opening = random_opening("lielow", {}, 2, 4)
    record = record_from_opening(tmp_path / "g.jsonl", "lielow", opening, 4)
    stripped = record.model_copy(
        update={"header": record.header.model_copy(update={"opening": None})}
    )
    assert not verify_record(stripped).ok


def test_an_illegal_opening_in_a_header_is_a_problem(tmp_path: Path) -> None:
    record = record_from_opening(tmp_path / "g.jsonl", "alak", ["c"], 1)
    bad = record.model_copy(update={"header": record.header.model_copy(update={"opening": ["z"]})})
    found = verify_record(bad)
    assert found.problems and found.problems[0].startswith("header: opening move 1")


def test_a_header_without_an_opening_still_reads() -> None:
    header = header_for("alak").model_dump(mode="json")
    del header["opening"]
    assert Header.model_validate(header).opening is None


def test_replay_verify_only_accepts_a_game_from_an_opening(tmp_path: Path) -> None:
    opening = random_opening("legionnaires", {}, 2, 5)
    record = record_from_opening(tmp_path / "g.jsonl", "legionnaires", opening, 5)
    proc = referee("replay", "g.jsonl", "--verify-only", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"verified: legionnaires, {len(record.plies)} plies" in proc.stdout
