"""A bot that may write its folder (`writable_dir = true`) leaves no set-user-id or
set-group-id file of its user there after its game, at the default level and without the
sandbox; what a link of its names is never changed."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from referee.isolation.bot_users import DEFAULT_UID_BASE, DEFAULT_UID_COUNT
from tests.isolation.arena import Arena, bot_python, skip_unless_available

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="users of their own need a root referee")
BOT_UIDS = range(DEFAULT_UID_BASE, DEFAULT_UID_BASE + DEFAULT_UID_COUNT)


@pytest.fixture(params=["auto", "users+cgroup"])
def stage(request: pytest.FixtureRequest) -> Iterator[Arena]:
    level: str = request.param
    skip_unless_available(level)
    arena = Arena(level, bot_python(level))
    try:
        yield arena
    finally:
        arena.cleanup()


PLANTER = """
import shutil, stat
shutil.copy("/bin/true", "suid")
os.chmod("suid", 0o6755)
os.mkdir("sgid-folder")
os.chmod("sgid-folder", 0o2777)
os.symlink({outside!r}, "link")
os.mkfifo("fifo")  # never opened by the referee: it would wait for a writer
note("planted " + oct(os.stat("suid").st_mode))
colour = start()
while True:
    line = hear()
    if line in ("END", ""):
        break
    say(MOVES.pop(0) if MOVES else "resign")
"""


def test_a_writable_folder_keeps_no_setuid_file_of_a_bot(stage: Arena, tmp_path: Path) -> None:
    # What a link of its folder names, outside it: a set-user-id file of a bot user id that
    # the referee must not touch through the link.
    outside = tmp_path / "elsewhere"
    outside.write_text("not the bot's folder\n")
    os.chown(outside, BOT_UIDS[-1], BOT_UIDS[-1])
    outside.chmod(0o4755)
    hostile = stage.hostile(PLANTER.format(outside=str(outside)))
    hostile[1].chmod(0o777)  # its user must be able to write there at all
    settings = stage.settings()
    isolation = settings.isolation.model_copy(update={"writable_dir": True})
    record = trio.run(
        lambda: stage.play(
            hostile, stage.opponent(), settings.model_copy(update={"isolation": isolation})
        )
    )
    assert record.result is not None
    assert "planted 0o106755" in record.result.bots["blue"].stderr_tail, record.result
    for name in ("suid", "sgid-folder"):
        info = (hostile[1] / name).lstat()
        assert info.st_uid in BOT_UIDS
        assert not info.st_mode & (stat.S_ISUID | stat.S_ISGID), (name, oct(info.st_mode))
    assert (hostile[1] / "link").is_symlink()
    assert stat.S_IMODE(outside.stat().st_mode) == 0o4755  # not followed
