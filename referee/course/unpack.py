"""Unpack one student's entry into a folder of its own, safely.

An entry is a folder, a `.zip`, a `.tar.gz`/`.tgz`/`.tar`, or a git repository: a folder with
`.git`, or a folder holding only `repo.txt` (its first line the repository's URL or path, an
optional second line the commit). Archives are checked before anything is written: no absolute
paths, no `..`, no links or devices, at most `max_files` files and `max_bytes` unpacked. A
folder's symbolic links are followed only when they stay inside it. An archive whose content
sits in one top folder (alice.zip holding alice/...) is unpacked from inside that folder.
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

import trio

from referee.tournament.bot_folders import OUTPUT_FOLDERS
from referee.tournament.layouts import ARCHIVE_SUFFIXES

REPO_FILE = "repo.txt"
GIT_TIMEOUT = 120.0


class UnpackError(Exception):
    """An entry that cannot be unpacked, in plain words."""


def student_id(entry: Path) -> str:
    """The student's id: the entry's name without an archive suffix, in safe characters."""
    name = entry.name
    for suffix in ARCHIVE_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name).strip("._-")
    return safe[:64] or "student"


def is_entry(path: Path) -> bool:
    """Whether `path`, in the submissions folder, is a student's submission: not a hidden file,
    nor the records a referee run there wrote (`referee play` from that folder)."""
    if path.name.startswith((".", "_")):
        return False
    if path.name in OUTPUT_FOLDERS and path.is_dir():
        return False
    return path.is_dir() or path.name.lower().endswith(ARCHIVE_SUFFIXES)


def _safe_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or name.startswith(("/", "\\")) or ":" in (path.parts or ("",))[0]:
        raise UnpackError(f"the archive holds an absolute path: {name!r}")
    if ".." in path.parts:
        raise UnpackError(f"the archive holds a path that leaves its folder: {name!r}")
    return path


def _budget(count: int, size: int, max_files: int, max_bytes: int) -> None:
    if count > max_files:
        raise UnpackError(f"the archive holds more than {max_files} files")
    if size > max_bytes:
        raise UnpackError(f"the archive unpacks to more than {max_bytes // (1 << 20)} MB")


def unpack_zip(archive: Path, dest: Path, max_files: int, max_bytes: int) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            for info in members:
                _safe_name(info.filename)
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise UnpackError(f"the archive holds a symbolic link: {info.filename!r}")
            _budget(len(members), sum(i.file_size for i in members), max_files, max_bytes)
            written = 0
            for info in members:
                target = dest / _safe_name(info.filename)
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                # The sizes in the directory may lie: count what is really written.
                with zf.open(info) as source, target.open("wb") as out:
                    while block := source.read(1 << 16):
                        written += len(block)
                        _budget(0, written, max_files, max_bytes)
                        out.write(block)
                if (info.external_attr >> 16) & 0o111:
                    target.chmod(0o755)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise UnpackError(f"not a readable zip archive: {exc}") from None


def unpack_tar(archive: Path, dest: Path, max_files: int, max_bytes: int) -> None:
    try:
        with tarfile.open(archive) as tf:
            members: list[tarfile.TarInfo] = []
            size = 0
            # Header by header, each checked as it is read: a member that says it is too big
            # is refused there, before the stream is decompressed through it (a bomb).
            for member in tf:
                _safe_name(member.name)
                if not (member.isfile() or member.isdir()):
                    raise UnpackError(
                        f"the archive holds a link or a special file: {member.name!r}"
                    )
                members.append(member)
                size += member.size
                _budget(len(members), size, max_files, max_bytes)
            for member in members:
                target = dest / _safe_name(member.name)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tf.extractfile(member)
                if source is None:
                    continue
                with source, target.open("wb") as out:
                    shutil.copyfileobj(source, out)
                if member.mode & 0o111:
                    target.chmod(0o755)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UnpackError(f"not a readable tar archive: {exc}") from None


def copy_folder(source: Path, dest: Path, max_files: int, max_bytes: int) -> None:
    root = source.resolve()
    count = size = 0
    for here, dirs, files in os.walk(source, followlinks=False):
        dirs[:] = [d for d in dirs if d != ".git"]
        rel = Path(here).relative_to(source)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for name in [*files, *(d for d in list(dirs) if Path(here, d).is_symlink())]:
            path = Path(here, name)
            real = path.resolve()
            if real != root and root not in real.parents:
                raise UnpackError(f"{path.relative_to(source)} links outside the submission")
            if not real.is_file():
                continue
            count += 1
            size += real.stat().st_size
            _budget(count, size, max_files, max_bytes)
            shutil.copyfile(real, dest / rel / name)
            if real.stat().st_mode & 0o111:
                (dest / rel / name).chmod(0o755)


async def clone(url: str, commit: str | None, dest: Path) -> str:
    """Clone a repository (a path or a URL) into `dest`; return the commit checked out."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    steps = [["git", "-c", "protocol.file.allow=always", "clone", "--quiet", "--", url, str(dest)]]
    if commit:
        steps.append(["git", "-C", str(dest), "checkout", "--quiet", "--detach", commit])
    for argv in steps:
        with trio.move_on_after(GIT_TIMEOUT) as scope:
            done = await trio.run_process(
                argv, capture_stdout=True, capture_stderr=True, check=False, env=env, stdin=b""
            )
        if scope.cancelled_caught:
            raise UnpackError(f"git took longer than {GIT_TIMEOUT:g} s")
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise UnpackError(
                f"`{' '.join(argv[3:5] if 'clone' in argv else argv[3:])}` failed: {said[0]}"
            )
    head = await trio.run_process(
        ["git", "-C", str(dest), "rev-parse", "HEAD"], capture_stdout=True, check=False
    )
    return head.stdout.decode().strip()


