"""A bot opens its own standard streams by path at every root level: `/dev/stderr`,
`/dev/stdout`, `/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N` (docs/isolation.md says so).

A try-out found that a bot with a user of its own got EACCES for each: the pipes the referee
made belonged to root, mode 0600, so an ordinary sh bot doing `echo log > /dev/stderr` lost by
crash. The bot here is an sh script that logs so, then executes a Python bot that opens each of
those paths, plays its first move through `/proc/self/fd/1` and its report through
`/dev/stdout`; the report is not a move, so it loses by bad syntax with that line. Its pipes
being its own user's, its opponent still reaches none of them: the attack of
`test_other_processes.py` is played against it at the same levels.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from protocols.base import Reason, Side
from referee.isolation import landlock
from tests.isolation.arena import Arena
from tests.isolation.test_other_processes import ATTACK, BLOCKED

OWN_PATHS = """
import errno
PATHS = [
    ("/dev/stderr", "w"), ("/dev/fd/2", "w"), ("/proc/self/fd/2", "w"),
    ("/dev/stdout", "w"), ("/dev/fd/1", "w"), ("/proc/self/fd/1", "w"),
    ("/dev/stdin", "r"), ("/dev/fd/0", "r"), ("/proc/self/fd/0", "r"),
]
def probe():
    came = set()
    for path, mode in PATHS:
        try:
            with open(path, mode) as f:
                if path.endswith("2") or path.endswith("stderr"):
                    f.write("py-logged " + path + "\\n")
            came.add("ok")
        except OSError as exc:
            came.add(path + "-" + errno.errorcode[exc.errno])
    return " ".join(sorted(came))
hear()
with open("/proc/self/fd/1", "w") as out:
    out.write(MOVES.pop(0) + "\\n")
hear()
report = probe()
with open("/dev/stdout", "w") as out:
    out.write("by-path " + report + "\\n")
"""


def by_path_bot(arena: Arena) -> tuple[str, Path, str]:
    """The sh bot that executes the Python one: its command, its folder, its Python program."""
    command, folder = arena.hostile(OWN_PATHS)
    python, script = command.split(" ", 1)
    shell = folder / "bot.sh"
    shell.write_text(f"echo sh-logged-by-path > /dev/stderr\nexec {python} {script}\n")
    shell.chmod(0o644)
    return f"sh {shell}", folder, script


async def test_a_bot_opens_its_own_stdio_by_path_at_every_root_level(root_stage: Arena) -> None:
    command, folder, _ = by_path_bot(root_stage)
    record = await root_stage.play((command, folder), root_stage.opponent())
    result = record.result
    assert result is not None and not result.void, result
    assert (result.winner, result.reason, result.loser_line) == (
        Side.ORANGE,
        Reason.BAD_SYNTAX,
        "by-path ok",
    ), result
    said = result.bots[Side.BLUE].stderr_tail
    assert "sh-logged-by-path" in said
    assert all(f"py-logged {path}" in said for path in ("/dev/stderr", "/proc/self/fd/2"))
    root_stage.assert_nothing_left()


async def test_its_opponent_still_reaches_none_of_its_pipes(root_stage: Arena) -> None:
    # Its pipes are its own user's now: the opponent (orange, whose first line says what came
    # of the attack) still opens no descriptor of it, nor its memory, nor signals it.
    command, folder, script = by_path_bot(root_stage)
    orange, orange_folder = root_stage.bot(ATTACK, [], "attacker")  # its first line: the outcome
    record = await root_stage.play((command, folder), (f"{orange} {script[::-1]}", orange_folder))
    result = record.result
    assert result is not None and not result.void, result
    in_sight = root_stage.level == "basic+root"  # both root: only Landlock keeps them apart
    if in_sight and landlock.abi() == 0:
        pytest.skip("no Landlock in this kernel: a bot run as root reaches every process")
    expected = BLOCKED if in_sight else "found-0"
    assert (result.winner, result.reason, result.loser_line) == (
        Side.BLUE,
        Reason.BAD_SYNTAX,
        expected,
    ), result
    root_stage.assert_nothing_left()
