"""The sandbox's mounts, made by the compiled helper and by bubblewrap from one plan: every
folder bound in is `nosuid` and `nodev` (a bot that may write its folder leaves no set-user-id
program or device node of use), its own writable folder and its private places included, and a
hidden file still reads as an empty one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.isolation import native
from referee.isolation.sandbox import PRIVATE_PLACES, View, sandbox_argv
from referee.isolation.scratch import make_scratch, remove_scratch

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="the compiled helper makes the sandbox only for a root referee"
)


@pytest.fixture(params=["helper", "bubblewrap"])
def program(request: pytest.FixtureRequest) -> list[str]:
    if request.param == "bubblewrap":
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            pytest.skip("bubblewrap is not installed here (Debian package bubblewrap)")
        return [bwrap]
    helper = native.native_helper()
    if helper is None:
        pytest.skip("no compiled helper here (no C compiler)")
    return [str(helper), "sandbox"]


def run_inside(program: list[str], tmp_path: Path, script: str) -> str:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "hidden.jsonl").write_text("the referee's record\n")
    private = tmp_path / "private"
    for name in PRIVATE_PLACES.values():
        (private / name).mkdir(parents=True)
    view = View(
        cwd=folder,
        writable=True,
        own=[],
        public=[Path(sys.prefix), Path(sys.base_prefix)],
        hidden=[folder / "hidden.jsonl"],
        private=private,
    )
    argv = [*sandbox_argv(program, view), "/bin/sh", "-c", script]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def mount_options(mountinfo: str) -> dict[str, set[str]]:
    """Each mount point's own options (the sixth field of /proc/self/mountinfo)."""
    options: dict[str, set[str]] = {}
    for line in mountinfo.splitlines():
        fields = line.split()
        options[fields[4]] = set(fields[5].split(","))
    return options


def test_the_bots_writable_folder_and_private_places_are_nosuid_and_nodev(
    program: list[str], tmp_path: Path
) -> None:
    options = mount_options(run_inside(program, tmp_path, "cat /proc/self/mountinfo"))
    for place in [str(tmp_path / "bot"), *PRIVATE_PLACES]:
        assert {"rw", "nosuid", "nodev"} <= options[place], (place, options[place])
    for folder in ("/usr", "/etc"):  # read-only, and no set-user-id program of theirs works
        assert {"ro", "nosuid", "nodev"} <= options[folder], (folder, options[folder])


def test_a_hidden_file_reads_empty(program: list[str], tmp_path: Path) -> None:
    assert run_inside(program, tmp_path, "cat hidden.jsonl && echo read") == "read\n"


def test_the_scratch_tmpfs_of_a_bots_private_places_is_nosuid_and_nodev() -> None:
    # Without the sandbox (users+cgroup as root) its private /tmp and the others are this tmpfs.
    folder = make_scratch(1, None)
    try:
        mounts = mount_options(Path("/proc/self/mountinfo").read_text())
        assert {"rw", "nosuid", "nodev"} <= mounts[str(folder)], mounts[str(folder)]
    finally:
        remove_scratch(folder)
