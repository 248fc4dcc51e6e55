"""Matches and tournaments from openings (the protocol's `position` extension): each pair of
games starts from the same opening with the colours reversed, the bots take over where it left
(their first moves are legal only there), every record verifies, and a bot that has not declared
the extension is refused by name before any game."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path

import pytest

from protocols import get_game
from protocols.base import IllegalMove, Side
from referee.app.config import load_config
from referee.records import read_record
from referee.tournament.resume import ScheduleChanged, open_tournament
from referee.tournament.store import open_view
from tests.commandline import referee_here

BASIC = ["--isolation", "basic+root", "-q", "-j", "2"]
COURSE_BOT = "import sys\nfor line in sys.stdin:\n    pass\n"


def game_records(folder: Path) -> list[Path]:
    return sorted((folder / "games").glob("*.jsonl"))


def test_a_match_from_openings_plays_pairs_from_one_opening_with_colours_reversed(
    tmp_path: Path,
) -> None:
    done = referee_here(
        "match", "lasker-morris", "-p1", "builtin:greedy --seed {seed}",
        "-p2", "builtin:random --seed {seed}", "--games", "6", "--opening-plies", "3",
        "--dir", str(tmp_path / "m"), *BASIC, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    game = get_game("lasker-morris")
    records = [read_record(path) for path in game_records(tmp_path / "m")]
    assert len(records) == 6
    openings = [tuple(r.header.opening or ()) for r in records]
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert (
            first.header.opening == second.header.opening and len(first.header.opening or ()) == 3
        )
        assert first.header.players[Side.BLUE].name == second.header.players[Side.ORANGE].name
    assert len(set(openings)) == 3  # each pair its own opening
    start = game.initial_state(None)
    for record in records:
        state = start
        for move in record.header.opening or ():
            state = game.apply(state, game.parse_move(state, move))
        first_move = record.plies[0].move
        game.parse_move(state, first_move)  # legal where the bots took over
        try:
            game.parse_move(start, first_move)
            raise AssertionError(f"{first_move} is legal at the start too")
        except IllegalMove:
            pass  # orange's placement: illegal at the start, where blue moves
    verified = referee_here("tournament", "verify", str(tmp_path / "m"), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_match_with_a_bot_that_has_not_declared_the_extension_is_refused_by_name(
    tmp_path: Path,
) -> None:
    (tmp_path / "course_bot.py").write_text(COURSE_BOT)
    done = referee_here(
        "match", "lasker-morris", "-p1", f"{sys.executable} course_bot.py", "--name1", "student",
        "-p2", "builtin:random", "--games", "2", "--opening-plies", "2",
        "--dir", str(tmp_path / "m"), *BASIC, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    # In the command line's words: the bot by name, and the flag's value that declares it.
    assert "student has not declared the protocol's position extension" in said, said
    assert "give --position-capable p1 if it reads `position K`" in said, said
    assert not game_records(tmp_path / "m")


TOURNAMENT = """\
name = "cup"
game = "alak"
game_options = {{ size = 7 }}
games_per_pairing = 2
[openings]
{openings}
[match.isolation]
level = "basic+root"
[[players]]
name = "template"
command = "{python} {template} --position"
trusted = true
{capabilities}
[[players]]
name = "greedy"
command = "builtin:greedy --seed {{seed}}"
[[players]]
name = "random"
command = "builtin:random --seed {{seed}}"
"""
TEMPLATE = Path(__file__).resolve().parents[2] / "docs" / "templates" / "python" / "alak_bot.py"


def tournament(tmp_path: Path, openings: str, capabilities: str) -> str:
    text = TOURNAMENT.format(
        openings=openings, python=sys.executable, template=TEMPLATE, capabilities=capabilities
    )
    (tmp_path / "cup.toml").write_text(text)
    return text


def test_a_tournament_from_a_book_plays_it_in_order(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text("# three openings\na, c\nb d f\nc, e\n")
    tournament(
        tmp_path,
        'book = "book.txt"\norder = "sequential"\nstart = 3',  # a line of the file
        'capabilities = ["position"]',
    )
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = [read_record(path) for path in game_records(tmp_path / "cup")]
    assert len(records) == 6
    # A round robin plays each pairing once, then each again with colours swapped: games 1-3
    # start the pairs, in the book's order from its line 3 (line 1 is a comment) and round it,
    # and 4-6 repeat them.
    book = [("b", "d", "f"), ("c", "e"), ("a", "c")]
    assert [tuple(r.header.opening or ()) for r in records[:3]] == book
    for first, second in zip(records[:3], records[3:], strict=True):
        assert first.header.opening == second.header.opening
        assert first.header.players[Side.BLUE].name == second.header.players[Side.ORANGE].name
    for record in records:
        assert record.result is not None and not record.result.void
        for report in record.result.bots.values():
            assert "Traceback" not in report.stderr_tail
    verified = referee_here("tournament", "verify", "cup.toml", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_tournament_player_that_has_not_declared_the_extension_is_named(
    tmp_path: Path,
) -> None:
    tournament(tmp_path, "plies = 2", "")
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "players[0].capabilities: template has not declared the 'position' extension" in said
    assert not (tmp_path / "cup").exists()


def test_the_openings_of_a_tournament_are_part_of_what_it_resumes(tmp_path: Path) -> None:
    tournament(tmp_path, "plies = 2", 'capabilities = ["position"]')
    assert referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path).returncode == 0
    tournament(tmp_path, "plies = 3", 'capabilities = ["position"]')
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert "openings" in done.stderr
    results = referee_here("tournament", "results", "cup.toml", "--format", "json", cwd=tmp_path)
    assert json.loads(results.stdout)


# -- books: lines, and what a run that resumes was played from ---------------------------------

BOOK = "# alak openings, one a line\n\nc d\n# the next are sharper\ne f\nb, g\n"  # lines 3, 5, 6


def match_from_book(tmp_path: Path, *more: str) -> list[str]:
    return ["match", "alak", "-p1", "builtin:greedy --seed {seed}", "-p2",
            "builtin:random --seed {seed}", "--openings", "book.txt", "--dir",
            str(tmp_path / "m"), *BASIC, *more]  # fmt: skip


def test_book_start_and_the_books_errors_count_the_same_lines(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text(BOOK)
    sequential = ["--book-order", "sequential", "--games", "4"]
    # Line 4 is a comment: the first pair takes the opening after it, on line 5.
    done = referee_here(*match_from_book(tmp_path, *sequential, "--book-start", "4"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    openings = [read_record(path).header.opening for path in game_records(tmp_path / "m")]
    assert openings == [["e", "f"], ["e", "f"], ["b", "g"], ["b", "g"]]
    past = referee_here(*match_from_book(tmp_path, *sequential, "--book-start", "7"), cwd=tmp_path)
    assert past.returncode == 2
    assert "--book-start 7:" in past.stderr and "no opening on line 7 or after it" in past.stderr
    assert "(the last is on line 6)" in " ".join(past.stderr.split())
    (tmp_path / "book.txt").write_text(BOOK.replace("b, g", "b, b"))  # line 6: illegal
    bad = referee_here(*match_from_book(tmp_path, "--dir", str(tmp_path / "n")), cwd=tmp_path)
    assert bad.returncode == 2 and "book.txt:6: opening move 2 ('b')" in bad.stderr


def test_a_match_is_not_resumed_from_an_edited_book(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text(BOOK)
    first = referee_here(*match_from_book(tmp_path, "--games", "2"), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (tmp_path / "book.txt").write_text(BOOK.replace("e f", "e g"))
    edited = referee_here(*match_from_book(tmp_path, "--games", "4"), cwd=tmp_path)
    assert edited.returncode == 2
    said = " ".join(edited.stderr.split())
    assert f"the book {tmp_path / 'book.txt'} has changed since its games started" in said
    assert "Put the old book back to resume it, or give another --dir" in said
    assert len(game_records(tmp_path / "m")) == 2  # nothing played from the other book
    (tmp_path / "book.txt").write_text(BOOK)  # the same bytes again: the match goes on
    again = referee_here(*match_from_book(tmp_path, "--games", "4"), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(game_records(tmp_path / "m")) == 4


BOOK_CUP = """\
name = "cup"
game = "alak"
[openings]
book = "book.txt"
[[players]]
name = "greedy"
command = "builtin:greedy"
[[players]]
name = "random"
command = "builtin:random"
"""


def open_cup(tmp_path: Path) -> None:
    """Open the tournament's store for a run, as `tournament run` does first, and close it."""
    store, _ = open_tournament(load_config(tmp_path / "cup.toml"))
    store.close()


