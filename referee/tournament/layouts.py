"""How to start one submitted bot, found from the layout of its folder (`tournament new`).

The layouts are tried in this order, and the first that names one command wins:

1. a manifest: `run.txt` (the command on its first line that is neither blank nor a `#`
   comment), or `referee.toml` / `bot.toml` with `run = "..."`;
2. an executable `run` or `run.sh`;
3. Python: the only `.py` file, else the only one with an `if __name__ == "__main__":` block,
   else `main.py`, `player.py` or `bot.py`;
4. the only `.jar` (`java -jar X.jar`);
5. compiled Java: the class with `public static void main`, known from its `.java` source or
   from the `.class` itself, run from its class-path root (`java -cp . Main`);
6. a Makefile: the referee never runs `make`; the program it builds (already built, or named by
   `-o NAME` or `TARGET = NAME`) is the command, with a note to build it first;
7. the only executable file.

A layout that is there but names no single command (three `.py` files and no main, two jars)
leaves a clue instead; when no layout wins, the first clue becomes the note that tells the
instructor what was found and what to write. Nothing here runs or imports a bot.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

PYTHON_MAINS = ("main.py", "player.py", "bot.py")
RUN_SCRIPTS = ("run", "run.sh")
TOML_MANIFESTS = ("referee.toml", "bot.toml")
MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")  # how a submission may be handed in
MAX_DEPTH = 4  # how deep Java sources and classes are looked for (src/main/java/...)
MAX_READ = 1 << 20  # bytes of one file read when looking for a main

_PY_MAIN = re.compile(r"""^if\s+__name__\s*==\s*["']__main__["']\s*:""", re.MULTILINE)
_JAVA_MAIN = re.compile(r"\b(?:public\s+static|static\s+public)\s+(?:final\s+)?void\s+main\s*\(")
_JAVA_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
# A class that declares main has these two constant-pool entries (CONSTANT_Utf8, u2 length).
_CLASS_MAIN = (b"\x01\x00\x04main", b"\x01\x00\x16([Ljava/lang/String;)V")
_MAKE_OUTPUT = re.compile(r"-o\s+([\w.-]+)")
_MAKE_TARGET_VAR = re.compile(
    r"^(?:TARGET|BIN|BINARY|EXEC|EXECUTABLE|PROG|PROGRAM|NAME|OUT)\s*[:?]?=\s*([\w.-]+)\s*$",
    re.MULTILINE,
)
_MAKE_RULE = re.compile(r"^([\w.-]+)\s*:(?!=)", re.MULTILINE)
_NOT_PROGRAMS = {"all", "clean", "install", "test", "run", "build", "default"}


@dataclass(frozen=True)
class Guess:
    """How to start a bot: `command` (None when no layout named one) and `note`, which says
    what the instructor must do: build it first, or what was found and what to write."""

    command: str | None
    note: str | None = None
    example: str | None = None  # with no command: the likeliest one, for the instructor to check


@dataclass(frozen=True)
class _Clue:
    """A layout that is there but ambiguous: what was found, what to do, a command to suggest."""

    found: str
    example: str
    todo: str = "add a run.txt with the command"


Detector = Callable[[Path], Guess | _Clue | None]


def guess_command(folder: Path) -> Guess:
    """How to start the bot in `folder`, or a note saying why that could not be told."""
    clues: list[_Clue] = []
    for detect in DETECTORS:
        found = detect(folder)
        if isinstance(found, Guess):
            return found
        if found is not None:
            clues.append(found)
    clue = clues[0] if clues else _Clue(_contents(folder), "python3 bot.py")
    return Guess(None, f"{clue.found}; {clue.todo}, e.g. `{clue.example}`", clue.example)


def is_submission(path: Path) -> bool:
    """Whether `path` looks like a bot handed in: an archive, or a folder in which some layout
    is found (a way to run it, or one that is there but ambiguous)."""
    if path.name.lower().endswith(ARCHIVE_SUFFIXES):
        return path.is_file()
    return path.is_dir() and any(detect(path) is not None for detect in DETECTORS)


# -- the layouts, in order ------------------------------------------------------------------


def _manifest(folder: Path) -> Guess | _Clue | None:
    run_txt = folder / "run.txt"
    if run_txt.is_file():
        for line in _read(run_txt).splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                return Guess(line.strip())
        return _Clue("a run.txt with no command in it", "python3 bot.py")
    for name in TOML_MANIFESTS:
        if (folder / name).is_file():
            try:
                run = tomllib.loads(_read(folder / name)).get("run")
            except tomllib.TOMLDecodeError as exc:
                return _Clue(f"{name} is not valid TOML ({exc})", "python3 bot.py")
            if isinstance(run, str) and run.strip():
                return Guess(run.strip())
    return None


def _run_script(folder: Path) -> Guess | None:
    for name in RUN_SCRIPTS:
        if _executable(folder / name):
            return Guess(f"./{name}")
    if (folder / "run.sh").is_file():  # unpacked from an archive that lost the execute bit
        return Guess("sh run.sh")
    return None


def _python(folder: Path) -> Guess | _Clue | None:
    files = sorted(p.name for p in folder.glob("*.py") if p.is_file())
    if len(files) <= 1:
        return Guess(f"python3 {files[0]}") if files else None
    mains = [name for name in files if _PY_MAIN.search(_read(folder / name))]
    if len(mains) == 1:
        return Guess(f"python3 {mains[0]}")
    usual = [name for name in PYTHON_MAINS if name in (mains or files)]
    if usual:
        return Guess(f"python3 {usual[0]}")
    example = _named_like(folder, mains or files, ".py")
    if mains:
        found = f"{len(files)} .py files, {len(mains)} with a main ({', '.join(mains)})"
    else:
        found = f"{len(files)} .py files and no main"
    return _Clue(found, f"python3 {example}")


def _jar(folder: Path) -> Guess | _Clue | None:
    jars = sorted(p.name for p in folder.glob("*.jar") if p.is_file())
    if len(jars) == 1:
        return Guess(f"java -jar {jars[0]}")
    if jars:
        example = _named_like(folder, jars, ".jar")
        return _Clue(f"{len(jars)} .jar files ({', '.join(jars)})", f"java -jar {example}")
    return None


def _java_classes(folder: Path) -> Guess | _Clue | None:
    classes = [p for p in _files(folder, ".class") if "$" not in p.name]
    mains = _mains_from_sources(folder, classes) or _mains_from_classes(folder, classes)
    if len(mains) == 1:
        return Guess(mains[0])
    if mains:
        names = ", ".join(command.split()[-1] for command in mains)
        return _Clue(f"{len(mains)} Java classes with a main ({names})", mains[0])
    if classes:
        return _Clue(f"{len(classes)} .class files and no main class", "java -cp . Main")
    sources = [p for p in _files(folder, ".java") if _JAVA_MAIN.search(_read(p))]
    if sources:
        main = sources[0].relative_to(folder).as_posix()
        return _Clue(
            f"Java sources but no compiled classes ({main} has the main)",
            f"java -cp . {sources[0].stem}",
            "compile them first (`javac *.java`), then add a run.txt with the command",
        )
    return None


def _mains_from_sources(folder: Path, classes: list[Path]) -> list[str]:
    """`java -cp ROOT NAME` for each compiled class whose source declares main."""
    commands = []
    for source in _files(folder, ".java"):
        text = _read(source)
        if not _JAVA_MAIN.search(text):
            continue
        package = _JAVA_PACKAGE.search(text)
        qualified = f"{package.group(1)}.{source.stem}" if package else source.stem
        tail = Path(*qualified.split(".")).with_suffix(".class")
        for compiled in classes:
            if compiled.as_posix().endswith("/" + tail.as_posix()):
                root = compiled.parents[len(tail.parts) - 1].relative_to(folder)
                commands.append(f"java -cp {root.as_posix()} {qualified}")
                break
    return sorted(set(commands))


def _mains_from_classes(folder: Path, classes: list[Path]) -> list[str]:
    """Classes at the top of the folder (no package) that declare main, with no source."""
    top = [p for p in classes if p.parent == folder]
    mains = []
    for path in top:
        data = _read_bytes(path)
        if all(marker in data for marker in _CLASS_MAIN):
            mains.append(f"java -cp . {path.stem}")
    return sorted(mains)


def _makefile(folder: Path) -> Guess | _Clue | None:
    makefile = next((folder / n for n in MAKEFILES if (folder / n).is_file()), None)
    if makefile is None:
        return None
    make = f"`make -C {folder}` (the referee never runs make)"
    built = [p.name for p in sorted(folder.iterdir()) if _executable(p) and _is_binary(p)]
    if len(built) == 1:
        note = f"{built[0]}, built by its {makefile.name}: after a change, run {make}"
        return Guess(f"./{built[0]}", note)
    program = _made_program(_read(makefile))
    if program is not None:
        return Guess(
            f"./{program}", f"a {makefile.name} that makes {program}: build it first, {make}"
        )
    return _Clue(
        f"a {makefile.name} but no program it obviously makes",
        "./bot",
        "run `make` (the referee does not), then add a run.txt with the command",
    )


def _made_program(text: str) -> str | None:
    """The program a Makefile builds: `TARGET = x`, `-o x`, or its first real rule's target."""
    for pattern in (_MAKE_TARGET_VAR, _MAKE_OUTPUT, _MAKE_RULE):
        for name in pattern.findall(text):
            if name.lower() not in _NOT_PROGRAMS and not name.endswith((".o", ".c", ".h")):
                return str(name)
    return None


def _single_executable(folder: Path) -> Guess | _Clue | None:
    programs = [p.name for p in sorted(folder.iterdir()) if _executable(p)]
    if len(programs) == 1:
        return Guess(f"./{programs[0]}")
    if programs:
        return _Clue(
            f"{len(programs)} executable files ({', '.join(programs)})", "./" + programs[0]
        )
    return None


DETECTORS: tuple[Detector, ...] = (
    _manifest,
    _run_script,
    _python,
    _jar,
    _java_classes,
    _makefile,
    _single_executable,
)


# -- helpers --------------------------------------------------------------------------------


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _is_binary(path: Path) -> bool:
    """A compiled program (ELF, 64-bit Mach-O), not a script that happens to be executable."""
    return _read_bytes(path, 4) in (b"\x7fELF", b"\xcf\xfa\xed\xfe")


def _read(path: Path) -> str:
    return _read_bytes(path).decode("utf-8", "replace")


def _read_bytes(path: Path, limit: int = MAX_READ) -> bytes:
    """The first `limit` bytes of a file; none if it cannot be read (a submission may hold
    anything, including files its owner alone may read)."""
    try:
        with path.open("rb") as file:
            return file.read(limit)
    except OSError:
        return b""


def _files(folder: Path, suffix: str) -> Iterator[Path]:
    """Files ending in `suffix` up to `MAX_DEPTH` folders down, hidden folders skipped."""
    for here, dirs, files in os.walk(folder):
        depth = len(Path(here).relative_to(folder).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if depth < MAX_DEPTH else []
        for name in sorted(files):
            if name.endswith(suffix):
                yield Path(here, name)


def _named_like(folder: Path, names: list[str], suffix: str) -> str:
    """The candidate named after the folder (carol/carol.py), else the first."""
    return next((n for n in names if n == folder.name + suffix), names[0])


def _contents(folder: Path) -> str:
    names = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    if not names:
        return "an empty folder"
    shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    return f"no program found ({shown})"
