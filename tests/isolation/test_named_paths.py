"""What a bot's command names shows it nothing that is hidden from it, and a command from a
submission names nothing outside the bot's own folder.

Mallory hands in a run.txt that names the paths she wants to read: another student's folder and
program, the tournament's folder and store, the course's grading scheme, its grades, its
submissions. `course collect` and `tournament new` refuse that command, naming her and the
paths, and a tournament config naming them is refused at load. Past those checks (a config
collected by an older referee, or one whose author vouched for her), the sandbox still shows
her none of it, whatever the order of the words: the compiled helper's sandbox and
bubblewrap's. Every bot here is a spy (tests/isolation/test_bot_folders.py): as blue, its first
line lists every file below the course (or the bots' folder) it could read something from."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from referee.app import session_open
from referee.app.config import load_config
from referee.app.tournament_session import play_tournament
from referee.course.scheme import Course, write_skeleton
from referee.tournament.config import LoadedConfig, PlayerConfig, TournamentConfig
from referee.views.session_lines import SessionLines
from tests.commandline import referee
from tests.isolation.test_bot_folders import seen_by_blue, spy

ROOT_ONLY = pytest.mark.skipif(
    os.geteuid() != 0, reason="the compiled helper makes the sandbox only for a root referee"
)


def mallory_words(course: Path) -> str:
    """The tester's run.txt, after `python3 bot.py`: relative and absolute paths."""
    return (
        f"../alice ../alice/main.py ../../tournament ../../tournament/tournament.sqlite "
        f"{course}/grading.toml {course}/work/grades.csv {course}/submissions "
        f"{course}/course.toml"
    )


def make_course(root: Path) -> Path:
    """A course with alice and bob (spies) and mallory (a spy whose run.txt names the others'
    paths),
    its grades and a feedback page already written, and no baseline."""
    course = root / "course"
    write_skeleton(course, "Spies", "alak")
    text = (course / "course.toml").read_text()
    (course / "course.toml").write_text(text.replace('baselines = ["random"]', "baselines = []"))
    for student in ("alice", "bob"):
        spy(course / "submissions" / student / "main.py", course)
    spy(course / "submissions" / "mallory" / "bot.py", course)
    run = f"python3 bot.py {mallory_words(course)}\n"
    (course / "submissions" / "mallory" / "run.txt").write_text(run)
    (course / "work" / "pages").mkdir(parents=True)
    (course / "work" / "grades.csv").write_text("student,points\nalice,80\n")
    (course / "work" / "pages" / "alice.html").write_text("<p>alice's feedback</p>")
    return course


def past_the_checks(
    loaded: LoadedConfig,
    sandbox_program: str,
    monkeypatch: pytest.MonkeyPatch,
    *players: PlayerConfig,
) -> Path:
    """`loaded` with `players` added as a config that got past the checks (written by an older
    referee, or by hand) and the layout's (which refuses a command naming another player's
    folder), its sandbox made by `sandbox_program`; played; its directory."""
    monkeypatch.setattr(session_open, "layout_refusal", lambda players: None)
    config = loaded.config
    isolation = {"level": "auto", "sandbox_program": sandbox_program}
    match = {**config.match_entries(), "isolation": isolation}
    # Validated again, not copied: the match's settings are built when a config is validated.
    added = TournamentConfig.model_validate(
        config.model_dump(exclude_unset=True)
        | {"players": [*config.players, *players], "match": match, "games_per_pairing": 2}
    )
    final = LoadedConfig(added, loaded.path, collected=loaded.collected)
    said = io.StringIO()
    finished = play_tournament(final, [SessionLines(Console(file=said, width=200))])
    assert finished is not None, said.getvalue()
    return final.directory


def test_collect_refuses_a_command_naming_other_folders(tmp_path: Path) -> None:
    course = make_course(tmp_path)
    done = referee("course", "collect", "-C", str(course), cwd=course)
    assert done.returncode == 1, done.stderr  # one student is not ready
    said = " ".join(done.stderr.split())
    assert "mallory: its command names `../alice`, `../alice/main.py`, `../../tournament`" in said
    assert f"`{course}/grading.toml`" in said and "outside its own folder" in said
    players = load_config(Course(course).tournament_config).config.player_names
    assert players == ["alice", "bob"]  # mallory is written commented out


def test_collect_refuses_control_characters_and_writes_valid_toml(tmp_path: Path) -> None:
    course = make_course(tmp_path)
    eve = course / "submissions" / "eve\x1b]0;owned\x07"
    spy(eve / "bot.py", course)
    (eve / "run.txt").write_text("python3 bot.py \x1b[2J\u202e\n")
    shutil.rmtree(course / "submissions" / "mallory")
    done = referee("course", "collect", "-C", str(course), cwd=course)
    assert done.returncode == 1, done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "\u202e" not in done.stderr
    assert "holds control characters (`python3 bot.py \\x1b[2J\\u202e`)" in done.stderr
    config = Course(course).tournament_config
    assert "\x1b" not in config.read_text()
    assert load_config(config).config.player_names == ["alice", "bob"]  # and it is TOML


