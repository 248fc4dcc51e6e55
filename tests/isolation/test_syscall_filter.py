"""The system-call filter: its one list, the numbers it closes on each architecture (checked
against the kernel's own headers), what its program decides (run here by a small interpreter of
classic BPF, for both architectures), and a filter that cannot be installed voiding the game."""

from __future__ import annotations

import errno
import os
import platform
import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest
import trio

from protocols.base import Reason
from referee.bot import open_bot
from referee.isolation import kernel, syscall_filter
from referee.isolation.confinement import launcher
from referee.isolation.levels import IsolationSettings, IsolationUnavailable, choose
from referee.isolation.syscall_filter import (
    AUDIT_ARCH,
    CLONE_NEWTIME,
    CLOSED,
    NUMBERS,
    FilterUnavailable,
    program,
)
from tests.isolation.arena import Arena

SECCOMP_DATA = struct.Struct("=iIQ6Q")  # nr, arch, instruction pointer, args
KILL, ALLOW = 0x80000000, 0x7FFF0000
CLONE_NEWUSER, SIGCHLD, CLONE_VM_VFORK = 0x10000000, 17, 0x4100
DOCS = Path(__file__).resolve().parents[2] / "docs" / "isolation.md"


def run(code: bytes, nr: int, arch: int, first_argument: int = 0) -> int:
    """What the kernel would do with a call: the program run as the kernel runs classic BPF
    (the loads, jumps and returns the filter uses)."""
    data = SECCOMP_DATA.pack(nr, arch, 0, first_argument, 0, 0, 0, 0, 0)
    instructions = [struct.unpack("=HBBI", code[at : at + 8]) for at in range(0, len(code), 8)]
    accumulator, at = 0, 0
    while True:
        op, jump_true, jump_false, k = instructions[at]
        if op == 0x20:  # load a word of the call's data
            accumulator = struct.unpack_from("=I", data, k)[0]
        elif op == 0x06:
            return k
        else:
            taken = {
                0x15: accumulator == k,
                0x35: accumulator >= k,
                0x45: accumulator & k != 0,
            }[op]
            at += jump_true if taken else jump_false
        at += 1


def action(code: bytes, arch: str, name: str, first_argument: int = 0) -> str:
    result = run(code, NUMBERS[arch][name], AUDIT_ARCH[arch], first_argument)
    if result == ALLOW:
        return "allow"
    if result == KILL:
        return "kill"
    assert result & 0xFFFF0000 == 0x00050000, hex(result)
    return errno.errorcode[result & 0xFFFF]


@pytest.mark.parametrize("arch", sorted(NUMBERS))
def test_the_program_closes_what_the_list_says_and_nothing_else(arch: str) -> None:
    code = program(arch)
    for closed in CLOSED:
        if closed.name not in NUMBERS[arch]:
            continue
        if closed.mask is None and closed.value is None:
            assert action(code, arch, closed.name) == errno.errorcode[closed.errno], closed
    assert action(code, arch, "clone", SIGCHLD) == "allow"  # fork
    assert action(code, arch, "clone", CLONE_VM_VFORK | SIGCHLD) == "allow"  # posix_spawn
    assert action(code, arch, "clone", CLONE_NEWUSER | SIGCHLD) == "EPERM"
    assert action(code, arch, "unshare", 0x400) == "allow"  # CLONE_FILES: nothing shared
    assert action(code, arch, "unshare", CLONE_NEWTIME) == "EPERM"
    assert action(code, arch, "socket", 2) == "allow"  # AF_INET (in its own namespace)
    assert action(code, arch, "socket", 40) == "EAFNOSUPPORT"  # AF_VSOCK
    assert action(code, arch, "clone3") == "ENOSYS"  # the C library falls back to clone
    for number in (0, 1, 3, 60, 202, 231):  # read, write, close, ... whatever is not closed
        if number not in NUMBERS[arch].values():
            assert run(code, number, AUDIT_ARCH[arch]) == ALLOW
    other = next(value for name, value in AUDIT_ARCH.items() if name != arch)
    assert run(code, 0, other) == KILL  # a call of another ABI: numbers that mean other calls
    if arch == "x86_64":
        assert run(code, 0x40000000 | 250, AUDIT_ARCH[arch]) == KILL  # x32's keyctl


