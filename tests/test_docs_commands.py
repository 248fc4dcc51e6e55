"""The docs name a command as it is typed: `referee tournament verify DIR`, never a bare
`verify DIR` that a reader cannot run (the subcommands of `referee`, `referee tournament` and
`referee course` are only ever quoted as whole command lines)."""

from __future__ import annotations

import re
from pathlib import Path

from referee.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SUBCOMMANDS = {"new", "run", "results", "verify", "rebuild", "collect", "report", "grades"}
# A code span that starts with a subcommand and goes on with what to type after it (`verify
# DIR`), rather than naming it in passing (`tournament verify`).
NAMES = "|".join(sorted(set(COMMANDS) | SUBCOMMANDS))
BARE = re.compile(rf"`((?:{NAMES}) [A-Z][A-Z_]*\b[^`]*)`")


def test_every_command_is_quoted_whole() -> None:
    bare = [
        f"{page.relative_to(ROOT)}: `{found}`"
        for page in PAGES
        for found in BARE.findall(page.read_text(encoding="utf-8"))
    ]
    assert not bare, bare
