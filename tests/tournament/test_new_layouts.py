"""`referee tournament new` on submissions laid out as students hand them in: a manifest, a
Python main among helpers, compiled Java, a jar, a Makefile project, and folders it cannot read,
which are written commented out with a note saying what was found and what to add."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.tournament.template import describe_bots, discover_bots
from tests.commandline import referee

JAVA_MAIN = """\
public class {name} {{
  public static void main(String[] args) {{
    System.out.println("{name} runs");
  }}
}}
"""
MAKEFILE = "CC = gcc\nall: hanky\n\nhanky: main.c\n\t$(CC) -O2 -o hanky main.c\n"
C_MAIN = '#include <stdio.h>\nint main(void) { puts("hanky runs"); return 0; }\n'


def write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def submissions(bots: Path) -> None:
    write(
        bots / "ann" / "game.py", 'import helper\n\nif __name__ == "__main__":\n    helper.go()\n'
    )
    write(bots / "ann" / "helper.py", "def go():\n    pass\n")
    write(bots / "ann" / "util.py", "X = 1\n")
    write(bots / "dave" / "run.txt", "# my bot needs more memory\n\njava -Xmx512m -jar dave.jar\n")
    write(bots / "dave" / "dave.jar")
    write(bots / "dave" / "helper.py")  # the manifest wins over everything else
    write(bots / "gus" / "bot.toml", 'name = "gus"\nrun = "node bot.js"\n')
    player = "package game;\n" + JAVA_MAIN.format(name="Player")
    write(bots / "erin" / "src" / "game" / "Player.java", player)
    write(bots / "erin" / "src" / "game" / "Board.java", "package game;\nclass Board {}\n")
    write(bots / "erin" / "bin" / "game" / "Player.class")
    write(bots / "erin" / "bin" / "game" / "Board.class")
    write(bots / "frank" / "Frank.jar")
    write(bots / "frank" / "README.md", "my bot\n")
    write(bots / "hank" / "Makefile", MAKEFILE)
    write(bots / "hank" / "main.c", C_MAIN)
    for name in ("a.py", "b.py", "carol.py"):
        write(bots / "carol" / name, "def f():\n    pass\n")
    write(bots / "ivy" / "notes.txt", "todo\n")


def comments(text: str) -> str:
    """The config's comments as one line (long notes are wrapped over several)."""
    return " ".join(line[2:] for line in text.splitlines() if line.startswith("# "))


def test_new_finds_the_usual_layouts_and_explains_the_rest(tmp_path: Path) -> None:
    submissions(tmp_path / "bots")
    done = referee("tournament", "new", "bots", "--game", "alak", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "with 6 players" in done.stderr and "carol, ivy" in done.stderr
    said = " ".join(done.stderr.split())  # each folder that needs the instructor, said at once
    assert "bots/carol: 3 .py files and no main; add a run.txt with the command" in said
    assert "bots/ivy: no program found (notes.txt)" in said
    loaded = load_config(tmp_path / "tournament.toml")
    assert {p.name: (p.command, str(p.cwd)) for p in loaded.config.players} == {
        "ann": ("python3 game.py", "bots/ann"),
        "dave": ("java -Xmx512m -jar dave.jar", "bots/dave"),
        "erin": ("java -cp bin game.Player", "bots/erin"),
        "frank": ("java -jar Frank.jar", "bots/frank"),
        "gus": ("node bot.js", "bots/gus"),
        "hank": ("./hanky", "bots/hank"),
    }
    notes = comments((tmp_path / "tournament.toml").read_text())
    assert (
        "bots/carol: 3 .py files and no main; add a run.txt with the command, e.g. "
        "`python3 carol.py`" in notes
    )
    assert 'name = "carol" command = "python3 carol.py"' in notes  # commented out
    assert "bots/ivy: no program found (notes.txt); add a run.txt" in notes
    assert "bots/hank: a Makefile that makes hanky: build it first, `make -C bots/hank`" in notes


def test_each_folder_that_needs_the_instructor_gets_one_line(tmp_path: Path) -> None:
    submissions(tmp_path / "bots")
    lines = describe_bots(discover_bots(tmp_path / "bots"))
    assert [line.split(":")[0] for line in lines] == [
        f"{tmp_path}/bots/{name}" for name in ("carol", "hank", "ivy")
    ]
    assert lines[0].endswith("add a run.txt with the command, e.g. `python3 carol.py`")


def test_ambiguous_layouts_say_what_was_found(tmp_path: Path) -> None:
    write(tmp_path / "mains" / "one.py", 'if __name__ == "__main__":\n    pass\n')
    write(tmp_path / "mains" / "two.py", "if __name__ == '__main__':\n    pass\n")
    write(tmp_path / "jars" / "a.jar")
    write(tmp_path / "jars" / "b.jar")
    write(tmp_path / "source" / "Main.java", JAVA_MAIN.format(name="Main"))
    write(tmp_path / "make" / "Makefile", "all:\n\t$(MAKE) -C src\n")
    write(tmp_path / "empty-run" / "run.txt", "# to do\n")
    found = {bot.name: bot for bot in discover_bots(tmp_path)}
    assert all(bot.command is None for bot in found.values())
    assert found["mains"].note == (
        "2 .py files, 2 with a main (one.py, two.py); add a run.txt with the command, "
        "e.g. `python3 one.py`"
    )
    assert found["jars"].note is not None and found["jars"].note.startswith("2 .jar files")
    assert found["source"].note == (
        "Java sources but no compiled classes (Main.java has the main); compile them first "
        "(`javac *.java`), then add a run.txt with the command, e.g. `java -cp . Main`"
    )
    assert found["make"].note is not None and "run `make`" in found["make"].note
    assert found["empty-run"].note is not None
    assert found["empty-run"].note.startswith("a run.txt with no command in it")


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (CI installs one)")
def test_compiled_classes_without_sources_are_found_and_run(tmp_path: Path) -> None:
    folder = tmp_path / "bots" / "fred"
    write(folder / "Main.java", JAVA_MAIN.format(name="Main"))
    write(folder / "Helper.java", "class Helper { static int two() { return 2; } }\n")
    subprocess.run(["javac", "Main.java", "Helper.java"], cwd=folder, check=True, timeout=120)
    for source in folder.glob("*.java"):
        source.unlink()  # only the classes are handed in: main is read from the class file
    (bot,) = discover_bots(tmp_path / "bots")
    assert bot.command == "java -cp . Main"
    ran = subprocess.run(bot.command.split(), cwd=folder, capture_output=True, text=True)
    assert ran.stdout == "Main runs\n"


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None, reason="no gcc")
def test_a_makefile_project_runs_once_built(tmp_path: Path) -> None:
    folder = tmp_path / "bots" / "hank"
    write(folder / "Makefile", MAKEFILE)
    write(folder / "main.c", C_MAIN)
    (before,) = discover_bots(tmp_path / "bots")
    subprocess.run(["make", "-s", "-C", str(folder)], check=True, timeout=120)
    (after,) = discover_bots(tmp_path / "bots")
    assert before.command == after.command == "./hanky"
    assert after.note is not None and "after a change" in after.note
    assert os.access(folder / "hanky", os.X_OK)
    ran = subprocess.run([after.command], cwd=folder, capture_output=True, text=True)
    assert ran.stdout == "hanky runs\n"
