"""The course kit end to end: a course folder with Python, Java, C, zipped and git submissions
and some that fail in their own way goes through `course collect`, `course check`, a small
tournament, `course report` and `course grades`; the pages are opened in headless Chromium.
Bots and builds run confined, as they do for an instructor."""

from __future__ import annotations

import csv
import io
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
import trio
from rich.console import Console

from referee.app.config import load_config
from referee.app.tournament_session import SessionSettings, play_tournament
from referee.course.collect import collect, load_collected
from referee.course.grades import band_points, grade_of
from referee.course.scheme import Course, CourseError, GradingScheme, load_scheme
from referee.course.unpack import UnpackError, unpack, unpack_tar, unpack_zip
from referee.tournament.store import open_view
from referee.views.session_lines import SessionLines
from tests.commandline import referee
from tests.conftest import ReadableFolders
from tests.course.kit import PYTHON_BOT, make_course, write

JAVA = shutil.which("javac") is not None
C = shutil.which("gcc") is not None and shutil.which("make") is not None
READY = [
    "alice",
    "gina",
    "hugo",
    "kate",
    "leo",
    *(["bob"] if JAVA else []),
    *(["carol", "jack"] if C else []),
]
PLAYING = [*READY, "erin", "fred", "ivan"]  # collected, so in the tournament
MB = 1 << 20


@pytest.fixture(scope="module")
def course(readable_folders: ReadableFolders) -> Path:
    """The course after collect, check, the tournament and report (each step checked below)."""
    folder = make_course(readable_folders.mktemp("kit"), java=JAVA, c=C)
    collected = referee("course", "collect", "-C", str(folder), cwd=folder)
    assert collected.returncode == (1 if C else 0), collected.stderr  # dave's build fails
    checked = referee("course", "check", "-C", str(folder), cwd=folder)
    assert checked.returncode == 1, checked.stderr  # erin, fred and ivan are not ready
    loaded = load_config(Course(folder).tournament_config)
    settings = SessionSettings(allow_broken=True)
    final = play_tournament(loaded, [SessionLines(Console(file=io.StringIO()))], settings)
    assert final is not None and final.complete
    reported = referee("course", "report", "-C", str(folder), cwd=folder)
    assert reported.returncode == 0, reported.stderr
    return folder


def test_new_writes_a_course_that_loads(tmp_path: Path) -> None:
    done = referee("course", "new", "mine", "-g", "alak", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    course = Course(tmp_path / "mine")
    assert course.config.game == "alak"
    assert course.submissions.is_dir()
    scheme = load_scheme(course.scheme_path)
    assert scheme.clean > 0 and scheme.grades
    again = referee("course", "new", "mine", cwd=tmp_path)
    assert again.returncode == 2 and "exists" in again.stderr


def test_a_bad_setting_is_named_with_file_line_and_field(tmp_path: Path) -> None:
    (tmp_path / "course.toml").write_text('name = "x"\ngame = "alak"\n\n[check]\ngames = 3\n')
    with pytest.raises(CourseError, match=r"course.toml:5: check.games: unknown setting"):
        Course(tmp_path)
    (tmp_path / "grading.toml").write_text("clean = 1\n[[rank]]\nup_to = 2\npoints = 1\n")
    with pytest.raises(CourseError, match=r"grading.toml:3: rank\[0\].up_to"):
        load_scheme(tmp_path / "grading.toml")


def test_a_zip_leaving_its_folder_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ok.py", "print(1)\n")
        zf.writestr("../escaped.py", "print(2)\n")
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(UnpackError, match="leaves its folder"):
        unpack_zip(archive, dest, 100, MB)
    assert not (tmp_path / "escaped.py").exists()
    assert not any(dest.iterdir())  # checked before anything is written


def test_absolute_paths_links_and_size_are_refused(tmp_path: Path) -> None:
    absolute = tmp_path / "abs.zip"
    with zipfile.ZipFile(absolute, "w") as zf:
        zf.writestr("/etc/evil", "x")
    with pytest.raises(UnpackError, match="absolute"):
        unpack_zip(absolute, tmp_path, 100, MB)
    linked = tmp_path / "link.tar.gz"
    with tarfile.open(linked, "w:gz") as tf:
        info = tarfile.TarInfo("passwd")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tf.addfile(info)
    with pytest.raises(UnpackError, match="link"):
        unpack_tar(linked, tmp_path, 100, MB)
    big = tmp_path / "big.zip"
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros", b"\0" * (2 * MB))
    with pytest.raises(UnpackError, match="more than 1 MB"):
        unpack_zip(big, tmp_path, 100, MB)


def test_a_repository_linking_outside_is_refused(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"player.py": PYTHON_BOT})
    (repo / "secrets").symlink_to("/etc/passwd")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "bot"], check=True)
    dest = tmp_path / "out"
    with pytest.raises(UnpackError, match="secrets links outside"):
        trio.run(unpack, repo, dest, 100, MB)
    assert not dest.exists()


