"""`referee course collect`'s engine: every student's entry unpacked, built once and told how to
run, then the tournament config of everyone who is ready.

One failure (an archive refused, a build that fails, no way to run it) is that student's, in
plain words; the others go on. Each student's result is saved in `collected.json` as soon as it
is known, so an interrupted collect loses nothing finished, and a second run reuses the students
whose entry has not changed since.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import trio
from pydantic import BaseModel, ConfigDict, ValidationError

from referee.course.builds import build, build_isolation, content_hash
from referee.course.scheme import BASELINE_PREFIX, COURSE_FILE, Course, CourseError
from referee.course.unpack import UnpackError, is_entry, normalise_modes, student_id, unpack
from referee.isolation import Isolation, Limits
from referee.nofollow import make_folder, write_file
from referee.printable import printable
from referee.toml_config.writing import toml_string
from referee.tournament.bot_folders import command_problem
from referee.tournament.config import COLLECTED_MARK
from referee.tournament.layouts import guess_command

COLLECTED_FILE = "collected.json"
COURSE_LEVELS = 3  # how far above its tournament config a course's file is looked for
STUDENTS_DIR = "students"  # in the work folder: one folder per student
MB = 1 << 20


class Submission(BaseModel):
    """What collect found for one student."""

    model_config = ConfigDict(frozen=True)

    student: str
    entry: str  # the entry in the submissions folder
    stamp: str  # the entry's size and modification time: a changed entry is collected again
    folder: str  # where it was unpacked and built: relative to the work folder (so it can move)
    status: Literal["ready", "failed"]
    command: str | None = None
    build: str | None = None  # the build command, if one ran
    build_output: str = ""
    content_hash: str | None = None
    commit: str | None = None  # for a git repository
    problem: str | None = None  # why it is not ready

    @property
    def ready(self) -> bool:
        return self.status == "ready"

    def path(self, work: Path) -> Path:
        """Its folder (a list written by an older referee holds absolute folders)."""
        return work / self.folder


def entry_stamp(entry: Path) -> str:
    """Size and latest modification of everything in the entry (cheap, not a hash)."""
    files = [entry] if entry.is_file() else [p for p in entry.rglob("*") if p.is_file()]
    stats = [p.stat() for p in files]
    return f"{sum(s.st_size for s in stats)}:{max((s.st_mtime_ns for s in stats), default=0)}"


def entries(submissions: Path) -> list[tuple[str, Path]]:
    """(student id, entry) for every entry, ids made unique (alice, alice-2)."""
    found: list[tuple[str, Path]] = []
    seen: set[str] = set()
    for entry in sorted(submissions.iterdir()):
        if not is_entry(entry):
            continue
        sid, number = student_id(entry), 1
        while (sid if number == 1 else f"{sid}-{number}") in seen:
            number += 1
        sid = sid if number == 1 else f"{sid}-{number}"
        seen.add(sid)
        found.append((sid, entry))
    return found


def load_collected(work: Path) -> dict[str, Submission]:
    path = work / COLLECTED_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {s.student: s for s in (Submission.model_validate(x) for x in raw)}
    except (OSError, ValueError, ValidationError):
        return {}


def save_collected(work: Path, found: dict[str, Submission]) -> None:
    """Written to a new file then renamed: an interrupted write leaves the old list whole."""
    path = work / COLLECTED_FILE
    data = [found[k].model_dump(mode="json") for k in sorted(found)]
    write_file(path, json.dumps(data, indent=2) + "\n")


async def collect_one(
    sid: str, entry: Path, course: Course, isolation: Isolation, limits: Limits
) -> Submission:
    settings = course.config.build
    relative = Path(STUDENTS_DIR, sid)
    folder = (course.work / relative).resolve()
    base = Submission(
        student=sid,
        entry=str(entry),
        stamp=entry_stamp(entry),
        folder=relative.as_posix(),
        status="failed",
    )
    try:
        commit = await unpack(entry, folder, settings.max_files, settings.max_unpacked_mb * MB)
    except (UnpackError, OSError) as exc:
        return base.model_copy(update={"problem": f"cannot unpack: {exc}"})
    base = base.model_copy(update={"commit": commit})
    built = await build(folder, isolation, limits, settings.timeout)
    shown = " ".join(built.command) if built.command else None
    base = base.model_copy(update={"build": shown, "build_output": built.output})
    if not built.ok:
        return base.model_copy(update={"problem": f"the build failed: {built.problem}"})
    normalise_modes(folder)  # the build ran under a private umask; bots run as other users
    guess = guess_command(folder)
    if guess.command is None:
        return base.model_copy(update={"problem": f"no way to run it: {guess.note}"})
    if refusal := command_problem(guess.command, folder):
        return base.model_copy(update={"problem": refusal})
    return base.model_copy(
        update={"status": "ready", "command": guess.command, "content_hash": content_hash(folder)}
    )


async def collect(
    course: Course,
    submissions: Path,
    *,
    concurrency: int = 2,
    on_student: Callable[[Submission], None] | None = None,
    fresh: bool = False,
) -> dict[str, Submission]:
    """Collect every entry of `submissions`; save each result as it comes; write the config."""
    work = course.work
    # Before anything is written: the work folder (its students' too) never through a link
    # someone else planted (`PlantedLink`, referee/nofollow.py).
    make_folder(work / STUDENTS_DIR)
    previous = {} if fresh else load_collected(work)
    isolation = build_isolation(course.config.isolation)
    current = entries(submissions)
    # Until a student is collected again, the last result stands: an interrupted run then
    # leaves a list (and a tournament config) with everybody who was there before.
    found = {sid: previous[sid] for sid, _ in current if sid in previous}
    limiter = trio.CapacityLimiter(concurrency)

    async def one(sid: str, entry: Path) -> None:
        old = previous.get(sid)
        if old is not None and old.stamp == entry_stamp(entry) and old.path(work).is_dir():
            result = recheck(old, work)
        else:
            async with limiter:
                result = await collect_one(sid, entry, course, isolation, Limits())
        found[sid] = result
        save_collected(work, found)
        if on_student is not None:
            on_student(result)

    async with trio.open_nursery() as nursery:
        for sid, entry in current:
            nursery.start_soon(one, sid, entry)
    write_tournament_config(course, list(found.values()))
    return found


def recheck(old: Submission, work: Path) -> Submission:
    """A student's earlier result, kept for an entry that has not changed, with its command
    checked again (one collected before commands were checked may name what it may not)."""
    if not old.ready or old.command is None:
        return old
    refusal = command_problem(old.command, old.path(work))
    return (
        old if refusal is None else old.model_copy(update={"status": "failed", "problem": refusal})
    )


def tournament_text(course: Course, submissions: list[Submission]) -> str:
    """The tournament config: every ready student and the baselines, with the course's time
    control and isolation."""
    c = course.config
    t = c.tournament
    lines = [
        f"{COLLECTED_MARK}: run it with `referee tournament run` on this file.",
        "# Collect again to add or update students: the games already played are kept.",
        f"name = {toml_string(c.name)}",
        f"game = {toml_string(c.game)}",
        f"seed = {t.seed}",
        f"games_per_pairing = {t.games_per_pairing}",
        'directory = "tournament"',
    ]
    if t.concurrency is not None:
        lines.append(f"concurrency = {t.concurrency}")
    lines.append("\n[game_options]")
    lines += [f"{key} = {json.dumps(value)}" for key, value in c.game_options.items()]
    lines.append("\n[time_control]")
    for key, value in c.time_control.model_dump(exclude_none=True).items():
        lines.append(f"{key} = {json.dumps(value)}")
    lines += ["\n[match.isolation]", f"level = {toml_string(c.isolation)}"]
    for name in t.baselines:
        lines += ["\n[[players]]", f'name = "{BASELINE_PREFIX}{name}"']
        lines.append(f'command = "builtin:{name} --seed {{seed}}"')
    for s in sorted(submissions, key=lambda s: s.student):
        if s.ready and s.command is not None:
            lines += [
                "\n[[players]]",
                f"name = {toml_string(s.student)}",
                f"command = {toml_string(s.command)}",
                # Relative to this file, so the course folder can be moved as a whole.
                f"cwd = {toml_string(relative_folder(s, course.work))}",
            ]
        else:
            problem = printable(" ".join((s.problem or "").split()))
            lines.append(f"\n# {s.student}: not ready: {problem}")
    return "\n".join(lines) + "\n"


def relative_folder(submission: Submission, work: Path) -> str:
    """A student's folder as the tournament config (in `work`) names it."""
    return Path(os.path.relpath(submission.path(work), work)).as_posix()


def write_tournament_config(course: Course, submissions: list[Submission]) -> Path:
    path = course.tournament_config
    write_file(path, tournament_text(course, submissions))
    return path


def course_places(config: Path) -> list[Path]:
    """The course whose tournament config (written by collect) is `config`: its folder, its
    file and grading scheme, its submissions and its work folder (where the students' folders,
    the tournament, the grades and the feedback pages are), for a tournament run to hide from
    every bot; none if no course file above `config` names it as its own."""
    config = config.resolve()
    for folder in list(config.parents)[:COURSE_LEVELS]:
        try:
            course = Course(folder / COURSE_FILE)
        except CourseError:
            continue
        if course.tournament_config.resolve() == config:
            places = [course.path, course.scheme_path, course.submissions, course.work]
            return [folder, *(place.resolve() for place in places)]
    return []