def test_tournament_new_refuses_a_command_naming_outside_and_load_too(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    spy(bots / "alice" / "main.py", tmp_path)
    spy(bots / "mallory" / "bot.py", tmp_path)
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "grades.csv").write_text("alice,80\n")
    run = f"python3 bot.py ../alice ../alice/main.py {private}/grades.csv"
    (bots / "mallory" / "run.txt").write_text(run + "\n")
    spy(bots / "eve\x1b[2J" / "main.py", tmp_path)  # a folder's name that clears a screen
    spy(bots / "oscar" / "bot.py", tmp_path)
    (bots / "oscar" / "run.txt").write_text("python3 bot.py \x1b]0;owned\x07\n")
    done = referee("tournament", "new", "bots", "--game", "alak", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert "bots/mallory: its command names `../alice`, `../alice/main.py`" in said
    assert f"`{private}/grades.csv`, outside its own folder" in said
    assert "bots/oscar: its command holds control characters" in said
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    config = tmp_path / "tournament.toml"
    text = config.read_text()
    assert "\x1b" not in text and 'name = "eve\\u001b[2J"' in text
    assert load_config(config).config.player_names == ["alice", "eve\x1b[2J"]
    # Mallory's entry, uncommented by someone who did not read the note: refused at load.
    config.write_text(
        text + f'\n[[players]]\nname = "mallory"\ncommand = "{run}"\ncwd = "bots/mallory"\n'
    )
    refused = referee("tournament", "run", "tournament.toml", "-q", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert "players[2].command: mallory's command names ../alice, ../alice/main.py" in said
    assert "add `trusted = true`" in said
    # Trusted by someone who did not look: it may name files outside its folder, but never
    # another player's folder, nor anything in it.
    config.write_text(config.read_text() + "trusted = true\n")
    refused = referee("tournament", "run", "tournament.toml", "-q", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    said = " ".join(refused.stderr.split())
    assert f"mallory's command names {bots / 'alice'}, in alice's folder {bots / 'alice'}" in said
    assert not (tmp_path / "tournament").exists()  # refused before anything was made


@ROOT_ONLY
def test_a_course_bot_named_paths_show_it_nothing(
    tmp_path: Path, sandbox_program: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    course = make_course(tmp_path)
    done = referee("course", "collect", "-C", str(course), cwd=course)
    assert done.returncode == 1, done.stderr
    loaded = load_config(Course(course).tournament_config)
    students = Course(course).work / "students"
    assert (students / "mallory" / "run.txt").is_file()  # unpacked, then refused
    shutil.copytree(course / "submissions" / "mallory", students / "trudy")
    words = mallory_words(course).split()
    directory = past_the_checks(
        loaded,
        sandbox_program,
        monkeypatch,
        PlayerConfig(
            name="mallory",
            command=f"python3 bot.py {' '.join(words)}",
            cwd=Path("students/mallory"),
        ),
        PlayerConfig(  # the same words, the other way round
            name="trudy",
            command=f"python3 bot.py {' '.join(reversed(words))}",
            cwd=Path("students/trudy"),
        ),
    )
    seen = seen_by_blue(directory)
    assert seen == {
        "alice": {"work/students/alice/main.py"},
        "bob": {"work/students/bob/main.py"},
        "mallory": {"work/students/mallory/bot.py", "work/students/mallory/run.txt"},
        "trudy": {"work/students/trudy/bot.py", "work/students/trudy/run.txt"},
    }


@ROOT_ONLY
def test_tournament_new_bots_named_paths_show_them_nothing(
    tmp_path: Path, sandbox_program: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots = tmp_path / "bots"
    for name in ("alice", "bob"):
        spy(bots / name / "main.py", tmp_path)
    spy(bots / "mallory" / "bot.py", tmp_path)
    (bots / "alice" / "book.txt").write_text("alice's opening book")
    # A file of alice's that she reads herself, named after her folder: hidden from mallory,
    # not taken from alice by being named.
    named = "../alice/book.txt ../alice ../alice/main.py ../../tournament/tournament.sqlite"
    (bots / "mallory" / "run.txt").write_text(f"python3 bot.py {named}\n")
    done = referee("tournament", "new", "bots", "--game", "alak", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    loaded = load_config(tmp_path / "tournament.toml")
    assert loaded.config.player_names == ["alice", "bob"]  # mallory: commented out
    directory = past_the_checks(
        loaded,
        sandbox_program,
        monkeypatch,
        PlayerConfig(name="mallory", command=f"python3 bot.py {named}", cwd=Path("bots/mallory")),
    )
    seen = seen_by_blue(directory)
    assert seen == {
        "alice": {"bots/alice/main.py", "bots/alice/book.txt"},
        "bob": {"bots/bob/main.py"},
        "mallory": {"bots/mallory/bot.py", "bots/mallory/run.txt"},
    }
