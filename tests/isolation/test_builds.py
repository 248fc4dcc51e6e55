"""Builds: a referee running as root never runs a student's build as root, in the sandbox or not."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.course.builds import build, build_isolation
from referee.isolation import Feature, Limits


@pytest.fixture
def folder(users_level: None) -> Iterator[Path]:
    # Under /tmp and searchable: a bot user must reach it (a pytest folder is private to root).
    made = Path(tempfile.mkdtemp(prefix="build-", dir="/tmp"))
    made.chmod(0o755)
    try:
        yield made
    finally:
        shutil.rmtree(made)


async def test_a_build_without_the_sandbox_runs_as_a_user_of_its_own(folder: Path) -> None:
    (folder / "referee.toml").write_text(
        "build = 'sh -c \"id -u > who.txt; mkdir out; echo built > out/bot\"'\nrun = 'sh out/bot'\n"
    )
    isolation = build_isolation("users")
    assert Feature.USERS in isolation.features
    result = await build(folder, isolation, Limits(), timeout=30)
    assert result.command is not None and result.ok, result
    builder = int((folder / "who.txt").read_text())
    assert builder != 0 and builder != os.getuid()
    # What it built is the referee's again, and writable by nobody else.
    for path in [folder, folder / "who.txt", folder / "out", folder / "out" / "bot"]:
        status = path.stat()
        assert (status.st_uid, status.st_mode & 0o022) == (os.getuid(), 0), path


async def test_in_the_sandbox_a_build_runs_as_a_user_of_its_own_and_reads_no_secret(
    folder: Path, sandbox_level: None
) -> None:
    # A student's build that copies what only root may read into its folder (and from there
    # into its bot's stderr, and the feedback pages): as uid 0 in the sandbox it could.
    (folder / "referee.toml").write_text(
        "build = 'sh -c \"id -u > who.txt; head -c 40 /etc/shadow > stolen.txt; true\"'\n"
        "run = 'true'\n"
    )
    isolation = build_isolation("auto")
    assert {Feature.SANDBOX, Feature.USERS} <= isolation.features
    result = await build(folder, isolation, Limits(), timeout=30)
    assert result.command is not None and result.ok, result
    assert int((folder / "who.txt").read_text()) not in (0, os.getuid())
    assert (folder / "stolen.txt").read_bytes() == b""
    assert "Permission denied" in result.output
    for path in [folder, folder / "who.txt", folder / "stolen.txt"]:
        status = path.stat()
        assert (status.st_uid, status.st_mode & 0o022) == (os.getuid(), 0), path


@pytest.fixture
def private_file() -> Iterator[Path]:
    """A file of the referee's, in a folder only root may enter (a server's private folder)."""
    made = Path(tempfile.mkdtemp(prefix="private-", dir="/tmp"))
    made.chmod(0o700)
    secret = made / "secret.key"
    secret.write_text("the server's key\n")
    secret.chmod(0o600)
    try:
        yield secret
    finally:
        shutil.rmtree(made)


@pytest.mark.parametrize("level", ["users", "auto"])
@pytest.mark.parametrize("command", ["cat {path}", "{path}"])
async def test_a_build_naming_a_server_path_fails_as_for_a_missing_one(
    folder: Path, private_file: Path, level: str, command: str
) -> None:
    """A build that names a path its user cannot reach is the student's failure, the same
    whether the path exists: no "machine" error, no advice to open up the server."""
    results = []
    for path in (private_file, private_file.with_name("nothing-here")):
        (folder / "referee.toml").write_text(
            f"build = '{command.format(path=path)}'\nrun = 'true'\n"
        )
        result = await build(folder, build_isolation(level), Limits(), timeout=30)
        assert not result.ok and result.problem is not None
        assert "machine" not in result.problem and "chmod" not in result.problem
        assert "allow_root" not in result.problem and "server's key" not in result.output
        results.append((result.problem.replace(path.name, "NAME"), result.output))
    exists, missing = results
    assert exists[0] == missing[0]


async def test_a_long_build_log_keeps_its_first_error_and_its_end_with_a_cut_marker(
    folder: Path,
) -> None:
    lines = ["bot.c:1: error: the first error"] + [
        f"note {n}: more of the same" for n in range(2000)
    ]
    script = "".join(f"echo '{line}'\n" for line in lines) + "echo 'the last words'\nexit 1\n"
    (folder / "build.sh").write_text(script)
    (folder / "referee.toml").write_text("build = 'sh build.sh'\nrun = 'true'\n")
    result = await build(folder, build_isolation("users"), Limits(), timeout=60)
    assert not result.ok
    full = "\n".join([*lines, "the last words"]) + "\n"
    shown = result.output
    assert shown.startswith("bot.c:1: error: the first error\n")
    assert shown.endswith("the last words\n")
    found = re.search(r"^\.\.\. (\d+) bytes cut \.\.\.$", shown, re.M)
    assert found is not None
    head, tail = shown.split(found.group(0) + "\n")
    # Whole lines on both sides, and the count says exactly what is missing between them.
    assert full.startswith(head) and full.endswith(tail) and head.endswith("\n")
    assert tail.splitlines()[0] in lines
    assert len(head) + int(found.group(1)) + len(tail) == len(full)
    assert len(shown) < 9000