def test_collect_builds_what_it_can_and_names_each_failure(course: Path) -> None:
    found = load_collected(Course(course).work)
    assert sorted(s for s, sub in found.items() if sub.ready) == sorted(PLAYING)
    if C:
        dave = found["dave"]
        assert not dave.ready and dave.problem is not None and "build failed" in dave.problem
        assert "error" in dave.build_output  # the compiler's words, for the student
        assert found["carol"].build is not None and found["carol"].command == "./bot"
        assert found["jack"].build == "make" and found["jack"].command == "./bot"
    assert found["gina"].command == "python3 player.py"  # unzipped from its top folder
    assert found["hugo"].commit is not None and len(found["hugo"].commit) == 40
    assert found["hugo"].content_hash == found["alice"].content_hash  # the commit named
    assert found["fred"].command == "python3 mine.py"  # from its run.txt
    if JAVA:
        assert found["bob"].command == "java -cp . Main"
    assert all(len(found[s].content_hash or "") == 64 for s in READY)
    config = load_config(Course(course).tournament_config).config
    assert sorted(config.player_names) == sorted(["builtin-random", *PLAYING])


def only(course: Course, keep: set[str]) -> None:
    for entry in course.submissions.iterdir():
        if entry.name not in keep:
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()


def test_collect_again_keeps_unchanged_students(tmp_path: Path) -> None:
    course = Course(make_course(tmp_path, java=False))
    write(course.submissions / "zoe", {"player.py": PYTHON_BOT})
    only(course, {"zoe"})
    seen: list[str] = []
    trio.run(
        lambda: collect(course, course.submissions, on_student=lambda s: seen.append(s.student))
    )
    marker = load_collected(course.work)["zoe"].path(course.work) / "marker"
    marker.write_text("kept")
    trio.run(lambda: collect(course, course.submissions))
    assert marker.exists()  # the entry did not change: the collected folder was kept
    (course.submissions / "zoe" / "player.py").write_text(PYTHON_BOT + "\n# changed\n")
    trio.run(lambda: collect(course, course.submissions))
    assert not marker.exists()  # collected again from the changed entry
    assert load_collected(course.work)["zoe"].ready


