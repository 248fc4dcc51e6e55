"""Build one submission once, confined like a bot, with a time limit.

What to build is found from the folder (first match wins):

1. `referee.toml` with `build = "..."` (the student's own build command);
2. a Makefile: `make`;
3. Java sources with a `main` and no compiled classes: `javac -d . ` every `.java` file;
4. C sources at the top of the folder and no Makefile: `gcc -O2 -o bot *.c -lm`.

A build runs under the course's isolation with the same limits as a bot, but with its own folder
writable (it must write its program there). A referee running as root never runs a student's
build as root, in the sandbox or not: the sandbox shows the machine's system folders, and a
build run as uid 0 there reads what only root may (`/etc/shadow`, root's own files). The build
runs as a user of its own, like a bot, with the folder opened to it for the build and everything
in it given back to the referee's user afterwards. A build that leaves a link leading out of its
folder, or a pipe, socket or device in it, fails: the referee reads the folder after the build
(its run.txt, its files to hash) and must not be led to its own files or blocked. The content
hash of the folder after the build says exactly what was built.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.bot_content import folder_hash
from referee.isolation import (
    Confinement,
    Feature,
    InfrastructureFailure,
    Isolation,
    IsolationSettings,
    Limits,
    StartRefused,
    choose,
    start_confined,
)
from referee.tournament.layouts import MAKEFILES

# What the student sees of the build's output: its start (the first compiler error) and its
# end (the last words), with a marker saying how much was cut between them.
HEAD_KEPT = 4000
OUTPUT_KEPT = 4000
_JAVA_MAIN = re.compile(r"\bstatic\s+(?:public\s+)?(?:final\s+)?void\s+main\s*\(")


@dataclass(frozen=True)
class BuildResult:
    command: list[str] | None  # None: nothing to build
    ok: bool
    output: str = ""  # the tail of what the build wrote (stdout and stderr together)
    problem: str | None = None  # in plain words, when not ok


def build_command(folder: Path) -> list[str] | None:
    """How to build the submission in `folder`, or None when it needs no build."""
    manifest = folder / "referee.toml"
    if manifest.is_file():
        try:
            build = tomllib.loads(manifest.read_text(encoding="utf-8", errors="replace"))
        except tomllib.TOMLDecodeError:
            build = {}
        if isinstance(build.get("build"), str) and build["build"].strip():
            return shlex.split(build["build"])
    if any((folder / name).is_file() for name in MAKEFILES):
        return ["make"]
    sources = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.java"))
    compiled = any(folder.rglob("*.class"))
    has_main = any(_JAVA_MAIN.search(_text(folder / s)) for s in sources)
    if sources and not compiled and has_main:
        return ["javac", "-encoding", "UTF-8", "-d", ".", *sources]
    c_files = sorted(p.name for p in folder.glob("*.c"))
    if c_files:
        return ["gcc", "-O2", "-o", "bot", *c_files, "-lm"]
    return None


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def build_isolation(level: str) -> Isolation:
    """The course's isolation for builds: the level's, with the folder writable (see above)."""
    return choose(IsolationSettings(level=level, writable_dir=True))


def _open_to_others(folder: Path) -> None:
    """Let a build running as a user of its own write its folder (for the build only)."""
    for here, _dirs, files in os.walk(folder):
        os.chmod(here, 0o777)
        for name in files:
            path = Path(here, name)
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o666)


def _give_back(folder: Path) -> None:
    """Everything in the folder belongs to the referee's user again, writable by it alone."""
    uid, gid = os.getuid(), os.getgid()
    for here, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            os.chown(Path(here, name), uid, gid, follow_symlinks=False)
        os.chown(here, uid, gid)
        os.chmod(here, 0o755)
        for name in files:
            path = Path(here, name)
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o022)


async def build(folder: Path, isolation: Isolation, limits: Limits, timeout: float) -> BuildResult:
    """Build `folder` once; a failure is described, never raised."""
    argv = build_command(folder)
    if argv is None:
        return BuildResult(None, True)
    own_user = Feature.USERS in isolation.features
    if own_user:
        _open_to_others(folder)
    try:
        built = await _build(folder, argv, isolation, limits, timeout)
    finally:
        if own_user:
            _give_back(folder)
    stray = stray_entry(folder) if built.ok else None
    if stray is not None:
        problem = f"`{' '.join(argv)}` left {stray}: the referee follows nothing out of the folder"
        return BuildResult(argv, False, built.output, problem)
    return built