def test_a_tournament_records_its_books_hash_and_is_not_resumed_from_another(
    tmp_path: Path,
) -> None:
    (tmp_path / "cup.toml").write_text(BOOK_CUP)
    (tmp_path / "book.txt").write_text(BOOK)
    open_cup(tmp_path)
    view = open_view(tmp_path / "cup")
    stored = view.info().schedule_key["openings"]
    view.close()
    assert stored["book_sha256"] == hashlib.sha256(BOOK.encode()).hexdigest()
    open_cup(tmp_path)  # the same book: it resumes
    (tmp_path / "book.txt").write_text(BOOK.replace("e f", "e g"))
    with pytest.raises(ScheduleChanged) as refused:
        open_cup(tmp_path)
    said = str(refused.value)
    then = stored["book_sha256"][:16]
    assert f"the book book.txt has changed since its games started (sha256 {then}" in said
    assert "Put the old book back to resume it" in said


def test_a_tournament_started_before_books_were_hashed_still_resumes(tmp_path: Path) -> None:
    (tmp_path / "cup.toml").write_text(BOOK_CUP)
    (tmp_path / "book.txt").write_text(BOOK)
    open_cup(tmp_path)
    with sqlite3.connect(tmp_path / "cup" / "tournament.sqlite") as db:  # as it was stored then
        (key,) = db.execute("SELECT value FROM meta WHERE key = 'schedule_key'").fetchone()
        older = json.loads(key)
        del older["openings"]["book_sha256"]
        db.execute("UPDATE meta SET value = ? WHERE key = 'schedule_key'", (json.dumps(older),))
    open_cup(tmp_path)  # its book was never recorded: it cannot be checked, and is not refused


