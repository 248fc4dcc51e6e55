"""The compiled supervisor and launcher: built once, kept, and only used when nobody else could
have changed it. (What it does to a bot is tested through every isolation test, which runs
each bot with it and with the Python programs: the `helper` fixture.)"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.isolation import native


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("REFEREE_NATIVE_HELPER", raising=False)
    native.helper_at.cache_clear()
    yield tmp_path / "cache"
    native.helper_at.cache_clear()  # the next test must not get a path under tmp_path


def test_the_helper_is_built_once_and_then_reused(cache: Path) -> None:
    built = native.native_helper()
    assert built is not None and built.parent == cache / "helpers"
    assert built.name.startswith("referee-helper-") and os.access(built, os.X_OK)
    first = built.stat().st_mtime_ns
    native.helper_at.cache_clear()
    assert native.native_helper() == built
    assert built.stat().st_mtime_ns == first  # not compiled again
    assert [p.name for p in built.parent.iterdir()] == [built.name]  # no build leftovers
    # It is a working program: it tells what it wants when asked wrongly.
    done = subprocess.run([built, "launch"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "usage: referee-helper" in done.stderr


def test_a_helper_others_may_change_is_never_run(cache: Path) -> None:
    built = native.native_helper()
    assert built is not None
    built.parent.chmod(0o777)  # anyone could have put another program there
    native.helper_at.cache_clear()
    assert native.native_helper() is None
    # A program others may change in a folder of ours is not run: it is compiled again, anew.
    built.parent.chmod(0o755)
    built.chmod(0o775)
    old_inode = built.stat().st_ino
    native.helper_at.cache_clear()
    assert native.native_helper() == built
    assert built.stat().st_ino != old_inode and built.stat().st_mode & 0o777 == 0o755


def test_without_a_compiler_or_when_asked_the_python_programs_are_used(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CC", "no-such-compiler")
    monkeypatch.setenv("PATH", str(tmp_path))  # no cc, no gcc
    assert native.native_helper() is None
    assert not (cache / "helpers").exists() or not any((cache / "helpers").iterdir())
    monkeypatch.undo()
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(cache))
    monkeypatch.setenv("REFEREE_NATIVE_HELPER", "0")
    native.helper_at.cache_clear()
    assert native.native_helper() is None


def test_a_source_that_does_not_compile_leaves_nothing_behind(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "helper.c"
    broken.write_text("int main(void) { return }\n")
    monkeypatch.setattr(native, "SOURCES", (broken,))
    assert native.native_helper() is None
    assert list((cache / "helpers").iterdir()) == []


def test_a_cache_folder_named_later_gets_a_helper_of_its_own(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that names another cache folder is never handed the helper of the folder it
    named before, which may be gone by then (a test's folder, a cleared cache)."""
    first = native.native_helper()
    assert first is not None and first.parent == cache / "helpers"
    shutil.rmtree(cache)
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path / "another"))
    second = native.native_helper()
    assert second is not None and second.parent == tmp_path / "another" / "helpers"
    assert os.access(second, os.X_OK)