def stray_entry(folder: Path) -> str | None:
    """The first thing a build left in `folder` that the referee must neither follow nor read
    when it looks for the command and hashes the folder: a link that leads out of the folder
    (to a file of the referee's machine) or a special file (a pipe would block the reader, a
    device never ends). None when there is none: the build's processes are gone by then, so
    the folder stays as it was checked."""
    root = folder.resolve()
    for here, dirs, files in os.walk(folder):
        for name in sorted([*dirs, *files]):
            path = Path(here, name)
            shown = path.relative_to(folder).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                real = path.resolve()
                if real != root and root not in real.parents:
                    return f"a link that leads out of its folder ({shown})"
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                return f"a special file ({shown})"
    return None


async def _build(
    folder: Path, argv: list[str], isolation: Isolation, limits: Limits, timeout: float
) -> BuildResult:
    shown = " ".join(argv)
    confinement = Confinement(isolation, limits, freeze=False, untrusted_command=True)
    try:
        process = await start_confined(argv, folder.resolve(), None, (), confinement)
    except StartRefused as exc:
        return BuildResult(argv, False, problem=f"`{shown}` could not start: {exc}")
    except InfrastructureFailure as exc:
        return BuildResult(argv, False, problem=f"the machine failed to start the build: {exc}")
    output = BuildOutput()
    timed_out = False
    try:
        assert process.stdin is not None
        await process.stdin.aclose()  # a build reads nothing
        with trio.move_on_after(timeout) as scope:
            async with trio.open_nursery() as nursery:
                for stream in (process.stdout, process.stderr):
                    if stream is not None:
                        nursery.start_soon(_drain, stream, output)
                await process.wait()
        timed_out = scope.cancelled_caught
    finally:
        with trio.CancelScope(shield=True):
            await confinement.kill_everything()
            await process.wait()
            await confinement.release()
    text = output.text()
    if timed_out:
        return BuildResult(argv, False, text, f"`{shown}` took longer than {timeout:g} s")
    assert process.returncode is not None  # waited for above
    code, limit = confinement.explain_exit(process.returncode, output.last_words())
    if code != 0:
        why = f"; it {limit}" if limit else ""
        return BuildResult(argv, False, text, f"`{shown}` failed (exit code {code}){why}")
    return BuildResult(argv, True, text)


class BuildOutput:
    """A build's output as the student sees it: its first `HEAD_KEPT` bytes and its last
    `OUTPUT_KEPT`, in bounded memory however much it writes."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def append(self, chunk: bytes | bytearray) -> None:
        self.total += len(chunk)
        room = HEAD_KEPT - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk[-OUTPUT_KEPT:]
        del self.tail[: max(0, len(self.tail) - OUTPUT_KEPT)]

    def last_words(self) -> str:
        """The end of the output (what says how a process ended)."""
        return bytes(self.head + self.tail)[-OUTPUT_KEPT:].decode(errors="replace")

    def text(self) -> str:
        """The head, a line "... N bytes cut ..." where bytes were dropped, then the tail;
        the parts cut at line ends where they hold one, so no line is shown in half."""
        head, tail = bytes(self.head), bytes(self.tail)
        cut = self.total - len(head) - len(tail)
        if cut == 0:
            return (head + tail).decode(errors="replace")
        end = head.rfind(b"\n") + 1
        if end > 0:
            cut, head = cut + len(head) - end, head[:end]
        start = tail.find(b"\n") + 1
        if 0 < start < len(tail):
            cut, tail = cut + start, tail[start:]
        newline = "" if not head or head.endswith(b"\n") else "\n"
        marker = f"{newline}... {cut} bytes cut ...\n"
        return head.decode(errors="replace") + marker + tail.decode(errors="replace")


async def _drain(stream: trio.abc.ReceiveStream, into: BuildOutput) -> None:
    while chunk := await stream.receive_some(65536):
        into.append(chunk)


def content_hash(folder: Path) -> str:
    """sha256 over every file's relative path and bytes (sorted, `.git` skipped): the same
    folder always gives the same hash, and any change to what was built changes it."""
    return folder_hash(folder)
