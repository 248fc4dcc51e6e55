"""`referee doctor`: the machine's isolation, a trial bot at the level `auto` picks, and a warning
when another distribution's package stands in for one of the referee's generic top-level names."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from referee.commands.doctor import what_each_bot_gets
from referee.isolation import landlock
from referee.isolation.levels import BASIC_ISOLATION, IsolationSettings


def doctor(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", "doctor"],
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_doctor_proves_its_level_with_a_trial_bot(tmp_path: Path) -> None:
    done = doctor(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "auto chooses:" in done.stdout
    assert "trial bot:" in done.stdout
    assert "not the referee's own" not in done.stdout


def test_a_foreign_bots_package_on_the_path_is_named(tmp_path: Path) -> None:
    foreign = tmp_path / "elsewhere" / "bots"
    foreign.mkdir(parents=True)
    (foreign / "__init__.py").write_text("")
    done = doctor(tmp_path, PYTHONPATH=str(foreign.parent))
    assert done.returncode == 1, done.stdout + done.stderr
    said = " ".join(done.stdout.split())
    assert f"`import bots` loads {foreign}, not the referee's own bots package" in said, said
    assert "`import protocols`" not in said


def test_doctor_says_what_every_bot_gets_and_what_is_left(tmp_path: Path) -> None:
    done = doctor(tmp_path)
    said = " ".join(done.stdout.split())
    assert "system calls: filtered at every level" in said, said
    assert "vsock" in said and "kernel keys" in said and "new namespaces" in said
    assert "left open between two colluding bots, at every level: timing" in said
    assert "locks on and access to the system's shared read-only files" in said
    if os.geteuid() == 0:  # namespaces of their own at every level, the sandbox or not
        assert "network: never" in said
        assert "each bot has its own: IPC (SysV, POSIX queues), /tmp," in said
        assert "left after a game: nothing of the bot (no process, kernel key or IPC object" in said


def test_without_root_or_sandbox_doctor_says_what_bots_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    lines = what_each_bot_gets(BASIC_ISOLATION)
    assert lines[0] == "network: the machine's"
    assert "shares IPC and /tmp with the referee's user" in lines[1]
    assert lines[-1] == "left after a game: no process; what it wrote as the referee's user stays"


def test_doctor_says_which_processes_a_bot_may_reach_and_see(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A referee that is not root, without a sandbox: both bots run as its user. Where the kernel
    # has Landlock each is in a domain of its own; where it has none, doctor says what is open.
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    lines = what_each_bot_gets(BASIC_ISOLATION)
    assert lines[-2] == (
        "processes in sight: every process of the machine, with its command line and CPU time "
        "(no sandbox and no user of its own)"
    )
    monkeypatch.setattr(landlock, "abi", lambda: 7)
    assert what_each_bot_gets(BASIC_ISOLATION)[-3] == (
        "other processes: each bot in a Landlock domain of its own (ABI 7): it may not trace a "
        "process outside it, read its memory or descriptors, signal it or reach its abstract "
        "sockets"
    )
    monkeypatch.setattr(landlock, "abi", lambda: 0)
    assert what_each_bot_gets(BASIC_ISOLATION)[-3].startswith(
        "other processes: no Landlock in this kernel: at a level without users and without the "
        "sandbox, a bot may read and write the memory and descriptors of every process of its user"
    )


def test_the_trial_bot_s_words_are_shown_whole_brackets_included(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A hint naming a config table (`[match.isolation] allow_root = true`) is shown as written,
    # not taken for terminal markup and dropped.
    from contextlib import asynccontextmanager
    from io import StringIO

    from rich.console import Console

    from referee.bot import BotInfrastructureError
    from referee.commands import doctor

    hint = "or run bots as root ([match.isolation] allow_root = true, or --isolation ...+root)"

    @asynccontextmanager
    async def refused(*args: object, **kwargs: object) -> AsyncIterator[None]:
        raise BotInfrastructureError(hint)
        yield

    monkeypatch.setattr(doctor, "open_bot", refused)
    out = StringIO()
    doctor.trial(BASIC_ISOLATION, Console(file=out, width=200, color_system=None))
    assert hint in out.getvalue()


@pytest.mark.parametrize(
    ("uid", "owner"), [(0, "a bot user id that later games give"), (1000, "the referee's user")]
)
def test_doctor_says_what_writable_dir_true_allows(
    uid: int, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A try-out's bot filled the disk with many 64 MB files in its folder (the start check
    # already runs it there): the setting bounds each file, not their total.
    monkeypatch.setattr(os, "geteuid", lambda: uid)
    said = " ".join(what_each_bot_gets(BASIC_ISOLATION))
    assert "its own folder: read-only to it (writable_dir = false, the default)" in said, said
    assert "writable_dir = true is for trusted bots only" in said
    assert "bounds each file (file_size_mb), not their total" in said
    assert owner in said
    assert "a bot can still leave links (to /etc, /root), FIFOs, sockets" in said
    assert "delete or replace its own program, which voids its later games" in said
    assert ("set-group-id bits of what a bot user id owns there are cleared" in said) == (uid == 0)
    description = IsolationSettings.model_fields["writable_dir"].description
    assert description is not None and "trusted bots only" in description
    assert "set-user-id and set-group-id bits cleared after each game" in description