def repository_of(entry: Path) -> tuple[str, str | None] | None:
    """(url, commit) when `entry` is a git repository or points to one with repo.txt."""
    if not entry.is_dir():
        return None
    if (entry / ".git").exists():
        return str(entry.resolve()), None
    repo = entry / REPO_FILE
    others = [p for p in entry.iterdir() if p.name != REPO_FILE]
    if repo.is_file() and not others:
        lines = [
            line.strip()
            for line in repo.read_text(encoding="utf-8", errors="replace").splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        ]
        if not lines:
            raise UnpackError(f"{REPO_FILE} names no repository")
        url = lines[0]
        if not url.startswith(("http://", "https://", "ssh://", "git@", "/", "file://")):
            url = str((entry / url).resolve())  # a path relative to repo.txt's folder
        return url, (lines[1] if len(lines) > 1 else None)
    return None


def check_size(folder: Path, max_files: int, max_bytes: int) -> None:
    """The limits of an archive, for what is already on disk (`.git` not counted), and no
    symbolic link that leads outside (git keeps links as they were committed)."""
    count = size = 0
    root = folder.resolve()
    try:
        for here, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in [*files, *dirs]:
                path = Path(here, name)
                real = path.resolve()
                if path.is_symlink() and real != root and root not in real.parents:
                    raise UnpackError(f"{path.relative_to(folder)} links outside the submission")
                if name in files:
                    count += 1
                    size += path.lstat().st_size
        _budget(count, size, max_files, max_bytes)
    except UnpackError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise UnpackError(str(exc).replace("the archive", "the repository")) from None


def flatten(dest: Path) -> None:
    """Content in one top folder (and nothing else) moves up into `dest`."""
    entries = [p for p in dest.iterdir() if p.name != "__MACOSX"]
    if len(entries) == 1 and entries[0].is_dir() and entries[0].name != ".git":
        inner = entries[0]
        hold = dest.with_name(dest.name + ".inner")
        inner.rename(hold)
        shutil.rmtree(dest)
        hold.rename(dest)


def normalise_modes(dest: Path) -> None:
    """Folders 755, files 644 (755 if executable): a bot running as a user of its own must be
    able to read them, and nothing in them is writable by others."""
    dest.chmod(0o755)
    for here, dirs, files in os.walk(dest):
        for d in dirs:
            Path(here, d).chmod(0o755)
        for f in files:
            path = Path(here, f)
            if not path.is_symlink():
                path.chmod(0o755 if path.stat().st_mode & 0o111 else 0o644)


async def unpack(entry: Path, dest: Path, max_files: int, max_bytes: int) -> str | None:
    """Unpack `entry` into the new folder `dest`; return the git commit for a repository."""
    if dest.exists():
        shutil.rmtree(dest)
    repo = repository_of(entry)
    commit = None
    if repo is not None:
        commit = await clone(repo[0], repo[1], dest)
        check_size(dest, max_files, max_bytes)  # a repository is as bounded as an archive
    else:
        dest.mkdir(parents=True)
        name = entry.name.lower()
        if entry.is_dir():
            copy_folder(entry, dest, max_files, max_bytes)
        else:
            if name.endswith(".zip"):
                unpack_zip(entry, dest, max_files, max_bytes)
            else:
                unpack_tar(entry, dest, max_files, max_bytes)
            flatten(dest)  # a folder handed in is taken as it is
    normalise_modes(dest)
    return commit