def test_a_match_with_openings_is_not_resumed_without_them_or_with_others(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text(BOOK)
    first = referee_here(*match_from_book(tmp_path, "--games", "4"), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    config = (tmp_path / "m" / "match.toml").read_text()
    book = f"--openings {tmp_path / 'book.txt'} --book-order random --book-start 1"
    # The same match and more games, the openings left out: refused, nothing played or written.
    plain = ["match", "alak", "-p1", "builtin:greedy --seed {seed}", "-p2",
             "builtin:random --seed {seed}", "--dir", str(tmp_path / "m"), *BASIC]  # fmt: skip
    without = referee_here(*plain, "--games", "6", cwd=tmp_path)
    assert without.returncode == 2
    said = " ".join(without.stderr.split())
    assert f"was started with other settings: the openings {book}, not none (from the start)" in (
        said
    ), said
    assert "with the same flags to resume it" in said and "another --dir" in said
    assert len(game_records(tmp_path / "m")) == 4
    assert (tmp_path / "m" / "match.toml").read_text() == config
    # Other openings: the stored ones are still said as they are.
    plies = referee_here(*plain, "--games", "6", "--opening-plies", "2", cwd=tmp_path)
    assert plies.returncode == 2
    said = " ".join(plies.stderr.split())
    assert f"the openings {book}, not --opening-plies 2" in said, said
    assert len(game_records(tmp_path / "m")) == 4
    # The flags it was started with: it grows.
    again = referee_here(*match_from_book(tmp_path, "--games", "6"), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    openings = [read_record(path).header.opening for path in game_records(tmp_path / "m")]
    assert len(openings) == 6 and all(openings), openings


def test_a_tournament_with_openings_is_not_resumed_from_a_config_without_them(
    tmp_path: Path,
) -> None:
    tournament(tmp_path, "plies = 2", 'capabilities = ["position"]')
    assert referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path).returncode == 0
    config = (tmp_path / "cup.toml").read_text()
    (tmp_path / "cup.toml").write_text(config.replace("[openings]\nplies = 2\n", ""))
    assert "[openings]" not in (tmp_path / "cup.toml").read_text()
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "the config changes the schedule" in said and "openings: {" in said, said