def test_an_interrupted_check_keeps_the_finished_students(tmp_path: Path) -> None:
    folder = make_course(tmp_path, java=False, c=False)
    text = (folder / "course.toml").read_text().replace("move_timeout = 1.0", "move_timeout = 60.0")
    (folder / "course.toml").write_text(text)
    course = Course(folder)
    only(course, {"alice", "ivan"})  # ivan thinks for a minute from his third move
    assert referee("course", "collect", "-C", str(folder), cwd=folder).returncode == 0
    check = subprocess.Popen(
        [sys.executable, "-m", "referee", "course", "check", "-C", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    page = course.work / "check" / "report.html"
    deadline = time.monotonic() + 120
    while not (page.exists() and "1 more not checked" in page.read_text()):  # alice is done
        assert time.monotonic() < deadline and check.poll() is None
        time.sleep(0.1)
    check.send_signal(signal.SIGINT)
    _, err = check.communicate(timeout=60)
    assert check.returncode == 130, err
    assert "interrupted after 1 students" in err
    text = page.read_text()
    assert "1 of 1 bots are ready" in text and "1 more not checked" in text


def test_check_report_says_who_is_ready(course: Path) -> None:
    page = (Course(course).work / "check" / "report.html").read_text()
    assert f"{len(READY)} of {len(PLAYING) + C} bots are ready" in page
    assert "illegal move" in page  # fred
    assert "crash" in page  # erin
    assert "too slow" in page  # ivan
    assert ("build failed" in page) is C  # dave


def test_rank_bands_and_grade_steps() -> None:
    scheme = GradingScheme.model_validate(
        {
            "rank": [{"up_to": 0.25, "points": 40}, {"up_to": 1.0, "points": 10}],
            "grades": [{"min": 0, "grade": "F"}, {"min": 40, "grade": "A"}],
        }
    )
    assert [band_points(scheme, rank, 8) for rank in (1, 2, 3, 8)] == [40, 40, 10, 10]
    assert [grade_of(scheme, p) for p in (40, 39.5, -3)] == ["A", "F", "F"]
    assert grade_of(scheme.model_copy(update={"grades": []}), 40) == ""


def test_grades_follow_the_scheme(course: Path) -> None:
    done = referee("course", "grades", "-C", str(course), cwd=course)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((Course(course).work / "grades.csv").open()))
    assert list(rows[0]) == ["student", "points", "rank", "games", "faults", "grade"]
    by = {r["student"]: r for r in rows}
    if C:
        assert by["dave"]["games"] == "0" and by["dave"]["rank"] == ""
    assert all(int(by[s]["faults"]) > 0 for s in ("erin", "fred", "ivan"))
    scheme = load_scheme(Course(course).scheme_path)
    for student in READY:
        assert int(by[student]["faults"]) == 0
        assert float(by[student]["points"]) >= scheme.clean  # clean, and a rank band
    # A scheme of its own: nothing but a grade for everybody.
    own = course / "pass.toml"
    own.write_text('[[grades]]\nmin = -1000\ngrade = "P"\n')
    done = referee("course", "grades", "-C", str(course), "--scheme", str(own), cwd=course)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((Course(course).work / "grades.csv").open()))
    assert {r["grade"] for r in rows} == {"P"}


def test_pages_show_every_game_offline(course: Path, browser: Any) -> None:
    report = Course(course).work / "report"
    store = load_config(Course(course).tournament_config).directory
    view = open_view(store)
    games = view.games()
    view.close()
    context = browser.new_context(offline=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto((report / "index.html").as_uri())
    linked = page.eval_on_selector_all("a", "els => els.map(e => e.textContent)")
    assert sorted(linked) == sorted(PLAYING)
    for student in PLAYING:
        page.goto((report / "students" / f"{student}.html").as_uri())
        numbers = page.eval_on_selector_all("section.game", "els => els.map(e => e.dataset.game)")
        theirs = [str(g.number) for g in games if student in (g.blue, g.orange)]
        assert sorted(numbers) == sorted(theirs)
    page.goto((report / "students" / "fred.html").as_uri())
    explained = page.inner_text(".explained")
    assert "illegal move" in explained and "your bot wrote: 'a'" in explained
    page.goto((report / "students" / "erin.html").as_uri())
    assert "KeyError" in page.inner_text(".explained")  # the tail of its stderr
    page.goto((report / "students" / "ivan.html").as_uri())
    assert "your time use: 2 moves before it" in page.inner_text(".explained >> nth=0")
    first = min(g.number for g in games if "alice" in (g.blue, g.orange))
    page.goto((report / "students" / "alice.html").as_uri())
    frame = page.frame_locator(f"#game-{first} iframe")
    frame.locator("svg.board").first.wait_for(timeout=10000)
    context.close()
    assert not errors, errors


def test_records_of_a_game_played_in_the_submissions_folder_are_no_student(
    tmp_path: Path,
) -> None:
    # `referee play` run from the submissions folder leaves its records there.
    course = Course(make_course(tmp_path, java=False, c=False))
    only(course, {"alice"})
    write(course.submissions / "referee-games", {"0001.jsonl": "{}\n"})
    seen: list[str] = []
    trio.run(
        lambda: collect(course, course.submissions, on_student=lambda s: seen.append(s.student))
    )
    assert seen == ["alice"]
    assert set(load_collected(course.work)) == {"alice"}
