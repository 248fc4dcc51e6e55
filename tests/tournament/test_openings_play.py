"""Matches and tournaments from openings (the protocol's `position` extension): each pair of
games starts from the same opening with the colours reversed, the bots take over where it left
(their first moves are legal only there), every record verifies, and a bot that has not declared
the extension is refused by name before any game."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from protocols import get_game
from protocols.base import IllegalMove, Side
from referee.records import read_record
from tests.commandline import referee

BASIC = ["--isolation", "basic+root", "-q", "-j", "2"]
COURSE_BOT = "import sys\nfor line in sys.stdin:\n    pass\n"


def game_records(folder: Path) -> list[Path]:
    return sorted((folder / "games").glob("*.jsonl"))


def test_a_match_from_openings_plays_pairs_from_one_opening_with_colours_reversed(
    tmp_path: Path,
) -> None:
    done = referee(
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
    verified = referee("tournament", "verify", str(tmp_path / "m"), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_match_with_a_bot_that_has_not_declared_the_extension_is_refused_by_name(
    tmp_path: Path,
) -> None:
    (tmp_path / "course_bot.py").write_text(COURSE_BOT)
    done = referee(
        "match", "lasker-morris", "-p1", f"{sys.executable} course_bot.py", "--name1", "student",
        "-p2", "builtin:random", "--games", "2", "--opening-plies", "2",
        "--dir", str(tmp_path / "m"), *BASIC, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "student has not declared the 'position' extension" in said, said
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
        'book = "book.txt"\norder = "sequential"\nstart = 2',
        'capabilities = ["position"]',
    )
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = [read_record(path) for path in game_records(tmp_path / "cup")]
    assert len(records) == 6
    # A round robin plays each pairing once, then each again with colours swapped: games 1-3
    # start the pairs, in the book's order from its line 2 and round it, and 4-6 repeat them.
    book = [("b", "d", "f"), ("c", "e"), ("a", "c")]
    assert [tuple(r.header.opening or ()) for r in records[:3]] == book
    for first, second in zip(records[:3], records[3:], strict=True):
        assert first.header.opening == second.header.opening
        assert first.header.players[Side.BLUE].name == second.header.players[Side.ORANGE].name
    for record in records:
        assert record.result is not None and not record.result.void
        for report in record.result.bots.values():
            assert "Traceback" not in report.stderr_tail
    verified = referee("tournament", "verify", "cup.toml", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_tournament_player_that_has_not_declared_the_extension_is_named(
    tmp_path: Path,
) -> None:
    tournament(tmp_path, "plies = 2", "")
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "players[0].capabilities: template has not declared the 'position' extension" in said
    assert not (tmp_path / "cup").exists()


def test_the_openings_of_a_tournament_are_part_of_what_it_resumes(tmp_path: Path) -> None:
    tournament(tmp_path, "plies = 2", 'capabilities = ["position"]')
    assert referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path).returncode == 0
    tournament(tmp_path, "plies = 3", 'capabilities = ["position"]')
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert "openings" in done.stderr
    results = referee("tournament", "results", "cup.toml", "--format", "json", cwd=tmp_path)
    assert json.loads(results.stdout)