def numbers_in_the_headers(arch: str) -> dict[str, int]:
    """The kernel's own numbers: x86_64's from its compiled headers (on this machine), the
    generic table aarch64 uses from asm-generic/unistd.h."""
    if arch == "aarch64":
        header = Path("/usr/include/asm-generic/unistd.h")
        if not header.exists():
            pytest.skip("no kernel headers here (Debian package linux-libc-dev)")
        found = re.findall(r"#define __NR_(\w+)\s+(\d+)\n", header.read_text())
        return {name: int(number) for name, number in found}
    if platform.machine() != "x86_64" or shutil.which("gcc") is None:
        pytest.skip("the x86_64 numbers are read by compiling on an x86_64 machine")
    names = sorted(NUMBERS[arch])
    source = "#include <stdio.h>\n#include <sys/syscall.h>\nint main(void) {\n"
    source += "".join(f'printf("{n} %d\\n", __NR_{n});\n' for n in names) + "}\n"
    with tempfile.TemporaryDirectory() as folder:
        binary = Path(folder, "numbers")
        compile_ = ["gcc", "-x", "c", "-o", str(binary), "-"]
        subprocess.run(compile_, input=source.encode(), check=True)
        lines = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: int(line.split()[1]) for line in lines.splitlines()}


@pytest.mark.parametrize("arch", sorted(NUMBERS))
def test_the_numbers_are_the_kernels(arch: str) -> None:
    assert numbers_in_the_headers(arch) | NUMBERS[arch] == numbers_in_the_headers(arch)
    # Every closed call has a number wherever it exists (iopl and ioperm are x86's only).
    missing = {c.name for c in CLOSED} - set(NUMBERS[arch])
    assert missing == (set() if arch == "x86_64" else {"iopl", "ioperm"})
    # The launcher's own keyctl number, for the keyring it joins and the keys it clears.
    assert kernel.KEYCTL_NUMBER[arch] == NUMBERS[arch]["keyctl"]


def test_the_docs_list_every_closed_call() -> None:
    docs = DOCS.read_text()
    for closed in CLOSED:
        assert f"`{closed.name}`" in docs, f"docs/isolation.md does not name {closed.name}"


def test_without_a_table_for_the_machine_no_bot_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FilterUnavailable, match=r"architecture \(riscv64\)"):
        program("riscv64")
    monkeypatch.setattr(syscall_filter, "machine", lambda: "riscv64")
    for level in ("auto", "basic+root" if os.geteuid() == 0 else "basic"):
        with pytest.raises(IsolationUnavailable, match="no system-call filter for this machine"):
            choose(IsolationSettings(level=level))


async def test_a_filter_that_cannot_be_installed_voids_the_game(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A program the kernel refuses (no return at its end): the launcher says so, and the game
    # is the machine's failure, never played unfiltered.
    monkeypatch.setattr(syscall_filter, "argument", lambda: "2000000004000000")
    record = await arena.play(arena.hostile("pass"), arena.opponent())
    assert record.result is not None and record.result.reason is Reason.INFRASTRUCTURE
    assert record.result.void
    assert "cannot install the system-call filter" in record.result.detail
    arena.assert_nothing_left()


def test_a_launcher_without_a_filter_refuses_to_execute_the_bot(helper: str) -> None:
    done = subprocess.run(
        [*launcher(2), "--stage", "only", "--", "true"], capture_output=True, text=True
    )
    assert done.returncode == 127
    assert "infra: no system-call filter was given for the bot" in done.stderr


async def test_a_bot_sees_the_filter_installed(arena: Arena) -> None:
    command = "sh -c 'grep -E \"^(NoNewPrivs|Seccomp):\" /proc/self/status >&2; read l; echo ok'"
    isolation = arena.isolation()
    async with open_bot(command, cwd=arena.directory(), isolation=isolation) as bot:
        assert await bot.ask("go", trio.current_time() + 30) == "ok"
        await bot.notify("END", 1)
    assert bot.exit is not None
    said = bot.exit.stderr_tail
    assert "NoNewPrivs:\t1" in said and "Seccomp:\t2" in said, said
    arena.assert_nothing_left()
