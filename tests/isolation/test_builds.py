"""Builds: a referee running as root never runs a student's build as root, in the sandbox or not."""

from __future__ import annotations

import os
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
