"""Which folders are whose: a bot's folder found from its command, a layout where one bot's
folder holds another's refused (by `tournament run` and `match`, in words that name both), the
referee's output found where bots would see it, and loose programs given folders of their own
by `tournament new`. The games themselves: tests/isolation/test_bot_folders.py."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from referee.commands.demo import DEFAULT_DIR
from referee.commands.play import DEFAULT_RECORD_DIR
from referee.course.check import RECORDS_PARENT
from referee.isolation import player_places
from referee.isolation.places import Places, run_hidden
from referee.league.config import INDEX_NAME
from referee.players import PlayerSpec, resolve_command
from referee.tournament import bot_folders
from referee.tournament.bot_folders import layout_refusal, program_folder, referee_output
from referee.tournament.match_setup import DEFAULT_ROOT
from referee.tournament.store import LOCK_NAME, STORE_NAME
from referee.tournament.template import discover_bots, give_folders
from tests.commandline import referee

HEADER = json.dumps({"type": "header", "game": "alak", "chain": "0" * 64}) + "\n"


def player(name: str, command: str, cwd: Path) -> PlayerSpec:
    return PlayerSpec(name=name, command=command, cwd=cwd)


def test_a_bot_s_folder_is_where_its_program_is(tmp_path: Path) -> None:
    for path in ("v2/main.py", "bin/game/Player.class", "bot", "lib/x.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    python = sys.executable
    assert program_folder(player("a", f"{python} v2/main.py --depth 3", tmp_path)) == (
        tmp_path / "v2"
    )
    assert program_folder(player("a", "java -cp bin game.Player", tmp_path)) == tmp_path / "bin"
    assert program_folder(player("a", "./bot --log /dev/null", tmp_path)) == tmp_path
    assert program_folder(player("a", "env PYTHONPATH=lib python3 -m x", tmp_path)) == (
        tmp_path / "lib"
    )
    assert program_folder(player("a", f"{python} -m mybot", tmp_path)) == tmp_path
    builtin = resolve_command("builtin:random", "alak")
    assert program_folder(player("r", builtin, tmp_path)) is None


def test_a_folder_inside_another_bot_s_is_refused_naming_both(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    for path in ("main.py", "old/main.py", "v1.py"):
        (tmp_path / path).write_text("")
    outer = player("new", f"{sys.executable} main.py", tmp_path)
    inner = player("old", f"{sys.executable} old/main.py", tmp_path)
    refusal = layout_refusal([outer, inner])
    assert refusal is not None
    assert f"old's folder {tmp_path / 'old'} is inside new's folder {tmp_path}" in refusal
    assert "Give each bot a folder of its own" in refusal
    beside = player("v1", f"{sys.executable} v1.py", tmp_path)  # side by side: hidden apart
    same = player("new2", f"{sys.executable} main.py --depth 2", tmp_path)
    builtin = player("r", resolve_command("builtin:random", "alak"), tmp_path)
    assert layout_refusal([outer, beside, same, builtin]) is None


def test_tournament_run_refuses_a_bot_folder_inside_another(tmp_path: Path) -> None:
    (tmp_path / "bots" / "bob").mkdir(parents=True)
    (tmp_path / "bots" / "alice.py").write_text("")
    (tmp_path / "bots" / "bob" / "bob.py").write_text("")
    (tmp_path / "cup.toml").write_text(
        'name = "cup"\ngame = "alak"\n'
        '[[players]]\nname = "alice"\ncommand = "python3 alice.py"\ncwd = "bots"\n'
        '[[players]]\nname = "bob"\ncommand = "python3 bob.py"\ncwd = "bots/bob"\n'
    )
    done = referee("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert "bob's folder" in said and "is inside alice's folder" in said
    assert not (tmp_path / "cup").exists()  # refused before anything was made


def test_the_referee_s_output_is_found_where_bots_would_see_it(tmp_path: Path) -> None:
    root = tmp_path / "here"
    (root / "cup" / "games").mkdir(parents=True)
    (root / "cup" / STORE_NAME).write_bytes(b"SQLite format 3\0")
    (root / "runs" / "week1").mkdir(parents=True)
    (root / "runs" / "week1" / "0001.jsonl").write_text(HEADER)
    (root / "data").mkdir()
    (root / "data" / "book.jsonl").write_text('{"opening": "a, b"}\n')  # not a record
    (root / "referee-games").mkdir()
    (root / ".hidden").mkdir()
    (root / ".hidden" / STORE_NAME).write_bytes(b"")
    (root / "game.jsonl").write_text(HEADER)  # in the bot's own folder: the file alone
    (root / "mine.py").write_text("")
    found = referee_output([root])
    assert found.unsearched == []
    assert sorted(found.found) == [
        root / "cup",
        root / "game.jsonl",
        root / "referee-games",
        root / "runs" / "week1",
    ]


def test_the_output_names_are_those_the_referee_writes() -> None:
    assert set(bot_folders.STORE_FILES) == {STORE_NAME, LOCK_NAME, INDEX_NAME}
    assert set(bot_folders.OUTPUT_FOLDERS) == {
        str(DEFAULT_RECORD_DIR),
        str(RECORDS_PARENT),
        str(DEFAULT_ROOT),
        str(DEFAULT_DIR),
    }


def test_loose_programs_are_given_folders_except_links_and_taken_names(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    (bots / "carol").mkdir(parents=True)
    (bots / "carol" / "main.py").write_text("")
    for name in ("eve.py", "carol.py", "_helper.py", "notes.txt"):
        (bots / name).write_text("")
    os.symlink("eve/eve.py", bots / "link.py")
    moved = give_folders(bots)
    assert moved == [(bots / "eve.py", bots / "eve" / "eve.py")]
    assert (bots / "eve").stat().st_mode & 0o777 == 0o755
    found = {bot.name: bot for bot in discover_bots(bots)}
    assert found["eve"].folder == bots / "eve" and found["eve"].command == "python3 eve.py"
    for name in ("carol", "link"):
        assert name in found
    loose = [bot for bot in discover_bots(bots) if bot.folder == bots]
    assert {bot.name for bot in loose} == {"carol", "link"}
    for bot in loose:
        assert bot.command is None and bot.note is not None
        assert "lies loose beside the bots' folders" in bot.note


def test_tournament_new_says_what_it_moved(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "eve.py").write_text("")
    (bots / "eve_book.txt").write_text("")
    done = referee("tournament", "new", "bots", "--game", "alak", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert "moved bots/eve.py to bots/eve/eve.py" in said
    assert "left in bots, where no bot sees them: eve_book.txt" in said


def test_a_word_too_long_to_be_a_file_name_names_nothing(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(
        "import sys\nsys.stdin.readline()\nprint('a', flush=True)\nsys.stdin.readline()\n"
    )
    command = f"{sys.executable} bot.py --eval {'x' * 300}"  # longer than a name may be
    bot = player("long", command, tmp_path)
    assert program_folder(bot) == tmp_path
    assert layout_refusal([bot, player("other", f"{sys.executable} -m x", tmp_path)]) is None
    assert player_places(command, tmp_path) == Places(tmp_path, tmp_path, tmp_path / "bot.py")
    done = referee("play", "alak", "-p1", command, "-p2", "builtin:random", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Game over!" in done.stdout


def test_only_a_records_folder_yields_to_a_bot_whose_program_lies_in_it() -> None:
    # Run in /t, its program in /t/cup/x: a record's folder on that way yields (its record is
    # hidden by its path); a tournament's folder there stays hidden, whatever makes it the
    # bot's program's folder.
    own = Places(Path("/t"), Path("/t/cup/x"), Path("/t/cup/x/main.py"))
    records, run, elsewhere = Path("/t/cup"), Path("/t/cup/x"), Path("/t/other")
    hidden = [records, run, elsewhere, Path("/t")]
    assert run_hidden(own, hidden, yielding=[records]) == [run, elsewhere, Path("/t")]
    assert run_hidden(own, hidden, yielding=[records, run]) == [elsewhere, Path("/t")]
    assert run_hidden(own, hidden, yielding=[elsewhere]) == hidden
